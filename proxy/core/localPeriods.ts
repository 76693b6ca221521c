/** Budget periods run in local time: a day and a month start at local midnight. */
export function startOfLocalDayMs(atMs: number): number {
  const at = new Date(atMs);
  return new Date(at.getFullYear(), at.getMonth(), at.getDate()).getTime();
}

export function startOfLocalMonthMs(atMs: number): number {
  const at = new Date(atMs);
  return new Date(at.getFullYear(), at.getMonth(), 1).getTime();
}
