import { buildClientError } from '../../core/errorClass.ts';
import type { ProtocolErrors } from '../adapter.ts';
import { openAiErrors } from '../chat/errors.ts';
import { sseFrame } from '../sse.ts';

/**
 * The Responses API answers errors in OpenAI's shape. Mid-stream it sends an `error` event with the
 * code and message at the top level (the SDK's ResponseErrorEvent); the OpenAI body rides along
 * under `error`, which is what makes the SDK's stream reader raise it instead of yielding it.
 */
export const responsesErrors: ProtocolErrors = {
  ...openAiErrors,
  streamFrame: (errorClass, detail) => {
    const body = buildClientError(errorClass, detail);
    return sseFrame('error', { type: 'error', code: body.error.code, message: body.error.message, param: null, error: body.error });
  },
};
