import type { CanonicalErrorCode, Dialect, ErrorBodyStyle } from './dialect.ts';
import { errorBody, type SimulatedErrorBody } from './errors.ts';

/**
 * Errors in the canonical (OpenAI) form for what only a dialect-aware gateway refuses, and the
 * rendering of any canonical error in a dialect's words and shape.
 */

export function modelNotOpen(model: string): SimulatedErrorBody {
  return errorBody(`The model \`${model}\` is not open to this account.`, 'invalid_request_error', 'model_not_open', 'model');
}

export function insufficientQuota(): SimulatedErrorBody {
  return errorBody(
    'You exceeded your current quota, please check your plan and billing details.',
    'insufficient_quota',
    'insufficient_quota',
  );
}

/** DeepSeek's wording for a model without function calling (https://github.com/evalstate/fast-agent/issues/91). */
export function toolsUnsupported(model: string): SimulatedErrorBody {
  return errorBody(`${model} does not support Function Calling`, 'invalid_request_error', 'tools_unsupported');
}

/** OpenAI's answer to an image part sent to a text-only model (https://github.com/vllm-project/vllm/issues/11629). */
export function imageInputUnsupported(partPath: string): SimulatedErrorBody {
  return errorBody(
    'Invalid content type. image_url is only supported by certain models.',
    'invalid_request_error',
    'image_input_unsupported',
    partPath,
  );
}

/** OpenAI's answer to `stream: true` for a model that cannot stream (https://github.com/ChatGPTNextWeb/NextChat/issues/5410). */
export function streamUnsupported(): SimulatedErrorBody {
  return errorBody(
    "Unsupported value: 'stream' does not support true with this model. Only the default (false) value is supported.",
    'invalid_request_error',
    'stream_unsupported',
    'stream',
  );
}

/**
 * OpenAI's answer to `reasoning_effort` for a model without reasoning: a 400 naming the parameter,
 * code `unsupported_parameter` (its body for the Responses form, `reasoning.effort`:
 * https://github.com/BoundaryML/baml/pull/2708; the chat 400 for gpt-4.1 and gpt-4o:
 * https://github.com/BerriAI/litellm/issues/40470).
 */
export function reasoningEffortUnsupported(): SimulatedErrorBody {
  return errorBody(
    "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
    'invalid_request_error',
    'reasoning_effort_unsupported',
    'reasoning_effort',
  );
}

/**
 * OpenAI's answer to a `reasoning_effort` level the model does not have (`none` for a model before
 * gpt-5.1, `xhigh` before gpt-5.1-codex-max): a 400 listing the levels it has
 * (https://github.com/Kilo-Org/cloud/pull/3807; the levels per model:
 * https://learn.microsoft.com/en-us/javascript/api/@azure/ai-projects/reasoningeffort).
 */
export function reasoningEffortLevelUnsupported(level: string, levels: readonly string[]): SimulatedErrorBody {
  const listed = levels.map((known) => `'${known}'`);
  const supported = listed.length > 1 ? `${listed.slice(0, -1).join(', ')}, and ${listed.at(-1)}` : (listed[0] ?? '');
  return errorBody(
    `Unsupported value: 'reasoning_effort' does not support '${level}' with this model. Supported values are: ${supported}.`,
    'invalid_request_error',
    'reasoning_effort_level_unsupported',
    'reasoning_effort',
  );
}

/**
 * OpenAI's answer to chat's `max_tokens` for its reasoning models (o1, o3, o4-mini, gpt-5.x), which
 * take only `max_completion_tokens`: a 400 naming the parameter, code `unsupported_parameter`
 * (the whole body: griptape-ai/ComfyUI-Griptape#312 for gpt-5, teilomillet/gollm#33 for o1 and
 * o3-mini; Azure's gpt-5.1 deployments say the same: anomalyco/opencode#37964).
 */
export function maxTokensUnsupported(): SimulatedErrorBody {
  return errorBody(
    "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    'invalid_request_error',
    'max_tokens_unsupported',
    'max_tokens',
  );
}

/**
 * OpenAI's answer to a `temperature` other than the default for the same reasoning models: a 400
 * naming it, code `unsupported_value` (gabrii/Cursor-Azure-GPT-5#33 for gpt-5 on Azure,
 * QwenLM/qwen-code#921 for gpt-5-mini, OpenHands/OpenHands#4131 for o1-mini).
 */
export function temperatureUnsupported(value: unknown): SimulatedErrorBody {
  return errorBody(
    `Unsupported value: 'temperature' does not support ${String(value)} with this model. Only the default (1) value is supported.`,
    'invalid_request_error',
    'temperature_unsupported',
    'temperature',
  );
}

/**
 * The canonical codes the simulator uses internally, mapped to the code OpenAI puts on the wire
 * when no dialect says otherwise.
 */
const WIRE_CODE: Partial<Record<CanonicalErrorCode, string | null>> = {
  tools_unsupported: 'invalid_request_error',
  image_input_unsupported: null,
  stream_unsupported: 'unsupported_value',
  reasoning_effort_unsupported: 'unsupported_parameter',
  reasoning_effort_level_unsupported: 'unsupported_value',
  max_tokens_unsupported: 'unsupported_parameter',
  temperature_unsupported: 'unsupported_value',
  model_not_open: 'model_not_found',
};

export interface RenderedError {
  status: number;
  contentType: string;
  text: string;
}

export interface ErrorContext {
  status: number;
  /** What the error is about (a model id), for the dialect's message. */
  subject?: string;
  /** The gateway's id of this request, which some dialects quote in the message. */
  requestId: string;
}

/** An error as the dialect's gateway would send it. */
export function renderError(dialect: Dialect, canonical: SimulatedErrorBody, context: ErrorContext): RenderedError {
  const code = canonical.error.code as CanonicalErrorCode;
  const override = dialect.errors[code] ?? {};
  const status = override.status ?? context.status;
  const fields = {
    message: override.message?.(context.subject ?? '') ?? canonical.error.message,
    type: override.type ?? canonical.error.type,
    code: override.code !== undefined ? override.code : code in WIRE_CODE ? (WIRE_CODE[code] ?? null) : canonical.error.code,
    param: override.param !== undefined ? override.param : canonical.error.param,
  };
  return { status, ...serialize(override.style ?? dialect.errorBody, status, fields, context.requestId) };
}

interface ErrorFields {
  message: string;
  type: string;
  code: string | null;
  param: string | null;
}

const JSON_TYPE = 'application/json';

function serialize(style: ErrorBodyStyle, status: number, fields: ErrorFields, requestId: string): { contentType: string; text: string } {
  const json = (body: object) => ({ contentType: JSON_TYPE, text: JSON.stringify(body) });
  switch (style) {
    case 'openai':
      return json({ error: fields });
    case 'new-api':
      return json({ error: { message: `${fields.message} (request id: ${requestId})`, type: fields.type, code: fields.code ?? '' } });
    case 'litellm':
      return json({ error: { message: fields.message, type: fields.type, param: fields.param, code: String(status) } });
    case 'vllm':
      return json({ error: { message: fields.message, type: fields.type, param: fields.param, code: status } });
    case 'openrouter':
      return json({ error: { code: status, message: fields.message } });
    case 'detail':
      return json({ detail: fields.message });
    case 'message':
      return json({ message: fields.message });
    case 'msg-code':
      return json({ msg: fields.message, code: fields.code ?? status });
    case 'error-string':
      return json({ error: fields.message });
    case 'text':
      return { contentType: 'text/plain; charset=utf-8', text: fields.message };
  }
}
