import { invalidRequest, modelNotFound, type SimulatedErrorBody } from './errors.ts';

export interface ChatRequest {
  model: string;
  stream: boolean;
  includeUsage: boolean;
  hasTools: boolean;
  /** A tool the request forces (`tool_choice` naming a function, or `required`): a model then calls it. */
  forcedToolName: string | null;
  /** Characters of message text (images excluded): what the context limit and usage count. */
  promptChars: number;
  lastUserText: string;
  /** The request's stop sequences (`stop`, a string or up to four): the reply ends before the first found. */
  stop: string[];
}

export interface ChatLimits {
  knownModels: ReadonlySet<string>;
  maxContextChars: number;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; status: number; body: SimulatedErrorBody };

function refuse<T>(status: number, body: SimulatedErrorBody): Validated<T> {
  return { ok: false, status, body };
}

/** A data URL must name its MIME type (`data:image/png;base64,...`); remote URLs are http(s). */
const DATA_URL_WITH_MIME = /^data:[\w.+-]+\/[\w.+-]+[;,]/;
const REMOTE_URL = /^https?:\/\//;

export function isAcceptableImageUrl(url: unknown): boolean {
  return typeof url === 'string' && (DATA_URL_WITH_MIME.test(url) || REMOTE_URL.test(url));
}

export function parseJsonBody(body: Buffer): Validated<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return refuse(400, invalidRequest('We could not parse the JSON body of your request.', 'invalid_json'));
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return refuse(400, invalidRequest('The request body must be a JSON object.', 'invalid_json'));
  }
  return { ok: true, value: parsed as Record<string, unknown> };
}

/** Text of one message's content, or an error message when a part is unusable. */
function contentText(content: unknown): { text: string } | { error: string } {
  if (typeof content === 'string') return { text: content };
  if (content === null || content === undefined) return { text: '' };
  if (!Array.isArray(content)) return { error: 'Message content must be a string or an array of parts.' };
  let text = '';
  for (const part of content as Array<Record<string, unknown>>) {
    if (part?.type === 'text' && typeof part.text === 'string') text += part.text;
    else if (part?.type === 'image_url') {
      const imageUrl = part.image_url as { url?: unknown } | undefined;
      if (!isAcceptableImageUrl(imageUrl?.url)) return { error: 'Invalid image_url: use an http(s) URL or a data URL with a MIME type.' };
    } else return { error: `Unsupported content part type: ${String(part?.type)}.` };
  }
  return { text };
}

export function validateChatRequest(json: Record<string, unknown>, limits: ChatLimits): Validated<ChatRequest> {
  const { model, messages } = json;
  if (typeof model !== 'string' || model === '') {
    return refuse(400, invalidRequest('You must provide a model parameter.', 'missing_required_parameter', 'model'));
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    return refuse(400, invalidRequest('`messages` must be a non-empty array.', 'invalid_request', 'messages'));
  }
  if (!limits.knownModels.has(model)) return refuse(404, modelNotFound(model));
  let promptChars = 0;
  let lastUserText = '';
  for (const message of messages as Array<Record<string, unknown>>) {
    if (typeof message?.role !== 'string') {
      return refuse(400, invalidRequest('Each message needs a string `role`.', 'invalid_request', 'messages'));
    }
    const content = contentText(message.content);
    if ('error' in content) return refuse(400, invalidRequest(content.error, 'invalid_request', 'messages'));
    promptChars += content.text.length;
    if (message.role === 'user') lastUserText = content.text;
  }
  if (promptChars > limits.maxContextChars) {
    return refuse(
      400,
      invalidRequest(
        `This model's maximum context length is ${limits.maxContextChars} characters, but your messages have ${promptChars}.`,
        'context_length_exceeded',
        'messages',
      ),
    );
  }
  const streamOptions = json.stream_options as { include_usage?: unknown } | undefined;
  const stream = json.stream === true;
  return {
    ok: true,
    value: {
      model,
      stream,
      includeUsage: stream && streamOptions?.include_usage === true,
      hasTools: Array.isArray(json.tools) && json.tools.length > 0,
      forcedToolName: forcedToolName(json),
      promptChars,
      lastUserText,
      stop: stopSequences(json.stop),
    },
  };
}

function stopSequences(stop: unknown): string[] {
  const sequences = Array.isArray(stop) ? stop : [stop];
  return sequences.filter((sequence): sequence is string => typeof sequence === 'string' && sequence !== '');
}

function forcedToolName(json: Record<string, unknown>): string | null {
  const tools = Array.isArray(json.tools) ? (json.tools as { function?: { name?: unknown } }[]) : [];
  const choice = json.tool_choice as { function?: { name?: unknown } } | string | undefined;
  if (typeof choice === 'object' && typeof choice?.function?.name === 'string') return choice.function.name;
  const firstName = tools[0]?.function?.name;
  return choice === 'required' && typeof firstName === 'string' ? firstName : null;
}
