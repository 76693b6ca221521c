/** A JSON object (not an array, not null): what a parsed body's or answer's field must be to be read as one. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON text's value when it is an object; null for any other value or text that is no JSON. */
export function parsedRecord(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}
