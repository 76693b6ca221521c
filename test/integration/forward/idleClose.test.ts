import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startRaceServer, type RaceServer, type ReadRequest, type Reply } from '../../support/raceServer.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { MIN_IDLE_BEFORE_CLOSE_MS } from '../../../proxy/forward/upstreamExecution.ts';

/**
 * The keep-alive race (upstreamExecution.ts closedWhileIdle): a gateway that closes idle
 * connections sooner than Airlock keeps them, and says nothing of it, closes one just as Airlock
 * writes the next request on it (measured against uvicorn 0.17.6: 4 of 30 chats sent 5 s ±4 ms
 * apart failed with "other side closed"). Played by a 127.0.0.1 server that closes a connection
 * when a chosen request arrives on it, after the connection sat idle as long as servers let one:
 * from Airlock's side, the same close.
 */

let harness: Harness | null = null;
let gateway: RaceServer | null = null;
afterEach(async () => {
  await harness?.close();
  await gateway?.close();
  harness = null;
  gateway = null;
});

/**
 * The connection sits idle as long as servers let one before closing it: a time waited on purpose,
 * at least this long however busy the machine, since only such a connection's close is the race.
 */
const sitIdle = (): Promise<void> => delay(MIN_IDLE_BEFORE_CLOSE_MS + 50);

async function start(reply: (request: ReadRequest) => Reply): Promise<{ harness: Harness; gateway: RaceServer }> {
  gateway = await startRaceServer(reply);
  harness = await startHarness({ profile: { baseUrl: gateway.url } });
  return { harness, gateway };
}

describe('a gateway that closes a kept-alive connection as the next request reaches it', () => {
  it('resends the chat once, on a new connection, and the row counts the resend and says why', async () => {
    const { harness, gateway } = await start(({ connection, onConnection }) =>
      connection === 1 && onConnection === 2 ? 'close' : 'answer',
    );
    expect((await harness.postChat()).response.status).toBe(200);
    await sitIdle();

    const { response, end } = await harness.postChat();

    expect(response.status).toBe(200);
    expect(JSON.parse(response.body).choices[0].message.content).toBe('hi');
    expect(gateway.requests).toEqual([
      { connection: 1, onConnection: 1 },
      { connection: 1, onConnection: 2 },
      { connection: 2, onConnection: 1 },
    ]);
    expect(end.retries).toBe(1);
    expect(end.errorClass).toBeNull();
    expect(end.logNotes?.join(' ')).toMatch(/Resent once on a new connection: the gateway closed the kept-alive connection/);
  });

  it('resends on a connection of its own, not on another kept-alive one the gateway closes too', async () => {
    // A gateway's idle timer ends every connection that sat idle as long: the pool's other one is as stale.
    const { harness, gateway } = await start(({ connection, onConnection }) =>
      connection <= 2 && onConnection === 2 ? 'close' : connection === 1 ? 'answer_with_next' : 'answer',
    );
    const warmUp = await Promise.all([harness.postChat(), harness.postChat()]);
    expect(warmUp.map(({ response }) => response.status)).toEqual([200, 200]);
    await sitIdle();

    const { response, end } = await harness.postChat();

    expect(response.status).toBe(200);
    expect(end.retries).toBe(1);
    expect(gateway.requests.slice(2)).toEqual([
      { connection: expect.any(Number), onConnection: 2 },
      { connection: 3, onConnection: 1 },
    ]);
  });

  it('resends only once: the new connection closed unanswered too, the 502 goes to the client', async () => {
    const { harness, gateway } = await start(({ connection, onConnection }) =>
      connection === 1 && onConnection === 1 ? 'answer' : 'close',
    );
    expect((await harness.postChat()).response.status).toBe(200);
    await sitIdle();

    const { response, end } = await harness.postChat();

    expect(response.status).toBe(502);
    expect(end.errorClass).toBe('network');
    expect(end.retries).toBe(1);
    expect(gateway.requests).toEqual([
      { connection: 1, onConnection: 1 },
      { connection: 1, onConnection: 2 },
      { connection: 2, onConnection: 1 },
    ]);
  });
});

describe('closes that may follow a request the gateway read are not resent', () => {
  it('a fresh connection closed unanswered: a 502, sent once', async () => {
    const { harness, gateway } = await start(() => 'close');

    const { response, end } = await harness.postChat();

    expect(response.status).toBe(502);
    expect(end.errorClass).toBe('network');
    expect(end.retries).toBe(0);
    expect(gateway.requests).toEqual([{ connection: 1, onConnection: 1 }]);
  });

  it.each([
    ['in use a moment before, closed unanswered (the gateway may have read it)', 'close' as const, false],
    ['idle, closed after part of the answer', 'close_after_status_line' as const, true],
  ])('a reused connection %s: a 502, sent once', async (_label, close, idleFirst) => {
    const { harness, gateway } = await start(({ onConnection }) => (onConnection === 2 ? close : 'answer'));
    expect((await harness.postChat()).response.status).toBe(200);
    if (idleFirst) await sitIdle();

    const { response, end } = await harness.postChat();

    expect(response.status).toBe(502);
    expect(end.retries).toBe(0);
    expect(gateway.requests).toEqual([
      { connection: 1, onConnection: 1 },
      { connection: 1, onConnection: 2 },
    ]);
  });
});
