import type { ErrorClass } from '../../contracts/errors.ts';
import { buildClientError } from '../../core/errorClass.ts';
import type { ProtocolErrors } from '../adapter.ts';
import { saysContextOverflow, type GatewaySaid } from '../contextOverflow.ts';
import { openAiErrors } from '../chat/errors.ts';
import { sseFrame } from '../sse.ts';

const EMPTY_BALANCE_STATUS = 429;
const EMPTY_BALANCE_CODE = 'insufficient_quota';

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
  /**
   * An empty balance is answered as OpenAI's Responses API answers it, a 429 `insufficient_quota`:
   * Codex resends a turn after any status but 400, 401 and 429 (its stream_max_retries, five by
   * default: six refused requests in about 6.5 s) and stops at once at this one, printing "Quota
   * exceeded. Check your plan and billing details." (checked with Codex 0.169). The SDKs obey the
   * refusal's `x-should-retry: false`; the AI SDK retries any 429 twice, as it does against OpenAI.
   */
  status: (errorClass, upstreamStatus) => (errorClass === 'quota_exhausted' ? EMPTY_BALANCE_STATUS : upstreamStatus),
  body: (status, errorClass, detail) =>
    openAiErrors.body(status, errorClass, errorClass === 'quota_exhausted' ? { ...detail, errorCode: EMPTY_BALANCE_CODE } : detail),
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
  quota_exhausted: EMPTY_BALANCE_CODE,
  rate_limited: 'rate_limit_exceeded',
};

export function responsesFailureCode(errorClass: ErrorClass, said: GatewaySaid = {}): string {
  if (saysContextOverflow(errorClass, said)) return 'context_length_exceeded';
  return FAILURE_CODES[errorClass] ?? 'server_error';
}
