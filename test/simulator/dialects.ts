import { SEED_DIALECT, type Dialect } from './dialect.ts';

/**
 * Named dialects of real gateways, each behaviour with the public source it was learned from.
 * Messages are the gateways' own wire strings where a client or Airlock might match on them.
 */

/**
 * OpenAI's own API.
 * - Errors `{error:{message,type,param,code}}`, id in `x-request-id`, `[DONE]`, usage chunk with
 *   `choices: []` after the finish chunk only with `include_usage`:
 *   https://platform.openai.com/docs/api-reference/chat/create (stream_options) and
 *   https://platform.openai.com/docs/guides/error-codes
 * - An empty balance is a 429 with type and code `insufficient_quota` (error-codes guide above).
 * - A model the key may not use is the 404 `model_not_found` "does not exist or you do not have access".
 * - A model that cannot stream answers 400 `unsupported_value` with param `stream`, one without
 *   image input 400 "Invalid content type…" with the part's path as param:
 *   https://github.com/ChatGPTNextWeb/NextChat/issues/5410, https://github.com/vllm-project/vllm/issues/11629
 * - Reasoning models of OpenAI-compatible APIs stream their thinking as `reasoning_content`:
 *   https://api-docs.deepseek.com/guides/reasoning_model
 * - `reasoning_effort` for a model without reasoning is a 400 naming it (gatewayErrors.ts
 *   reasoningEffortUnsupported cites the sources).
 * - `max_tokens` for a reasoning model (o1, o3, gpt-5.x), which takes only `max_completion_tokens`,
 *   is a 400 naming it (gatewayErrors.ts maxTokensUnsupported cites the sources).
 */
const openai: Dialect = {
  ...SEED_DIALECT,
  name: 'openai',
  errors: {
    model_not_open: {
      status: 404,
      code: 'model_not_found',
      param: 'model',
      message: (model) => `The model \`${model}\` does not exist or you do not have access to it.`,
    },
    insufficient_quota: { status: 429, type: 'insufficient_quota', code: 'insufficient_quota' },
  },
};

/**
 * New API / One API relays (QuantumNous/new-api, songquanpeng/one-api), the software behind most
 * resold Chinese gateways.
 * - Request id header `X-Oneapi-Request-Id`, and the id appended to every error message as
 *   ` (request id: …)`: one-api common/helper/key.go, middleware/request-id.go and
 *   common/helper/helper.go MessageWithRequestId; new-api controller/relay.go.
 * - Errors `{error:{message,type:'new_api_error',code}}` with a string code ('' when none) and no
 *   param from its own checks: new-api middleware/utils.go abortWithOpenAiMessage, types/error.go.
 * - A token not allowed a model: 403 "该令牌无权访问模型 <model>"; an empty balance: 403
 *   `insufficient_user_quota` (types/error.go; its pre-consume billing answers it with 403), as the
 *   error table of its user docs says (https://docs.newapi.pro); one-api relay/controller/helper.go too.
 * - A model with no channel in the user's group: 503 `model_not_found` "No available channel for
 *   model … under group …": new-api middleware/distributor.go; one-api middleware/distributor.go.
 * - Its request-rate limit: 429 "您已达到请求数限制：…" with no Retry-After: new-api
 *   middleware/model-rate-limit.go.
 * - An invalid token: 401 "无效的令牌" (docs error table).
 * - Streams keep alive with `: PING` comment lines and end with `[DONE]`: new-api
 *   relay/helper/common.go PingData and StringData.
 */
const newApi: Dialect = {
  ...SEED_DIALECT,
  name: 'new-api',
  errorBody: 'new-api',
  requestIdHeader: 'x-oneapi-request-id',
  stream: { ...SEED_DIALECT.stream, keepAliveComment: ': PING' },
  errors: {
    invalid_api_key: { type: 'new_api_error', code: '', message: () => '无效的令牌' },
    model_not_open: { status: 403, type: 'new_api_error', code: '', message: (model) => `该令牌无权访问模型 ${model}` },
    model_not_found: {
      status: 503,
      type: 'new_api_error',
      code: 'model_not_found',
      message: (model) => `No available channel for model ${model} under group default (distributor)`,
    },
    insufficient_quota: {
      status: 403,
      type: 'new_api_error',
      code: 'insufficient_user_quota',
      message: () => '用户额度不足, 剩余额度: ＄0.000000',
    },
    rate_limit_exceeded: { status: 429, type: 'new_api_error', code: '', message: () => '您已达到请求数限制：1分钟内最多请求60次' },
  },
};

/**
 * The LiteLLM proxy.
 * - Errors `{error:{message,type,param,code}}` with code the status as a string, id in
 *   `x-litellm-call-id`: https://docs.litellm.ai/docs/proxy/response_headers and
 *   https://github.com/OpenHands/OpenHands/issues/17390 (a 401 `token_not_found_in_db` body).
 * - A key not allowed a model is a 401 `key_model_access_denied`:
 *   https://github.com/winfunc/opcode/issues/358.
 * - An unknown model is a 400 "Invalid model name passed in model=…", type and param "None":
 *   https://github.com/BerriAI/litellm/issues/8821.
 * - A spent budget is a 400 `budget_exceeded`: https://github.com/BerriAI/litellm/pull/4139,
 *   https://github.com/BerriAI/litellm/issues/14144.
 * - Its rate limiter answers 429 `throttling_error` with a Retry-After header (tests script the
 *   header): https://github.com/BerriAI/litellm/pull/4706, https://docs.litellm.ai/docs/routing.
 * - A stream's usage chunk holds a choice with an empty delta instead of `choices: []`:
 *   https://github.com/BerriAI/litellm/issues/28735.
 * - It states its own price of a reply: `usage.cost` on a stream, the `x-litellm-response-cost`
 *   header otherwise (usageWording.ts).
 * - A parameter the model's provider does not take (`reasoning_effort` for gpt-4o, gemini-2.5-pro)
 *   is a 400 UnsupportedParamsError naming it, type and param None, unless the proxy sets
 *   drop_params (then it is dropped): https://docs.litellm.ai/docs/completion/drop_params,
 *   https://github.com/BerriAI/litellm/issues/11921, https://github.com/BerriAI/litellm/issues/22721.
 * - `max_tokens` for OpenAI's reasoning models is sent on as `max_completion_tokens`, which they
 *   take: litellm/llms/openai/chat/o_series_transformation.py OpenAIOSeriesConfig.map_openai_params
 *   (and max_completion_tokens is taken too: https://github.com/BerriAI/litellm/pull/5691).
 */
const litellm: Dialect = {
  ...SEED_DIALECT,
  name: 'litellm',
  stream: { ...SEED_DIALECT.stream, usagePlacement: 'afterFinishWithChoice' },
  errorBody: 'litellm',
  requestIdHeader: 'x-litellm-call-id',
  usageWording: 'litellm',
  unsupportedMaxTokens: 'mapped',
  errors: {
    invalid_api_key: {
      type: 'token_not_found_in_db',
      param: 'key',
      message: () =>
        'Authentication Error, Invalid proxy server token passed. Unable to find token in cache or `LiteLLM_VerificationTokenTable`',
    },
    model_not_open: {
      status: 401,
      type: 'key_model_access_denied',
      param: 'model',
      message: (model) => `key not allowed to access model. This key can only access models=['gpt-4o-mini']. Tried to access ${model}`,
    },
    model_not_found: {
      status: 400,
      type: 'None',
      param: 'None',
      message: (model) =>
        `{'error': '/chat/completions: Invalid model name passed in model=${model}. Call \`/v1/models\` to view available models for your key.'}`,
    },
    insufficient_quota: {
      status: 400,
      type: 'budget_exceeded',
      param: null,
      message: () => 'Budget has been exceeded! Current cost: 10.02, Max budget: 10.0',
    },
    rate_limit_exceeded: { status: 429, type: 'throttling_error', message: () => 'Max parallel request limit reached.' },
    reasoning_effort_unsupported: {
      type: 'None',
      param: null,
      message: (model) =>
        `litellm.UnsupportedParamsError: openai does not support parameters: ['reasoning_effort'], for model=${model}. ` +
        'To drop these, set `litellm.drop_params=True` or for proxy:\n\n`litellm_settings:\n drop_params: true`\n.',
    },
  },
};

/**
 * vLLM's OpenAI-compatible server.
 * - Errors `{error:{message,type,param,code}}` with type an exception name and a numeric code:
 *   vllm-project/vllm vllm/entrypoints/openai/protocol.py ErrorResponse; an unknown model is a
 *   404 `NotFoundError`.
 * - No request id header unless started with --enable-request-id-headers:
 *   https://docs.vllm.ai/en/latest/api/vllm/entrypoints/serve/middleware/x_request_id/
 * - With --api-key, a wrong key is 401 `{"error":"Unauthorized"}`: vllm/entrypoints/openai/api_server.py.
 * - Unknown paths get FastAPI's `{"detail":"Not Found"}`.
 * - Reasoning models stream `reasoning_content` deltas: https://docs.vllm.ai/en/v0.8.3/features/reasoning_outputs.html
 *   (newer versions name it `reasoning`: https://docs.vllm.ai/en/v0.11.2/features/reasoning_outputs/).
 * - An error after the stream started is a `data: {"error":…}` event followed by `[DONE]`:
 *   serving_chat.py create_streaming_error_response. A model failing before its first token
 *   comes the same way, in a 200 stream, since the headers went out first; LiteLLM reads such a
 *   stream as an empty success (https://github.com/BerriAI/litellm/issues/40578).
 * - Tools need --enable-auto-tool-choice, else a 400.
 * - A choice names the stop string that ended it in `stop_reason` (null for the end token):
 *   vllm/entrypoints/openai/protocol.py ChatCompletionResponseChoice, ChatCompletionResponseStreamChoice.
 */
const vllm: Dialect = {
  ...SEED_DIALECT,
  name: 'vllm',
  errorBody: 'vllm',
  requestIdHeader: null,
  stream: { ...SEED_DIALECT.stream, doneAfterError: true },
  acceptedFailure: 'ok200WhenStreaming',
  namesMatchedStop: true,
  errors: {
    invalid_api_key: { style: 'error-string', message: () => 'Unauthorized' },
    model_not_found: { status: 404, type: 'NotFoundError', code: null, message: (model) => `The model \`${model}\` does not exist.` },
    model_not_open: { status: 404, type: 'NotFoundError', code: null, message: (model) => `The model \`${model}\` does not exist.` },
    not_found: { style: 'detail', message: () => 'Not Found' },
    tools_unsupported: {
      type: 'BadRequestError',
      message: () => '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
    },
  },
};

/**
 * OpenRouter.
 * - Errors `{error:{code,message,metadata?}}` with the HTTP status as a number; 402 for credits
 *   that cannot cover the request; an error after the stream started is a chunk with `error` and
 *   `finish_reason: 'error'`: https://openrouter.ai/docs/errors, https://openrouter.ai/docs/api-reference/streaming
 * - Streams carry `: OPENROUTER PROCESSING` comments while the model works (streaming page above).
 * - The id to quote is the generation id in `X-Generation-Id` (streaming page above).
 * - Only an invalid request or missing credits get the error's own status; once the model
 *   started, the status is 200 and the error is the body, or in a stream the error chunk above
 *   (errors page, and its "Streaming Error Formats": https://openrouter.ai/docs/api/reference/errors-and-debugging).
 * - Usage names what it charged, `cost`, in its own credits (usageWording.ts).
 * - `reasoning_effort` is its normalised reasoning control across providers, and a level the model
 *   behind does not have is taken without an error (xhigh for o1):
 *   https://openrouter.ai/docs/use-cases/reasoning-tokens, https://github.com/enricoros/big-AGI/issues/940.
 */
const openrouter: Dialect = {
  ...SEED_DIALECT,
  name: 'openrouter',
  errorBody: 'openrouter',
  requestIdHeader: 'x-generation-id',
  stream: { ...SEED_DIALECT.stream, keepAliveComment: ': OPENROUTER PROCESSING', errorFrame: 'chunkWithFinishError' },
  acceptedFailure: 'ok200',
  usageWording: 'openrouter',
  unsupportedReasoningEffort: 'ignored',
  errors: {
    insufficient_quota: { status: 402, message: () => 'Insufficient credits. Add more using https://openrouter.ai/credits' },
  },
};

/**
 * LiteLLM in front of Claude with thinking on: its signed thinking_blocks (relayThinking.ts). Apart
 * from DIALECTS, whose every test of every gateway would then meet thinking in its answers.
 */
export const litellmClaude: Dialect = { ...litellm, name: 'litellm-claude', relaysClaudeThinking: 'thinking_blocks' };

/** OpenRouter in front of Claude with reasoning on: thinking as `reasoning`, signed in reasoning_details (relayThinking.ts). Apart likewise. */
export const openrouterClaude: Dialect = {
  ...openrouter,
  name: 'openrouter-claude',
  stream: { ...openrouter.stream, reasoningField: 'reasoning' },
  relaysClaudeThinking: 'reasoning_details',
};

/**
 * DeepSeek's own API in thinking mode.
 * - Thinking streams as `reasoning_content`: https://api-docs.deepseek.com/guides/reasoning_model
 * - A tool-call turn sent back without its `reasoning_content` is refused with a 400 "Missing
 *   `reasoning_content` field in the assistant message at message index N"
 *   (https://github.com/CherryHQ/cherry-studio/issues/11751, which quotes the docs' thinking_mode#tool-calls).
 * - Prompt-cache hits and misses are top-level `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`,
 *   adding up to `prompt_tokens`, with no `prompt_tokens_details` (usageWording.ts cites the sources).
 */
const deepseek: Dialect = {
  ...SEED_DIALECT,
  name: 'deepseek',
  usageWording: 'deepseek',
  returnedReasoning: 'requiredOnToolCalls',
};

/**
 * Google's OpenAI-compatible Gemini endpoint (generativelanguage.googleapis.com/v1beta/openai).
 * - A stream carries a running usage on every chunk, the finish chunk holding the total, with no
 *   usage-only chunk, asked for or not: https://discuss.ai.google.dev/t/127400 and
 *   https://discuss.ai.google.dev/t/92785.
 * - `completion_tokens` leaves the thinking out, `total_tokens` counts it (usageWording.ts).
 * - Gemini 3 signs its function calls and refuses a tool turn sent back without the signature
 *   (thoughtSignatures.ts).
 */
const gemini: Dialect = {
  ...SEED_DIALECT,
  name: 'gemini',
  stream: { ...SEED_DIALECT.stream, usagePlacement: 'everyChunk', usageWithoutAsking: true },
  usageWording: 'gemini',
  signsToolCalls: true,
};

/**
 * Gemini's OpenAI-compatible endpoint streaming a tool call's name in pieces ("edit_ex", then
 * "isting_file"): https://github.com/continuedev/continue/pull/5849 (which joins a piece unless it
 * equals the name so far). Mistral's API cuts names too: https://github.com/openclaw/openclaw/pull/130532.
 * Apart from DIALECTS, as the Claude relays are: its every tool test would meet it.
 */
export const geminiNameInPieces: Dialect = {
  ...gemini,
  name: 'gemini-name-in-pieces',
  stream: { ...gemini.stream, toolCallNames: 'inPieces' },
};

/**
 * MiniMax M2.7 through NVIDIA NIM, which sends a tool call's whole name again in every chunk of the
 * call (clients that join names made "read_fileread_file"): https://github.com/NousResearch/hermes-agent/issues/8259,
 * https://github.com/NousResearch/hermes-agent/pull/11984, tracked in NousResearch/hermes-agent#12233.
 * Continue #5849 (above) saw Anthropic's models repeat names the same way. Apart likewise.
 */
export const nimNameEveryDelta: Dialect = {
  ...SEED_DIALECT,
  name: 'nim-name-every-delta',
  stream: { ...SEED_DIALECT.stream, toolCallNames: 'everyDelta' },
};

/**
 * Cerebras (gpt-oss and other reasoning models).
 * - Thinking streams as `reasoning`, and a message sent with `reasoning_content` is refused with a 400
 *   "messages.N.assistant.reasoning_content: property '…' is unsupported", code `wrong_api_format`,
 *   param `validation_error`: https://github.com/Kilo-Org/kilocode/issues/10375,
 *   https://github.com/anomalyco/opencode/issues/33413
 */
const cerebras: Dialect = {
  ...SEED_DIALECT,
  name: 'cerebras',
  stream: { ...SEED_DIALECT.stream, reasoningField: 'reasoning' },
  returnedReasoning: 'refused',
};

export const DIALECTS = {
  seed: SEED_DIALECT,
  openai,
  'new-api': newApi,
  litellm,
  vllm,
  openrouter,
  deepseek,
  gemini,
  cerebras,
} as const satisfies Record<string, Dialect>;

export type DialectName = keyof typeof DIALECTS;

export function dialectOf(choice: DialectName | Dialect | undefined): Dialect {
  if (choice === undefined) return SEED_DIALECT;
  return typeof choice === 'string' ? DIALECTS[choice] : choice;
}
