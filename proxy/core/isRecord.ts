/** A JSON object (not an array, not null): what a parsed body's or answer's field must be to be read as one. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
