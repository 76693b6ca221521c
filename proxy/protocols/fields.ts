/** The message of an `error` member as gateways send it: a string, or an object with a message. */
export function errorMessageOf(json: Record<string, unknown>): string | null {
  const error = json.error;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const message = (error as { message?: unknown }).message;
    return typeof message === 'string' ? message : JSON.stringify(error);
  }
  return null;
}

/** The `model` an answer names, if it names one. */
export function modelOf(json: object): string | null {
  const model = (json as { model?: unknown }).model;
  return typeof model === 'string' ? model : null;
}
