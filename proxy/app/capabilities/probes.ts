import type { Capability } from '../../contracts/models.ts';
import { parsedRecord } from '../../core/isRecord.ts';

/**
 * The capability check (docs/gateway-spec.md §1, §4: every capability must be verified per model).
 * Each probe is the smallest request that exercises one capability; its interpretation is pure.
 */
export interface CapabilityProbe {
  capability: Capability;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A 1x1 transparent PNG: the cheapest valid image input. */
const TINY_PNG_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const SHORT_PROMPT = 'Reply with the single word OK.';

export function capabilityProbes(model: string): CapabilityProbe[] {
  // No temperature: OpenAI's reasoning models refuse any but their default.
  const chat = { model, messages: [{ role: 'user', content: SHORT_PROMPT }], max_tokens: 5 };
  return [
    { capability: 'chat', path: 'chat/completions', headers: JSON_HEADERS, body: chat },
    {
      capability: 'stream',
      path: 'chat/completions',
      headers: { ...JSON_HEADERS, accept: 'text/event-stream' },
      body: { ...chat, stream: true },
    },
    {
      capability: 'tools',
      path: 'chat/completions',
      headers: JSON_HEADERS,
      body: {
        ...chat,
        max_tokens: 32,
        messages: [{ role: 'user', content: 'Call the get_time tool.' }],
        tools: [
          {
            type: 'function',
            function: { name: 'get_time', description: 'Returns the time', parameters: { type: 'object', properties: {} } },
          },
        ],
        tool_choice: { type: 'function', function: { name: 'get_time' } },
      },
    },
    {
      capability: 'image_input',
      path: 'chat/completions',
      headers: JSON_HEADERS,
      body: {
        ...chat,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: SHORT_PROMPT },
              { type: 'image_url', image_url: { url: TINY_PNG_DATA_URL } },
            ],
          },
        ],
      },
    },
    {
      capability: 'messages_native',
      path: 'messages',
      headers: { ...JSON_HEADERS, 'anthropic-version': '2023-06-01' },
      body: { model, max_tokens: 5, messages: [{ role: 'user', content: SHORT_PROMPT }] },
    },
    {
      capability: 'responses_native',
      path: 'responses',
      headers: JSON_HEADERS,
      body: { model, input: SHORT_PROMPT, max_output_tokens: 16, store: false },
    },
  ];
}

const STREAM_END = /\[DONE\]|"finish_reason":\s*"/;

export interface ProbeAnswer {
  status: number;
  contentType: string | null;
  bodyText: string;
}

/**
 * true: the answer has the capability's shape; false: the gateway refused or answered with the wrong
 * shape; null: nothing can be concluded (auth, rate limit, a server fault: try again later).
 */
export function interpretProbe(capability: Capability, answer: ProbeAnswer): boolean | null {
  const { status, contentType, bodyText } = answer;
  if (status === 401 || status === 403 || status === 429 || status >= 500) return null;
  if (status >= 300 || (contentType !== null && /text\/html/i.test(contentType))) return false;
  // Streaming works when the stream got to its end: `[DONE]`, or a finish reason from gateways that send no `[DONE]`.
  if (capability === 'stream')
    return /text\/event-stream/i.test(contentType ?? '') && bodyText.includes('data:') && STREAM_END.test(bodyText);
  const json = parsedRecord(bodyText);
  if (!json) return false;
  const choices = Array.isArray(json.choices) ? (json.choices as { message?: { tool_calls?: unknown[] } }[]) : null;
  switch (capability) {
    case 'chat':
    case 'image_input':
      return choices !== null && choices.length > 0;
    case 'tools':
      return Array.isArray(choices?.[0]?.message?.tool_calls) && choices[0]!.message!.tool_calls!.length > 0;
    case 'messages_native':
      return json.type === 'message' && Array.isArray(json.content);
    case 'responses_native':
      return json.object === 'response' && Array.isArray(json.output);
  }
}
