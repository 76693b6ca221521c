/**
 * OpenAI's 400 refusing chat's `max_tokens` for a reasoning model, as an attempt's error answer
 * (status and body text): the words and fields of test/simulator/gatewayErrors.ts
 * `maxTokensUnsupported`, as OpenAI serialises them, for unit tests that read an answer directly.
 */
export const MAX_TOKENS_REFUSAL = {
  status: 400,
  bodyText: JSON.stringify({
    error: {
      message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      type: 'invalid_request_error',
      param: 'max_tokens',
      code: 'unsupported_parameter',
    },
  }),
};
