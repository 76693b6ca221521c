/** A token limit as a request states it: a whole, non-negative number; null for anything else. */
export function tokenLimitOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** The `model` an answer names, if it names one. */
export function modelOf(json: object): string | null {
  const model = (json as { model?: unknown }).model;
  return typeof model === 'string' ? model : null;
}
