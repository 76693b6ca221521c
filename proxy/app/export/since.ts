const UNIT_MS: Record<string, number> = { m: 60_000, h: 60 * 60_000, d: 24 * 60 * 60_000, w: 7 * 24 * 60 * 60_000 };

/**
 * A moment for `--since`/`--until`: a duration back from now (`30m`, `24h`, `7d`, `2w`) or a date or
 * date-time (`2026-11-01`, `2026-11-01T09:00`, local time unless it names a zone, as
 * Date.parse reads ISO forms). Throws a message that says what is accepted.
 */
export function parseMoment(text: string, nowMs: number, option: string): number {
  const trimmed = text.trim();
  const relative = /^(\d+)\s*([mhdw])$/i.exec(trimmed);
  if (relative) return nowMs - Number(relative[1]) * (UNIT_MS[relative[2]!.toLowerCase()] ?? 0);
  // A bare date is midnight local time: Date.parse would take it as UTC midnight.
  const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/.exec(trimmed);
  if (dateOnly) {
    const [year, month, day] = dateOnly.slice(1).map(Number) as [number, number, number];
    const date = new Date(year, month - 1, day);
    // The Date constructor rolls 2026-13-45 over into 2027; only a real calendar date is taken.
    if (date.getMonth() === month - 1 && date.getDate() === day) return date.getTime();
  } else if (/^\d{4}-\d{2}-\d{2}T/.test(trimmed)) {
    const parsed = Date.parse(trimmed);
    if (Number.isFinite(parsed)) return parsed;
  }
  throw new Error(`${option} "${text}": give a duration back from now (30m, 24h, 7d, 2w) or a date (2026-11-01, 2026-11-01T09:00)`);
}
