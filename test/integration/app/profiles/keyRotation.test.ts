import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bumpKeysRevision } from '../../../../proxy/app/profiles/configMutations.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { setUpMainProfileAndAgent, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

/** The key the user rotates to; the gateway accepts only this one (the old one was revoked on its dashboard). */
const NEW_KEY = 'sk-airlock-rotated-key-5e1d8c0b9a7f46e2b3c1d0e9f8a7b6c5';

let harness: ControlHarness;
let agentToken: string;

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { validKeys: [NEW_KEY] } });
  agentToken = await setUpMainProfileAndAgent(harness);
});
afterAll(() => harness.close());
beforeEach(async () => {
  // Each case starts on the old key, which the gateway no longer accepts.
  await harness.json('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: SENTINEL_KEY }) });
  harness.simulator.reset();
});

function chat() {
  return rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${agentToken}` },
    body: chatBody(),
  });
}

describe('a new gateway key while the old one is rejected', () => {
  it('a key set from another process (the CLI) is used by the next request, not refused by the breaker the old key opened', async () => {
    const rejected = await chat();
    expect(rejected.status).toBe(401);
    expect((await chat()).status).toBe(403);

    // What `airlock key set main` does in its own process: the keychain, then the revision the proxy watches.
    await harness.secrets.set('main', NEW_KEY);
    await harness.store.update(bumpKeysRevision);
    await expect.poll(() => harness.keys.keyStatus('main').lastFour).toBe(NEW_KEY.slice(-4));

    const after = await chat();
    expect(after.status).toBe(200);
    expect(harness.simulator.received.at(-1)?.authOk).toBe(true);
  });

  it("a request still running on the old key when the new one is set: its rejection does not stop the new key's requests", async () => {
    const held = harness.simulator.holdNext('/chat/completions');
    const onOldKey = chat();
    await held.arrived;
    await harness.json('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: NEW_KEY }) });
    held.release();
    const oldAnswer = await onOldKey;
    expect(oldAnswer.status).toBe(401);
    await harness.loggedDetail(oldAnswer);

    const onNewKey = await chat();
    expect(onNewKey.status).toBe(200);
    expect(harness.simulator.received.at(-1)?.authOk).toBe(true);
  });
});

describe('the old key after a change', () => {
  it('stays masked: a gateway that echoes it in a later answer hands it neither to the client nor to the log', async () => {
    await harness.json('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: NEW_KEY }) });
    harness.simulator.script({ kind: 'reply', content: `Requests from ${SENTINEL_KEY} were moved to your new key.` });
    const answer = await chat();
    expect(answer.status).toBe(200);
    expect(findSentinel(answer.body)).toBeNull();
    expect(answer.body).toContain('were moved to your new key');
    const logged = await harness.loggedDetail(answer);
    expect(findSentinel(JSON.stringify(logged))).toBeNull();
  });
});
