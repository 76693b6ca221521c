import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { RequestLifecycleEvent } from '../../proxy/contracts/lifecycle.ts';
import { nativeAnswerBody, nativeStreamEvents, type NativeProtocol } from '../simulator/native.ts';
import type { Fault } from '../simulator/types.ts';
import { startHarness, type Harness } from './proxyHarness.ts';

/**
 * What a client gets when the gateway fails, across the three protocols Airlock serves, each
 * streamed and whole: the client is the real SDK (openai, @anthropic-ai/sdk), the gateway the
 * simulator, and the upstream bytes are those of the protocol the gateway speaks on the exchange
 * (chat when translated, the client's own when native).
 */
export type ClientProtocol = 'chat' | 'messages' | 'responses';
export type ProtocolMode = 'native' | 'translate';

export interface Variant {
  client: ClientProtocol;
  /** chat is passed through as it is: 'native'. */
  mode: ProtocolMode;
  stream: boolean;
}

export const MODEL = 'fault-model';
export const PRICE = { model: MODEL, inputPer1M: 1000, outputPer1M: 2000 };
/** The idle timeout of the matrix's profiles: the schema's least, so a stall ends quickly. */
export const IDLE_TIMEOUT_MS = 1000;
/** The text every scripted answer carries before it breaks: what the client already has, and what is billed. */
export const STREAMED_TEXT = 'The first part of the answer, streamed before the gateway failed.';

export const VARIANTS: readonly Variant[] = [false, true].flatMap((stream) => [
  { client: 'chat' as const, mode: 'native' as const, stream },
  { client: 'messages' as const, mode: 'translate' as const, stream },
  { client: 'messages' as const, mode: 'native' as const, stream },
  { client: 'responses' as const, mode: 'translate' as const, stream },
  { client: 'responses' as const, mode: 'native' as const, stream },
]);

export const variantName = (variant: Variant): string =>
  `${variant.client}${variant.client === 'chat' ? '' : ` (${variant.mode})`}, ${variant.stream ? 'streamed' : 'whole'}`;

export interface MatrixHarnesses {
  translate: Harness;
  native: Harness;
  close(): Promise<void>;
}

/** One proxy translating Messages and Responses to chat, one passing them to a gateway that speaks them. */
export async function startMatrix(): Promise<MatrixHarnesses> {
  const profile = (mode: ProtocolMode) => ({
    prices: [PRICE],
    protocolModes: { messages: mode, responses: mode },
    timeouts: { connectTimeoutMs: 5000, idleTimeoutMs: IDLE_TIMEOUT_MS, totalTimeoutMs: 60_000 },
  });
  const translate = await startHarness({ profile: profile('translate'), simulator: { models: [MODEL] } });
  const native = await startHarness({
    profile: profile('native'),
    simulator: { models: [MODEL], nativeProtocols: ['messages', 'responses'] },
  });
  return {
    translate,
    native,
    close: async () => {
      await translate.close();
      await native.close();
    },
  };
}

export const harnessFor = (matrix: MatrixHarnesses, variant: Variant): Harness =>
  variant.mode === 'native' && variant.client !== 'chat' ? matrix.native : matrix.translate;

/** The protocol the gateway speaks on this exchange. */
const upstreamProtocol = (variant: Variant): 'chat' | NativeProtocol =>
  variant.client === 'chat' || variant.mode === 'translate' ? 'chat' : variant.client;

const chatChunk = (delta: object, finishReason: string | null = null): string =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-fault',
    object: 'chat.completion.chunk',
    created: 1,
    model: MODEL,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  })}\n\n`;

/** A stream's events, and how many of them carry the text: the stream breaks right after those. */
export function upstreamStream(variant: Variant): { events: string[]; textEvents: number } {
  const protocol = upstreamProtocol(variant);
  if (protocol === 'chat') {
    return {
      events: [
        chatChunk({ role: 'assistant', content: '' }),
        chatChunk({ content: STREAMED_TEXT }),
        chatChunk({}, 'stop'),
        `data: ${JSON.stringify({ id: 'chatcmpl-fault', object: 'chat.completion.chunk', created: 1, model: MODEL, choices: [], usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 } })}\n\n`,
        'data: [DONE]\n\n',
      ],
      textEvents: 2,
    };
  }
  const events = nativeStreamEvents(protocol, MODEL, 'fault').map((event) => event.replace('native answer', STREAMED_TEXT));
  return { events, textEvents: protocol === 'messages' ? 3 : 4 };
}

/** The whole answer as the gateway sends it. */
export function upstreamAnswer(variant: Variant): string {
  const protocol = upstreamProtocol(variant);
  if (protocol !== 'chat') return JSON.stringify(nativeAnswerBody(protocol, MODEL, 'fault')).replace('native answer', STREAMED_TEXT);
  return JSON.stringify({
    id: 'chatcmpl-fault',
    object: 'chat.completion',
    created: 1,
    model: MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content: STREAMED_TEXT }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 },
  });
}

/** The upstream answer's bytes up to the end of its text (a stream) or half of it (whole): where it breaks. */
export function upstreamPrefix(variant: Variant): { text: string; contentType: string; breakAt: number; midLine: number } {
  if (!variant.stream) {
    const text = upstreamAnswer(variant);
    const breakAt = Math.floor(text.length / 2);
    return { text, contentType: 'application/json', breakAt, midLine: breakAt };
  }
  const { events, textEvents } = upstreamStream(variant);
  const text = events.join('');
  const breakAt = events.slice(0, textEvents).join('').length;
  // Half of the next event's JSON line: the client has the text, and the break falls inside a line.
  return { text, contentType: 'text/event-stream', breakAt, midLine: breakAt + Math.floor((events[textEvents]?.length ?? 0) / 2) };
}

/** What the client's SDK made of the answer: the text it assembled and the error it raised or was handed. */
export interface ClientOutcome {
  text: string;
  /** An error the SDK parsed from the protocol (an API error, a failed response); null when it took the answer as whole. */
  apiError: { status: number | undefined; type: string | null; message: string; retryAfter?: string | null } | null;
  /** A failure the SDK could not read as the protocol's error (a cut connection, a broken body). */
  otherError: string | null;
  /** Every string the client saw, for the key search. */
  seen: string;
}

function apiErrorOf(error: unknown): ClientOutcome['apiError'] {
  if (error instanceof OpenAI.APIError && !(error instanceof OpenAI.APIConnectionError)) {
    const body = error.error as { type?: string; code?: string; error?: { type?: string } } | undefined;
    const retryAfter = error.headers?.get('retry-after') ?? null;
    return { status: error.status, type: body?.type ?? body?.code ?? null, message: error.message, retryAfter };
  }
  if (error instanceof Anthropic.APIError && !(error instanceof Anthropic.APIConnectionError)) {
    const body = error.error as { error?: { type?: string } } | undefined;
    const retryAfter = error.headers?.get('retry-after') ?? null;
    return { status: error.status, type: body?.error?.type ?? null, message: error.message, retryAfter };
  }
  return null;
}

/** Sends the variant's request through Airlock with its protocol's SDK, retries off (the SDKs still say so in x-stainless-retry-count). */
export async function callThroughAirlock(harness: Harness, variant: Variant): Promise<ClientOutcome> {
  const outcome: ClientOutcome = { text: '', apiError: null, otherError: null, seen: '' };
  const see = (value: unknown): void => {
    outcome.seen += `${JSON.stringify(value)}\n`;
  };
  try {
    if (variant.client === 'messages') await callMessages(harness, variant.stream, outcome, see);
    else if (variant.client === 'responses') await callResponses(harness, variant.stream, outcome, see);
    else await callChat(harness, variant.stream, outcome, see);
  } catch (error) {
    outcome.apiError = apiErrorOf(error);
    if (outcome.apiError === null) outcome.otherError = String(error);
    see({ error: String(error), body: (error as { error?: unknown }).error ?? null });
  }
  return outcome;
}

type See = (value: unknown) => void;

async function callChat(harness: Harness, stream: boolean, outcome: ClientOutcome, see: See): Promise<void> {
  const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });
  const request = { model: MODEL, messages: [{ role: 'user' as const, content: 'hi' }] };
  if (!stream) {
    const answer = await client.chat.completions.create(request);
    see(answer);
    outcome.text = answer.choices[0]?.message.content ?? '';
    return;
  }
  for await (const chunk of await client.chat.completions.create({ ...request, stream: true })) {
    see(chunk);
    outcome.text += chunk.choices[0]?.delta.content ?? '';
  }
}

async function callMessages(harness: Harness, stream: boolean, outcome: ClientOutcome, see: See): Promise<void> {
  const client = new Anthropic({ baseURL: harness.proxy.url, apiKey: 'alk_client', maxRetries: 0 });
  const request = { model: MODEL, max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }] };
  if (!stream) {
    const message = await client.messages.create(request);
    see(message);
    outcome.text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    return;
  }
  for await (const event of await client.messages.create({ ...request, stream: true })) {
    see(event);
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') outcome.text += event.delta.text;
  }
}

async function callResponses(harness: Harness, stream: boolean, outcome: ClientOutcome, see: See): Promise<void> {
  const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });
  const request = { model: MODEL, input: 'hi', store: false };
  if (!stream) {
    const response = await client.responses.create(request);
    see(response);
    outcome.text = response.output_text;
    return;
  }
  for await (const event of await client.responses.create({ ...request, stream: true })) {
    see(event);
    if (event.type === 'response.output_text.delta') outcome.text += event.delta;
    // Codex reads a failed response as the turn's error (its code decides whether it sends again).
    if (event.type === 'response.failed') {
      const error = event.response.error;
      outcome.apiError = { status: undefined, type: error?.code ?? null, message: error?.message ?? '' };
    }
  }
}

export type EndEvent = Extract<RequestLifecycleEvent, { type: 'end' }>;

/** Scripts the fault, calls through Airlock and waits for the request's row to end. */
export async function runFault(
  matrix: MatrixHarnesses,
  variant: Variant,
  fault: Fault,
): Promise<{ outcome: ClientOutcome; end: EndEvent; harness: Harness }> {
  const harness = harnessFor(matrix, variant);
  harness.simulator.reset();
  harness.simulator.script(fault);
  const ended = harness.nextEnd();
  const outcome = await callThroughAirlock(harness, variant);
  return { outcome, end: await ended, harness };
}

/** The variant's request as plain HTTP (path and JSON body), for checking the bytes and headers a client gets. */
export function rawRequestOf(variant: Variant): { path: string; body: string } {
  const stream = variant.stream;
  if (variant.client === 'messages') {
    return {
      path: '/v1/messages',
      body: JSON.stringify({ model: MODEL, max_tokens: 64, stream, messages: [{ role: 'user', content: 'hi' }] }),
    };
  }
  if (variant.client === 'responses')
    return { path: '/v1/responses', body: JSON.stringify({ model: MODEL, input: 'hi', stream, store: false }) };
  return { path: '/v1/chat/completions', body: JSON.stringify({ model: MODEL, stream, messages: [{ role: 'user', content: 'hi' }] }) };
}
