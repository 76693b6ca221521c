/** The `model` an answer names, if it names one. */
export function modelOf(json: object): string | null {
  const model = (json as { model?: unknown }).model;
  return typeof model === 'string' ? model : null;
}
