import type { OpenAiErrorBody } from '../contracts/errors.ts';
import type { LocalRefusal } from '../contracts/ports.ts';

/** The OpenAI error body for a refusal Airlock makes itself. */
export function refusalBody(refusal: LocalRefusal): OpenAiErrorBody {
  return { error: { message: refusal.message, type: refusal.errorClass, code: refusal.code ?? refusal.errorClass, param: null } };
}

export function forbidden(code: string, message: string): LocalRefusal {
  return { status: 403, errorClass: 'forbidden', code, message };
}
