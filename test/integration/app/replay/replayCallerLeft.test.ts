import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestEndEvent } from '../../../../proxy/contracts/lifecycle.ts';
import type { StatusResponse } from '../../../../proxy/contracts/status.ts';
import { setUpMainProfileAndAgent, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../../support/http.ts';

let harness: ControlHarness;
let clientToken = '';

beforeAll(async () => {
  harness = await startControlHarness();
  clientToken = await setUpMainProfileAndAgent(harness);
});
afterAll(async () => {
  await harness?.close();
});

/** Resolves with the end of the first replay of `originalId` the proxy publishes. */
function replayEnded(originalId: string): Promise<RequestEndEvent> {
  const replayIds = new Set<string>();
  return new Promise((resolve) => {
    const stop = harness.proxy.events.subscribe((event) => {
      if (event.type === 'start' && event.replayOf === originalId) replayIds.add(event.requestId);
      if (event.type === 'end' && replayIds.has(event.requestId)) {
        stop();
        resolve(event);
      }
    });
  });
}

describe('a replay whose caller leaves', () => {
  it('ends quietly: its row says client_aborted and no notice calls it a fault in Airlock', async () => {
    const sent = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Name a colour.' }] }),
    });
    const original = await harness.loggedDetail(sent);

    const held = harness.simulator.holdNext('/chat/completions');
    const ended = replayEnded(original.row.id);
    // `airlock replay` stopped with Ctrl-C, or the window reloading, mid-replay.
    const caller = new AbortController();
    const replayPosted = harness
      .api(`/requests/${original.row.id}/replay`, { method: 'POST', body: '{}', signal: caller.signal })
      .catch((error: unknown) => error);
    await held.arrived;
    caller.abort();
    expect(await replayPosted).toMatchObject({ name: 'AbortError' });

    const end = await ended;
    expect(end.errorClass).toBe('client_aborted');
    held.release();
    const status = await harness.json<StatusResponse>('/status');
    expect(status.notices.map((notice) => notice.kind)).not.toContain('unexpected_error');
  });
});
