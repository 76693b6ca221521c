import type { UsageWording } from './usageWording.ts';

/**
 * A dialect is how one kind of real gateway says the things the seed contract leaves open: the
 * shape of its error bodies, where its request id travels, how its streams end and what they carry
 * besides chunks, and which status it answers for a closed model, an empty balance or a rate limit.
 * Each behaviour is one field, so a test can take a named dialect (dialects.ts) and change one
 * field to isolate the behaviour it is about.
 */

/**
 * How an error body is written. The fields are the canonical error's (message, type, code, param);
 * each style keeps what its gateways keep.
 * - openai: `{error:{message,type,param,code}}`
 * - new-api: `{error:{message,type,code}}`, code a string ('' when none), no param, and the
 *   relay's request id appended to the message as ` (request id: …)`
 * - litellm: `{error:{message,type,param,code}}` with code the HTTP status as a string
 * - vllm: `{error:{message,type,param,code}}` with type an exception name and code the status as a number
 * - openrouter: `{error:{code,message}}` with code the HTTP status as a number
 * - detail: `{detail:"…"}`, FastAPI's default error body
 * - message: `{message:"…"}`
 * - msg-code: `{msg:"…", code}`
 * - error-string: `{error:"…"}`
 * - text: the message alone as text/plain
 */
export type ErrorBodyStyle =
  | 'openai'
  | 'new-api'
  | 'litellm'
  | 'vllm'
  | 'openrouter'
  | 'detail'
  | 'message'
  | 'msg-code'
  | 'error-string'
  | 'text';

/**
 * Where a streamed reply's token usage goes, when it is sent:
 * - afterFinish: a chunk of its own with `choices: []` after the finish chunk (OpenAI)
 * - inFinish: on the finish chunk itself, no chunk of its own
 * - beforeFinish: the usage-only chunk first, then the finish chunk (an order a relay that
 *   reassembles chunks can produce; it tests that a reader does not depend on the order)
 * - everyChunk: on every chunk, counting up to the total on the last one
 * - afterFinishWithChoice: a chunk of its own after the finish chunk, whose choices hold one
 *   choice with an empty delta and no finish_reason instead of none (LiteLLM's proxy:
 *   https://github.com/BerriAI/litellm/issues/28735, #8450)
 */
export type UsagePlacement = 'afterFinish' | 'inFinish' | 'beforeFinish' | 'everyChunk' | 'afterFinishWithChoice';

/**
 * How a streamed tool call's `function.name` travels (dialects.ts cites who does which):
 * - firstDelta: whole, once, on the call's first delta (OpenAI, vLLM)
 * - inPieces: cut in two, over the call's first two deltas, as any other text is streamed
 * - everyDelta: whole on the first delta and again on every argument delta of the call
 */
export type ToolCallNames = 'firstDelta' | 'inPieces' | 'everyDelta';

export interface StreamDialect {
  /** Ends a finished stream with `data: [DONE]`. */
  sendDone: boolean;
  /** An SSE comment line (starting with ':') sent before the first chunk and between chunks, or null. */
  keepAliveComment: string | null;
  /** Each event carries an `event:` line: `message` (the SSE default type) for chunks, `error` for an error. */
  eventNames: boolean;
  usagePlacement: UsagePlacement;
  /** Usage is streamed even when the request did not set `stream_options.include_usage`. */
  usageWithoutAsking: boolean;
  /** The delta and message field a reasoning model's thinking travels in. */
  reasoningField: 'reasoning_content' | 'reasoning';
  /**
   * How an error after the stream started is sent: an event holding the dialect's error body, or a
   * chunk carrying `error` and a choice with `finish_reason: 'error'`.
   */
  errorFrame: 'errorBody' | 'chunkWithFinishError';
  /** Sends `data: [DONE]` after such an error event too. */
  doneAfterError: boolean;
  toolCallNames: ToolCallNames;
}

/**
 * The errors the simulator raises, by canonical code: the seed's OpenAI-shaped ones (errors.ts)
 * and the ones only a dialect-aware gateway raises (gatewayErrors.ts).
 */
export type CanonicalErrorCode =
  | 'invalid_api_key'
  | 'model_not_found'
  | 'model_not_open'
  | 'insufficient_quota'
  | 'rate_limit_exceeded'
  | 'not_found'
  | 'tools_unsupported'
  | 'image_input_unsupported'
  | 'stream_unsupported'
  | 'reasoning_effort_unsupported'
  | 'reasoning_effort_level_unsupported'
  | 'max_tokens_unsupported'
  | 'temperature_unsupported';

/** What a dialect says instead of the canonical error; unset fields keep the canonical value. */
export interface ErrorOverride {
  status?: number;
  type?: string;
  code?: string | null;
  param?: string | null;
  /** The message; `subject` is what the error is about (a model id), '' when nothing. */
  message?: (subject: string) => string;
  /** This error's body shape when it differs from the dialect's usual one. */
  style?: ErrorBodyStyle;
}

export interface Dialect {
  name: string;
  errorBody: ErrorBodyStyle;
  /** The response header carrying the gateway's request id, or null for a gateway that sends none. */
  requestIdHeader: string | null;
  stream: StreamDialect;
  /** How its answers word their token usage (usageWording.ts). */
  usageWording: UsageWording;
  errors: Partial<Record<CanonicalErrorCode, ErrorOverride>>;
  /**
   * How a failure of the model behind the gateway is answered once the gateway has accepted the
   * request (the `modelFails` fault):
   * - status: with the failure's status and the dialect's error body
   * - ok200: with HTTP 200 and the error as the whole answer: the dialect's error body as JSON,
   *   or, for a stream, an event stream whose only event is the dialect's error frame
   * - ok200WhenStreaming: a stream as ok200 (its headers went out before the model failed), a
   *   request that did not stream as status
   */
  acceptedFailure: 'status' | 'ok200' | 'ok200WhenStreaming';
  /**
   * What a reasoning model makes of `reasoning_content` on the assistant messages it is sent
   * (returnedReasoning.ts): ignored; required on a tool-call turn (DeepSeek's thinking mode); or
   * refused as an unknown property (Cerebras).
   */
  returnedReasoning: 'ignored' | 'requiredOnToolCalls' | 'refused';
  /**
   * Names the stop string that ended a reply in the choice's `stop_reason` (vLLM); otherwise a
   * matched stop sequence is told only as finish_reason `stop`, like the model's own end (OpenAI).
   */
  namesMatchedStop: boolean;
  /**
   * What becomes of `reasoning_effort` sent for a model that does not take it
   * (ModelCapabilities.reasoningEffort): refused with a 400 naming the parameter (OpenAI, LiteLLM
   * without drop_params), or ignored (OpenRouter, LiteLLM with drop_params).
   */
  unsupportedReasoningEffort: 'refused' | 'ignored';
  /**
   * What becomes of chat's `max_tokens` sent for a model that takes only `max_completion_tokens`
   * (ModelCapabilities.maxTokens): refused with a 400 naming it (OpenAI, Azure), or taken as
   * `max_completion_tokens` (LiteLLM maps it for OpenAI's reasoning models itself).
   */
  unsupportedMaxTokens: 'refused' | 'mapped';
  /**
   * Signs each model step's first function call and refuses a turn sent back without the
   * signature (Gemini 3; thoughtSignatures.ts).
   */
  signsToolCalls: boolean;
  /**
   * Relays Claude's signed thinking blocks beside the thinking text, in LiteLLM's `thinking_blocks` or
   * OpenRouter's `reasoning_details`, and wants them back on the current turn's tool calls (relayThinking.ts); null: none.
   */
  relaysClaudeThinking: 'thinking_blocks' | 'reasoning_details' | null;
  /**
   * Streams its answer to a request that asked for a whole one (`stream: false`), as some servers do
   * (kaito-project/kaito#1880, unslothai/unsloth#6570: the SDKs then failed to parse the events).
   */
  streamsWholeRequests: boolean;
}

/**
 * The seed contract as the simulator always spoke it: OpenAI error bodies, `x-request-id`,
 * `[DONE]`, usage only when asked for and after the finish chunk, no comments, no event names.
 */
export const SEED_DIALECT: Dialect = {
  name: 'seed',
  errorBody: 'openai',
  requestIdHeader: 'x-request-id',
  stream: {
    sendDone: true,
    keepAliveComment: null,
    eventNames: false,
    usagePlacement: 'afterFinish',
    usageWithoutAsking: false,
    reasoningField: 'reasoning_content',
    errorFrame: 'errorBody',
    doneAfterError: false,
    toolCallNames: 'firstDelta',
  },
  usageWording: 'openai',
  errors: {},
  acceptedFailure: 'status',
  returnedReasoning: 'ignored',
  namesMatchedStop: false,
  unsupportedReasoningEffort: 'refused',
  unsupportedMaxTokens: 'refused',
  signsToolCalls: false,
  relaysClaudeThinking: null,
  streamsWholeRequests: false,
};
