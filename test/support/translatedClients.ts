import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { Harness } from './proxyHarness.ts';

/**
 * Claude Code's and Codex's protocols read through their own SDKs, streamed, with one tool offered
 * (so a gateway's tool call has something to be translated into): what each SDK made of the stream,
 * every event it yielded and the error it raised. Retries off, as the fault matrix's callers.
 */
export type TranslatedClient = 'messages' | 'responses';

export interface StreamOutcome {
  /** Each event's type, in order, as the SDK yielded it. */
  eventTypes: string[];
  /** The text deltas joined. */
  text: string;
  /** The tool call's input or arguments deltas joined. */
  toolInput: string;
  /** An error the SDK raised from the protocol (an error event, an error status); null when none. */
  apiError: { status: number | undefined; type: string | null; message: string } | null;
  /** Codex's reading of a failed response: its error's code and message. */
  failed: { code: string | null; message: string } | null;
  /** A failure the SDK could not read as the protocol's error (a cut connection). */
  otherError: string | null;
  /** Every string the client saw, for the key search. */
  seen: string;
}

const TOOL_SCHEMA = { type: 'object' as const, properties: { path: { type: 'string' } } };

export async function streamThroughAirlock(harness: Harness, client: TranslatedClient, model: string): Promise<StreamOutcome> {
  const outcome: StreamOutcome = { eventTypes: [], text: '', toolInput: '', apiError: null, failed: null, otherError: null, seen: '' };
  const see = (value: unknown): void => {
    outcome.seen += `${JSON.stringify(value)}\n`;
  };
  try {
    if (client === 'messages') await streamMessages(harness, model, outcome, see);
    else await streamResponses(harness, model, outcome, see);
  } catch (error) {
    see({ error: String(error), body: (error as { error?: unknown }).error ?? null });
    if (error instanceof Anthropic.APIError && !(error instanceof Anthropic.APIConnectionError)) {
      const body = error.error as { error?: { type?: string } } | undefined;
      outcome.apiError = { status: error.status, type: body?.error?.type ?? null, message: error.message };
    } else if (error instanceof OpenAI.APIError && !(error instanceof OpenAI.APIConnectionError)) {
      const body = error.error as { type?: string; code?: string } | undefined;
      outcome.apiError = { status: error.status, type: body?.code ?? body?.type ?? null, message: error.message };
    } else outcome.otherError = String(error);
  }
  return outcome;
}

async function streamMessages(harness: Harness, model: string, outcome: StreamOutcome, see: (value: unknown) => void): Promise<void> {
  const client = new Anthropic({ baseURL: harness.proxy.url, apiKey: 'alk_client', maxRetries: 0 });
  const stream = await client.messages.create({
    model,
    max_tokens: 256,
    stream: true,
    messages: [{ role: 'user', content: 'read a.ts' }],
    tools: [{ name: 'read_file', description: 'Reads a file', input_schema: TOOL_SCHEMA }],
  });
  for await (const event of stream) {
    see(event);
    outcome.eventTypes.push(event.type);
    if (event.type !== 'content_block_delta') continue;
    if (event.delta.type === 'text_delta') outcome.text += event.delta.text;
    if (event.delta.type === 'input_json_delta') outcome.toolInput += event.delta.partial_json;
  }
}

async function streamResponses(harness: Harness, model: string, outcome: StreamOutcome, see: (value: unknown) => void): Promise<void> {
  const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });
  const stream = await client.responses.create({
    model,
    input: 'read a.ts',
    store: false,
    stream: true,
    tools: [{ type: 'function', name: 'read_file', description: 'Reads a file', parameters: TOOL_SCHEMA, strict: false }],
  });
  for await (const event of stream) {
    see(event);
    outcome.eventTypes.push(event.type);
    if (event.type === 'response.output_text.delta') outcome.text += event.delta;
    if (event.type === 'response.function_call_arguments.delta') outcome.toolInput += event.delta;
    if (event.type === 'response.failed')
      outcome.failed = { code: event.response.error?.code ?? null, message: event.response.error?.message ?? '' };
  }
}
