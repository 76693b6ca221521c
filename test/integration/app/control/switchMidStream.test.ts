import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../../../proxy/contracts/clientTokens.ts';
import type { RequestPage } from '../../../../proxy/contracts/requests.ts';
import type { Fault } from '../../../simulator/types.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { openStream } from '../../../support/openStream.ts';
import { SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../../../support/sentinel.ts';

/**
 * What the tray and the window change while streams run (probe C): the active profile, the running
 * profile's prices and its key. A running stream keeps what it started with (profile, key, prices:
 * its row and spend say so); the next request of a token that follows the active profile goes to
 * the new one, and a token pinned to the old profile stays there with the new key and prices.
 */
const KEY_B = 'sk-airlock-switch-target-key-5b7d9f1e3a2c4e6b8d0f';
const USAGE = { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 };

let harness: ControlHarness;
let gatewayB: GatewaySimulator;
let following: string;
let pinned: string;
const send = (body: unknown, method = 'POST'): RequestInit => ({ method, body: JSON.stringify(body) });

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { validKeys: [SENTINEL_KEY, SECOND_SENTINEL_KEY] } });
  gatewayB = await startGatewaySimulator({ validKeys: [KEY_B] });
  const pricedAt = (perMillion: number) => [{ model: 'gpt-4o-mini', inputPer1M: perMillion, outputPer1M: perMillion }];
  // Messages translated to chat, so the held stream below serves both protocols.
  const translated = { messages: 'translate', responses: 'translate' };
  await harness.json(
    '/profiles',
    send({ id: 'a', name: 'A', baseUrl: harness.simulator.baseUrl, prices: pricedAt(1000), protocolModes: translated }),
  );
  await harness.json('/profiles/a/key', send({ key: SENTINEL_KEY }, 'PUT'));
  await harness.json('/profiles', send({ id: 'b', name: 'B', baseUrl: gatewayB.baseUrl, prices: pricedAt(1) }));
  await harness.json('/profiles/b/key', send({ key: KEY_B }, 'PUT'));
  await harness.json('/profiles/a/activate', { method: 'POST' });
  following = (await harness.json<TokenSecretResponse>('/tokens', send({ name: 'follows' }))).token;
  pinned = (await harness.json<TokenSecretResponse>('/tokens', send({ name: 'pinned', pinnedProfileId: 'a' }))).token;
});
afterAll(async () => {
  await harness?.close();
  await gatewayB?.close();
});

/** A chat stream that sends two words, then waits for `until` before its last word, its usage and [DONE]. */
function heldStream(until: Promise<unknown>): Fault {
  const event = (fields: object) =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', ...fields })}\n\n`;
  const words = ['one ', 'two ', 'three'].map((content) => event({ choices: [{ index: 0, delta: { content } }] }));
  return {
    kind: 'bodyChunks',
    chunks: [
      ...words,
      event({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      event({ choices: [], usage: USAGE }),
      'data: [DONE]\n\n',
    ],
    pause: { beforeChunk: 2, until },
  };
}

const chatWith = (token: string) => ({ ...JSON_HEADERS, authorization: `Bearer ${token}` });

describe('switching profiles, prices and keys while streams run', () => {
  it('running streams keep their profile, key and prices; later requests take the new ones', async () => {
    let releaseStreams: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (releaseStreams = resolve));
    harness.simulator.script(heldStream(held), heldStream(held), heldStream(held));
    const hasTwoWords = (body: string) => body.includes('two');
    const streams = [
      openStream(`${harness.proxy.url}/v1/chat/completions`, chatWith(following), chatBody({ stream: true }), hasTwoWords),
      openStream(
        `${harness.proxy.url}/v1/messages`,
        { ...JSON_HEADERS, 'x-api-key': following, 'anthropic-version': '2023-06-01' },
        JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 2000, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
        hasTwoWords,
      ),
      openStream(`${harness.proxy.url}/v1/chat/completions`, chatWith(pinned), chatBody({ stream: true }), hasTwoWords),
    ];
    await Promise.all(streams.map((stream) => stream.started));

    await harness.json('/profiles/b/activate', { method: 'POST' });
    await harness.json('/profiles/a/prices', send({ prices: [{ model: 'gpt-4o-mini', inputPer1M: 5, outputPer1M: 5 }] }, 'PUT'));
    await harness.json('/profiles/a/key', send({ key: SECOND_SENTINEL_KEY }, 'PUT'));
    const next = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: chatWith(following),
      body: chatBody(),
    });
    const nextPinned = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: chatWith(pinned),
      body: chatBody(),
    });
    releaseStreams();

    const outcomes = await Promise.all(streams.map((stream) => stream.outcome));
    for (const outcome of outcomes) {
      expect(outcome.endedCleanly).toBe(true);
      expect(outcome.body).toContain('three');
      expect(outcome.body).not.toMatch(/"error"|event: error/);
    }
    // The streams went with the old key; the pinned token's next request with the new one; the following token's to B.
    expect(harness.simulator.received.map((received) => String(received.headers.authorization).slice(-4))).toEqual([
      ...Array(3).fill(SENTINEL_KEY.slice(-4)),
      SECOND_SENTINEL_KEY.slice(-4),
    ]);
    expect(gatewayB.received).toHaveLength(1);

    expect((await harness.loggedDetail(next)).row).toMatchObject({ profileId: 'b', clientName: 'follows' });
    // 1 in, 6 out at the new price of 5 per million.
    expect((await harness.loggedDetail(nextPinned)).row).toMatchObject({ profileId: 'a', clientName: 'pinned', costCredits: 0.000035 });
    await expect
      .poll(async () => {
        const { items } = await harness.json<RequestPage>('/requests?limit=10');
        return items.filter((row) => row.stream && row.state === 'done').map((row) => [row.profileId, row.costCredits]);
      })
      // 2000 tokens at the price the streams started with: 1000 per million.
      .toEqual([
        ['a', 2],
        ['a', 2],
        ['a', 2],
      ]);
    const spend = await harness.json<{ perProfile: { key: string; costCredits: number }[] }>('/spend?range=today');
    expect(spend.perProfile.find((row) => row.key === 'a')?.costCredits).toBeCloseTo(6.000035, 6);
  });
});
