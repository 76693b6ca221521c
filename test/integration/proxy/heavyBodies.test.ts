import { createHash } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { TranslationThread } from '../../../proxy/forward/translation/translationThreadClient.ts';
import { MAX_JSON_NESTING_DEPTH } from '../../../proxy/contracts/defaults.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/** The channel of fixtures/gatedTranslationThread.ts. */
const GATE_CHANNEL = 'airlock-test-translation-gate';
const MIB = 1024 * 1024;
const ANTHROPIC_HEADERS = { ...JSON_HEADERS, 'anthropic-version': '2023-06-01' };
/** Far above the simulator's answers, far below the heavy bodies: what Airlock may parse on its loop here. */
const ANSWER_BYTES_AT_MOST = 64 * 1024;

let harness: Harness;
let gate: BroadcastChannel;

beforeAll(async () => {
  const translation = new TranslationThread({ threadUrl: new URL('./fixtures/gatedTranslationThread.ts', import.meta.url) });
  harness = await startHarness({ translation, profile: { protocolModes: { messages: 'translate', responses: 'translate' } } });
  gate = new BroadcastChannel(GATE_CHANNEL);
});
afterAll(async () => {
  gate.close();
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

/** The longest text Airlock's own code (not the in-process simulator) handed to JSON.parse on this thread. */
let longestParsedByAirlock = 0;
beforeEach(() => {
  longestParsedByAirlock = 0;
  const parse = JSON.parse.bind(JSON);
  vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    // The first frame outside this file and the spy's own module is the caller.
    const caller =
      new Error().stack
        ?.split('\n')
        .slice(1)
        .find((frame) => !frame.includes('heavyBodies.test.ts') && !frame.includes('node_modules')) ?? '';
    if (caller.includes('/proxy/')) longestParsedByAirlock = Math.max(longestParsedByAirlock, text.length);
    return parse(text, reviver);
  });
});
afterEach(() => vi.restoreAllMocks());

const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** An object of `count` small distinct keys: the slowest shape for JSON.parse (about 0.4 us a key). */
function manyKeys(count: number): Record<string, number> {
  const keys: Record<string, number> = {};
  for (let index = 0; index < count; index += 1) keys[`k${index}`] = index;
  return keys;
}

describe('bodies too costly to parse on the forwarding loop', () => {
  it('refuses a 4 MiB body nested two million levels deep, naming the limit, and sends nothing', async () => {
    const levels = 2 * MIB;
    const body = `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"x":${'['.repeat(levels)}${']'.repeat(levels)}}`;
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(400);
    const error = (JSON.parse(response.body) as { error: { message: string; type: string } }).error;
    expect(error.type).toBe('invalid_request');
    expect(error.message).toContain(`more than ${MAX_JSON_NESTING_DEPTH} levels deep`);
    expect(harness.simulator.received).toHaveLength(0);
  });

  it('refuses deep nesting in Anthropic’s error shape on /v1/messages', async () => {
    const body = `{"model":"gpt-4o-mini","max_tokens":5,"messages":[{"role":"user","content":${'['.repeat(5000)}${']'.repeat(5000)}}]}`;
    const response = await rawRequest(`${harness.proxy.url}/v1/messages`, { method: 'POST', headers: ANTHROPIC_HEADERS, body });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('levels deep') },
    });
  });

  it('forwards nearly 4 MiB of small keys byte for byte without parsing it on the forwarding loop', async () => {
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], metadata: manyKeys(250_000) });
    expect(body.length).toBeGreaterThan(3 * MIB);
    expect(body.length).toBeLessThan(4 * MIB);
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(200);
    expect(sha256(harness.simulator.received[0]!.body)).toBe(sha256(body));
    // Only the gateway's small answer was parsed here (for its usage), not the body.
    expect(longestParsedByAirlock).toBeGreaterThan(0);
    expect(longestParsedByAirlock).toBeLessThan(ANSWER_BYTES_AT_MOST);
  });

  it('answers a small request while a heavy Messages body waits for its translation, then translates it off the loop', async () => {
    const schema = { type: 'object', properties: manyKeys(300_000) };
    const heavyBody = JSON.stringify({
      model: 'gpt-4o-mini',
      max_tokens: 20,
      messages: [{ role: 'user', content: 'use the tool' }],
      tools: [{ name: 'lookup', description: 'Looks things up', input_schema: schema }],
    });
    const inTranslation = new Promise<unknown>((resolve) => {
      gate.onmessage = (event: { data: unknown }) => resolve(event.data);
    });
    const heavy = rawRequest(`${harness.proxy.url}/v1/messages`, { method: 'POST', headers: ANTHROPIC_HEADERS, body: heavyBody });
    // Before the change the body was parsed and translated on the forwarding loop, and answered without any thread.
    const first = await Promise.race([inTranslation.then(() => 'in translation'), heavy.then(() => 'answered')]);
    expect(first).toBe('in translation');

    const small = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body: chatBody() });
    expect(small.status).toBe(200);
    expect(harness.simulator.received).toHaveLength(1);
    expect(longestParsedByAirlock).toBeLessThan(ANSWER_BYTES_AT_MOST);

    gate.postMessage('release');
    const answer = await heavy;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ type: 'message', role: 'assistant' });
    const sent = JSON.parse(harness.simulator.received[1]!.body.toString('utf8')) as {
      tools: { function: { name: string; parameters: unknown } }[];
    };
    expect(sent.tools[0]!.function).toEqual({ name: 'lookup', description: 'Looks things up', parameters: schema });
  });
});

describe('a Messages body too large to parse on the loop, through the shared translation thread', () => {
  let shared: Harness;
  beforeAll(async () => {
    shared = await startHarness({ profile: { protocolModes: { messages: 'translate', responses: 'translate' } } });
  });
  afterAll(async () => {
    await shared.close();
  });

  it('is translated and answered (before, any body past 4 MiB was refused as not a Messages request)', async () => {
    const content = `${'A long document. '.repeat(400_000)}Summarise it.`;
    const body = JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content }] });
    expect(body.length).toBeGreaterThan(6 * MIB);
    const response = await rawRequest(`${shared.proxy.url}/v1/messages`, { method: 'POST', headers: ANTHROPIC_HEADERS, body });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ type: 'message', role: 'assistant' });
    const sent = JSON.parse(shared.simulator.received[0]!.body.toString('utf8')) as { messages: { role: string; content: string }[] };
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content });
  });
});
