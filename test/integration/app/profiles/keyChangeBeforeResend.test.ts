import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { setUpMainProfileAndAgent, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

/** The key the user changes to while a request waits for its resend; the gateway accepts only this one. */
const NEW_KEY = 'sk-airlock-changed-before-resend-0c4e9a7d2b6f8e1a3c5d7f9b';
const OVERLOADED = JSON.stringify({ error: { message: 'The server is overloaded', type: 'server_error' } });

let harness: ControlHarness;
let agentToken: string;

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { validKeys: [NEW_KEY] } });
  agentToken = await setUpMainProfileAndAgent(harness);
});
afterAll(() => harness.close());
beforeEach(async () => {
  await harness.json('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: SENTINEL_KEY }) });
  harness.simulator.reset();
});

/**
 * A chat request whose first attempt is answered `firstStatus` (a 503 is resent, a 500 goes to the
 * profile's fallbacks) only once `changeKey` has run: the key changes while the request is between
 * its attempt and the next, whatever the load.
 */
async function changeKeyBeforeResend(changeKey: () => Promise<unknown>, firstStatus = 503) {
  let endFirstAnswer: () => void = () => undefined;
  const firstAnswerEnds = new Promise<void>((resolve) => (endFirstAnswer = resolve));
  harness.simulator.script({
    kind: 'text',
    status: firstStatus,
    text: OVERLOADED,
    contentType: 'application/json',
    pausedAt: { byte: 0, until: firstAnswerEnds },
  });
  const answer = rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${agentToken}` },
    body: chatBody(),
  });
  await expect.poll(() => harness.simulator.received.length).toBe(1);
  await changeKey();
  endFirstAnswer();
  return answer;
}

/** The last four characters of the key each attempt came with (the simulator records keys masked). */
const sentKeys = () => harness.simulator.received.map((received) => String(received.headers.authorization).slice(-4));
const lastFour = (key: string) => key.slice(-4);

describe('the gateway key changed while a request waits for its resend', () => {
  it('a replaced key: the resend goes with the new one, not the key the user replaced', async () => {
    const answer = await changeKeyBeforeResend(() =>
      harness.json('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: NEW_KEY }) }),
    );
    expect(answer.status).toBe(200);
    expect(sentKeys()).toEqual([lastFour(SENTINEL_KEY), lastFour(NEW_KEY)]);
    expect((await harness.loggedDetail(answer)).row.retries).toBe(1);
  });

  it('a removed key: nothing more is sent with it, and the client gets the gateway’s answer with why it was not resent', async () => {
    const answer = await changeKeyBeforeResend(() => harness.json('/profiles/main/key', { method: 'DELETE' }));
    expect(answer.status).toBe(503);
    expect(sentKeys()).toEqual([lastFour(SENTINEL_KEY)]);
    const { row } = await harness.loggedDetail(answer);
    expect(row.retries).toBe(0);
    expect(row.notes.join(' ')).toMatch(/Not resent: the gateway key of profile "main" was removed/);
  });

  it('the new key is masked in the resend’s answer, as the first key is', async () => {
    const answer = await changeKeyBeforeResend(() => {
      // The resend's answer hands back the key it came with.
      harness.simulator.script({ kind: 'echoKey' });
      return harness.json('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: NEW_KEY }) });
    });
    expect(answer.status).toBe(200);
    expect(sentKeys()).toEqual([lastFour(SENTINEL_KEY), lastFour(NEW_KEY)]);
    expect(answer.body).not.toContain(NEW_KEY);
    expect(JSON.stringify(answer.headers)).not.toContain(NEW_KEY);
    const logged = await harness.loggedDetail(answer);
    expect(JSON.stringify(logged)).not.toContain(NEW_KEY);
  });
});

describe('the gateway key changed while a request waits for a fallback on another model of its profile', () => {
  const setFallbacks = (fallbacks: unknown[]) => harness.json('/profiles/main', { method: 'PUT', body: JSON.stringify({ fallbacks }) });
  beforeEach(() => setFallbacks([{ model: 'deepseek-chat' }]));
  afterEach(() => setFallbacks([]));

  it('a replaced key: the fallback step goes with the new one', async () => {
    // A 500 is not resent: the next model is the fallback's step.
    const answer = await changeKeyBeforeResend(
      () => harness.json('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: NEW_KEY }) }),
      500,
    );
    expect(answer.status).toBe(200);
    expect(sentKeys()).toEqual([lastFour(SENTINEL_KEY), lastFour(NEW_KEY)]);
  });

  it('a removed key: the step is skipped, saying why, and the first step’s answer goes to the client', async () => {
    const answer = await changeKeyBeforeResend(() => harness.json('/profiles/main/key', { method: 'DELETE' }), 500);
    expect(answer.status).toBe(500);
    expect(sentKeys()).toEqual([lastFour(SENTINEL_KEY)]);
    const { row } = await harness.loggedDetail(answer);
    expect(row.fallbackChain?.at(-1)).toMatchObject({ model: 'deepseek-chat', status: null, note: expect.stringMatching(/was removed/) });
  });
});

describe('the gateway key changed while a model-not-found answer comes', () => {
  const MODEL_NOT_FOUND = JSON.stringify({
    error: { message: 'The model does not exist', type: 'invalid_request_error', code: 'model_not_found' },
  });
  /** A 404 model_not_found held until `changeKey` ran: its "Did you mean" lookup (GET /models) comes after the change. */
  async function changeKeyBeforeModelLookup(changeKey: () => Promise<unknown>) {
    let endAnswer: () => void = () => undefined;
    const answerEnds = new Promise<void>((resolve) => (endAnswer = resolve));
    harness.simulator.script({
      kind: 'text',
      status: 404,
      text: MODEL_NOT_FOUND,
      contentType: 'application/json',
      pausedAt: { byte: 0, until: answerEnds },
    });
    const answer = rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${agentToken}` },
      body: chatBody(),
    });
    await expect.poll(() => harness.simulator.received.length).toBe(1);
    await changeKey();
    endAnswer();
    return answer;
  }
  const modelLookups = () => harness.simulator.received.filter((received) => received.path.startsWith('/v1/models'));

  it('a removed key: the lookup is not sent with it, and the client still gets the 404', async () => {
    const answer = await changeKeyBeforeModelLookup(() => harness.json('/profiles/main/key', { method: 'DELETE' }));
    expect(answer.status).toBe(404);
    expect(modelLookups()).toEqual([]);
  });

  it('a replaced key: the lookup goes with the new one', async () => {
    const answer = await changeKeyBeforeModelLookup(() =>
      harness.json('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: NEW_KEY }) }),
    );
    expect(answer.status).toBe(404);
    expect(modelLookups().map((received) => String(received.headers.authorization).slice(-4))).toEqual([lastFour(NEW_KEY)]);
    expect(answer.body).not.toContain(NEW_KEY);
  });
});

describe('the gateway key changed while a 400 for a parameter comes (the request is sent again fixed)', () => {
  const MAX_TOKENS_REFUSED = JSON.stringify({
    error: {
      message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      type: 'invalid_request_error',
      param: 'max_tokens',
      code: 'unsupported_parameter',
    },
  });
  /** A chat request with `max_tokens` whose 400 is held until `changeKey` ran: the renamed resend comes after the change. */
  async function changeKeyBeforeFixedResend(model: string, changeKey: () => Promise<unknown>) {
    let endAnswer: () => void = () => undefined;
    const answerEnds = new Promise<void>((resolve) => (endAnswer = resolve));
    harness.simulator.script({
      kind: 'text',
      status: 400,
      text: MAX_TOKENS_REFUSED,
      contentType: 'application/json',
      pausedAt: { byte: 0, until: answerEnds },
    });
    const answer = rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${agentToken}` },
      // A model of its own per case: a rename learned by an earlier one would be sent from the start.
      body: chatBody({ model, max_tokens: 100 }),
    });
    await expect.poll(() => harness.simulator.received.length).toBe(1);
    await changeKey();
    endAnswer();
    return answer;
  }

  it('a removed key: the fixed request is not sent with it, and the client gets the 400', async () => {
    const answer = await changeKeyBeforeFixedResend('qwen-plus', () => harness.json('/profiles/main/key', { method: 'DELETE' }));
    expect(answer.status).toBe(400);
    expect(sentKeys()).toEqual([lastFour(SENTINEL_KEY)]);
    const { row } = await harness.loggedDetail(answer);
    expect(row.notes.join(' ')).toMatch(/Not resent with the refused parameter fixed: the gateway key of profile "main"/);
  });

  it('a replaced key: the fixed request goes with the new one', async () => {
    const answer = await changeKeyBeforeFixedResend('glm-4.6', () =>
      harness.json('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: NEW_KEY }) }),
    );
    expect(sentKeys()).toEqual([lastFour(SENTINEL_KEY), lastFour(NEW_KEY)]);
    expect(answer.status).toBe(200);
  });
});
