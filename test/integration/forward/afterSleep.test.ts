import { afterEach, describe, expect, it } from 'vitest';
import { leaveConnectionsFromBeforeSleep } from '../../../proxy/forward/upstreamAgents.ts';
import { startRaceServer, type RaceServer } from '../../support/raceServer.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A laptop that slept with a kept-alive connection to the gateway and woke on another network: the
 * connection is dead, and a request written on it meets silence, no reset (played here by a
 * 127.0.0.1 server that reads the connection's next request and never answers nor closes). The
 * idle timeout is short so that a request sent on it ends by itself.
 */

let harness: Harness | null = null;
let gateway: RaceServer | null = null;
afterEach(async () => {
  await harness?.close();
  await gateway?.close();
  harness = null;
  gateway = null;
});

describe('the first request after a sleep', () => {
  it('goes out on a new connection, not on one kept alive from before the sleep', async () => {
    gateway = await startRaceServer(({ connection, onConnection }) => (connection === 1 && onConnection > 1 ? 'silence' : 'answer'));
    harness = await startHarness({
      profile: { baseUrl: gateway.url, timeouts: { connectTimeoutMs: 5000, idleTimeoutMs: 1000, totalTimeoutMs: 60_000 } },
    });
    expect((await harness.postChat()).response.status).toBe(200);

    // What the proxy does on the first request after it sees the machine slept (sleepWatch.ts).
    leaveConnectionsFromBeforeSleep();
    const { response, end } = await harness.postChat();

    expect(response.status).toBe(200);
    expect(end.retries).toBe(0);
    expect(gateway.requests).toEqual([
      { connection: 1, onConnection: 1 },
      { connection: 2, onConnection: 1 },
    ]);
  });
});
