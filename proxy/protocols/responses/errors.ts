import type { ErrorClass } from '../../contracts/errors.ts';
import { buildClientError } from '../../core/errorClass.ts';
import type { ProtocolErrors } from '../adapter.ts';
import { saysContextOverflow, type GatewaySaid } from '../contextOverflow.ts';
import { openAiErrors } from '../chat/errors.ts';
import { sseFrame } from '../sse.ts';

/**
 * The Responses API answers errors in OpenAI's shape. Mid-stream it sends an `error` event with the
 * code and message at the top level (the SDK's ResponseErrorEvent); the OpenAI body rides along
 * under `error`, which is what makes the SDK's stream reader raise it instead of yielding it. A
 * `response.failed` follows for Codex, which skips `error` events and reads a stream's failure
 * only from it (codex-rs/codex-api/src/sse/responses.rs): without it a break read as a stream
 * closed before response.completed, with neither cause nor fix. The SDKs stop at the first frame.
 */
export const responsesErrors: ProtocolErrors = {
  ...openAiErrors,
  streamFrame: (errorClass, detail) => {
    const body = buildClientError(errorClass, detail);
    const error = sseFrame('error', { type: 'error', code: body.error.code, message: body.error.message, param: null, error: body.error });
    const response = {
      object: 'response',
      status: 'failed',
      output: [],
      error: { code: responsesFailureCode(errorClass), message: body.error.message },
    };
    return error + sseFrame('response.failed', { type: 'response.failed', response });
  },
};

/**
 * The `error.code` of a translated stream's response.failed. Codex gives up at once on these two
 * codes and shows them as they are; any other it takes for a dropped stream and sends the request
 * again, up to five times: a spent balance or a rate limit would be retried and shown as a disconnect.
 * `context_length_exceeded` is the third code it acts on (a full context window, which it reports
 * instead of sending the same prompt five times more: codex-rs/codex-api/src/sse/responses.rs), so a
 * gateway's refusal of a prompt over the model's context gets it.
 */
const FAILURE_CODES: Partial<Record<ErrorClass, string>> = {
  quota_exhausted: 'insufficient_quota',
  rate_limited: 'rate_limit_exceeded',
};

export function responsesFailureCode(errorClass: ErrorClass, said: GatewaySaid = {}): string {
  if (saysContextOverflow(errorClass, said)) return 'context_length_exceeded';
  return FAILURE_CODES[errorClass] ?? 'server_error';
}
