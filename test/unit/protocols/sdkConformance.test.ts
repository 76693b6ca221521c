import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { anthropicErrorBody } from '../../../proxy/protocols/anthropic/errors.ts';
import { responsesAdapter } from '../../../proxy/protocols/responses/adapter.ts';
import { chatToAnthropicResponse } from '../../../proxy/protocols/anthropic/response.ts';
import { createAnthropicStreamTranslator } from '../../../proxy/protocols/anthropic/stream.ts';
import { createResponsesStreamTranslator } from '../../../proxy/protocols/responses/stream.ts';
import type { ChatStreamTranslator } from '../../../proxy/protocols/streamTranslator.ts';
import { fedChunks, finishChunk, refusalChunk, textChunk, toolChunk, usageChunk } from './chatChunks.ts';

/**
 * The official SDKs read what the translators write: their stream accumulators must rebuild the
 * reply, and their error handling must see a failure. The SDKs' fetch is replaced, so no network.
 */

function fetchReturning(body: string, status = 200, contentType = 'text/event-stream'): typeof fetch {
  return async () => new Response(body, { status, headers: { 'content-type': contentType } });
}

function framesFor(translator: ChatStreamTranslator, chunks: object[], ending: 'finish' | 'fail'): string {
  const fed = fedChunks(translator);
  const frames = chunks.flatMap((chunk) => fed.push(chunk));
  frames.push(...(ending === 'finish' ? translator.finish() : translator.fail({ type: 'overloaded_error', message: 'upstream broke' })));
  return frames.join('');
}

const weatherArgs = '{"city":"Zürich","note":"🌧 é"}';
const toolTurn = [
  textChunk('Checking '),
  textChunk('now.'),
  toolChunk({ index: 0, id: 'call_w', name: 'get_weather' }, { index: 1, id: 'call_t', name: 'get_time', arguments: '{}' }),
  ...Array.from(weatherArgs).map((piece) => toolChunk({ index: 0, arguments: piece })),
  finishChunk('tool_calls'),
  usageChunk(40, 12),
];

const messageParams = { model: 'claude-airlock-test', max_tokens: 100, messages: [{ role: 'user' as const, content: 'weather?' }] };

describe('Anthropic SDK reads the translated stream', () => {
  it('rebuilds text, both tool calls with parsed input, stop reason and usage', async () => {
    const body = framesFor(
      createAnthropicStreamTranslator({
        gatewayTag: 'gw',
        upstreamModel: 'gw-model',
        requestedModel: 'claude-airlock-test',
        messageId: 'msg_sdk',
      }),
      toolTurn,
      'finish',
    );
    const client = new Anthropic({ apiKey: 'test', baseURL: 'http://127.0.0.1:9', fetch: fetchReturning(body), maxRetries: 0 });
    const message = await client.messages.stream(messageParams).finalMessage();
    expect(message.content).toEqual([
      expect.objectContaining({ type: 'text', text: 'Checking now.' }),
      expect.objectContaining({ type: 'tool_use', id: 'call_w', name: 'get_weather', input: JSON.parse(weatherArgs) }),
      expect.objectContaining({ type: 'tool_use', id: 'call_t', name: 'get_time', input: {} }),
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 40, output_tokens: 12 });
  });

  it('raises the error event of a failed stream as an error', async () => {
    const body = framesFor(
      createAnthropicStreamTranslator({ gatewayTag: 'gw', upstreamModel: 'gw-model', requestedModel: 'm', messageId: 'msg_fail' }),
      [textChunk('par')],
      'fail',
    );
    const client = new Anthropic({ apiKey: 'test', baseURL: 'http://127.0.0.1:9', fetch: fetchReturning(body), maxRetries: 0 });
    await expect(client.messages.stream(messageParams).finalMessage()).rejects.toThrow(/upstream broke/);
  });

  it('reads the non-streaming reply and the error body', async () => {
    const chat = { choices: [{ message: { content: 'Hi!' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2 } };
    const translated = chatToAnthropicResponse(chat, {
      gatewayTag: 'gw',
      upstreamModel: 'gw-model',
      requestedModel: 'claude-airlock-test',
    });
    if (!translated.ok) throw new Error(translated.message);
    const ok = new Anthropic({
      apiKey: 'test',
      baseURL: 'http://127.0.0.1:9',
      fetch: fetchReturning(JSON.stringify(translated.body), 200, 'application/json'),
    });
    const message = await ok.messages.create(messageParams);
    expect(message.content).toEqual([{ type: 'text', text: 'Hi!' }]);

    const overloaded = JSON.stringify(anthropicErrorBody(529, 'gateway overloaded'));
    const failing = new Anthropic({
      apiKey: 'test',
      baseURL: 'http://127.0.0.1:9',
      fetch: fetchReturning(overloaded, 529, 'application/json'),
      maxRetries: 0,
    });
    await expect(failing.messages.create(messageParams)).rejects.toMatchObject({
      status: 529,
      error: { error: { type: 'overloaded_error' } },
    });
  });
});

describe('OpenAI SDK reads the translated Responses stream', () => {
  const responseParams = { model: 'gpt-5-codex', input: 'weather?' };

  it('rebuilds the output items and usage from the events', async () => {
    const body = framesFor(
      createResponsesStreamTranslator({
        gatewayTag: 'gw',
        upstreamModel: 'gw-model',
        requestedModel: 'gpt-5-codex',
        responseId: 'resp_sdk',
      }),
      toolTurn,
      'finish',
    );
    const client = new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:9/v1', fetch: fetchReturning(body), maxRetries: 0 });
    const response = await client.responses.stream(responseParams).finalResponse();
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Checking now.');
    expect(response.output.slice(1)).toEqual([
      expect.objectContaining({ type: 'function_call', call_id: 'call_w', name: 'get_weather', arguments: weatherArgs }),
      expect.objectContaining({ type: 'function_call', call_id: 'call_t', name: 'get_time', arguments: '{}' }),
    ]);
    expect(response.usage).toMatchObject({ input_tokens: 40, output_tokens: 12, total_tokens: 52 });
  });

  it('rebuilds a refusal as the refusal content part of the message', async () => {
    const refusal = [refusalChunk('I cannot '), refusalChunk('do that.'), finishChunk('stop')];
    const body = framesFor(
      createResponsesStreamTranslator({
        gatewayTag: 'gw',
        upstreamModel: 'gw-model',
        requestedModel: 'gpt-5-codex',
        responseId: 'resp_no',
      }),
      refusal,
      'finish',
    );
    const client = new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:9/v1', fetch: fetchReturning(body), maxRetries: 0 });
    const response = await client.responses.stream(responseParams).finalResponse();
    expect(response.output).toEqual([
      expect.objectContaining({ type: 'message', content: [expect.objectContaining({ type: 'refusal', refusal: 'I cannot do that.' })] }),
    ]);
  });

  it('never reports a failed stream as completed', async () => {
    const body = framesFor(
      createResponsesStreamTranslator({ gatewayTag: 'gw', upstreamModel: 'gw-model', requestedModel: 'm', responseId: 'resp_fail' }),
      [textChunk('par')],
      'fail',
    );
    const client = new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:9/v1', fetch: fetchReturning(body), maxRetries: 0 });
    const events: string[] = [];
    for await (const event of await client.responses.create({ ...responseParams, stream: true })) events.push(event.type);
    expect(events.at(-1)).toBe('response.failed');
    expect(events).not.toContain('response.completed');
  });

  it("raises the error frame a native Responses stream ends with, with Airlock's message", async () => {
    const started =
      'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"r","status":"in_progress","output":[]}}\n\n';
    const body = started + responsesAdapter.errors.streamFrame('stream_interrupted', {});
    const client = new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:9/v1', fetch: fetchReturning(body), maxRetries: 0 });
    const read = async (): Promise<void> => {
      for await (const _event of await client.responses.create({ ...responseParams, stream: true })) {
        // Reads until the error frame.
      }
    };
    await expect(read()).rejects.toThrow(/stream/i);
  });
});
