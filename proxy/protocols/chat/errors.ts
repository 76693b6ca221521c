import type { LocalRefusal } from '../../contracts/ports.ts';
import { buildClientError } from '../../core/errorClass.ts';
import type { ProtocolErrors } from '../adapter.ts';

/**
 * OpenAI's error shape, which every OpenAI-compatible client parses: Chat Completions, the
 * Responses API and every endpoint passed through. The gateway's status is kept.
 */
export const openAiErrors: ProtocolErrors = {
  status: (_errorClass, upstreamStatus) => upstreamStatus,
  body: (_status, errorClass, detail) => buildClientError(errorClass, detail),
  refusalBody: (refusal: LocalRefusal) => ({
    error: { message: refusal.message, type: refusal.errorClass, code: refusal.code ?? refusal.errorClass },
  }),
  // A chat stream's error is a data event holding the error body (OpenAI's own streams do this).
  streamFrame: (errorClass, detail) => `data: ${JSON.stringify(buildClientError(errorClass, detail))}\n\n`,
  requestIdHeader: 'x-request-id',
  // The OpenAI SDK reads a whole answer's body after its retry loop: a reset there is thrown, never
  // resent (probe B, 2026-11-29: once against the gateway, three times through Airlock while its 502 was retryable).
  resetAnswerResent: false,
};
