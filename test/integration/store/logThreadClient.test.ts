import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { BEHIND_REASON, LogThreadClient, type LogThreadOptions } from '../../../proxy/store/write/logThreadClient.ts';
import { capturedBodies, endEvent, startEvent } from '../../support/lifecycleEvents.ts';
import { tempDirPerTest } from './tempLog.ts';

const dataDir = tempDirPerTest('airlock-log-thread-');

function clientWith(overrides: Partial<LogThreadOptions>, errors: unknown[]): LogThreadClient {
  return new LogThreadClient({
    dataDir: dataDir(),
    bodyCapBytes: 1024,
    postIntervalMs: 5,
    knownSecrets: () => [],
    onError: (error) => errors.push(error),
    onBodiesState: () => undefined,
    ...overrides,
  });
}

const messages = (errors: unknown[]): string[] => errors.map((error) => (error instanceof Error ? error.message : String(error)));

describe('LogThreadClient', () => {
  it('starts a thread that died again, a few times, then says logging stopped, and never leaves a flush waiting', async () => {
    const errors: unknown[] = [];
    const client = clientWith({ threadUrl: new URL('./fixtures/failingLogThread.ts', import.meta.url) }, errors);
    const gaveUp = (): boolean => messages(errors).some((message) => message.includes('no longer logged'));
    await expect.poll(gaveUp).toBe(true);

    const said = messages(errors);
    expect(said.filter((message) => message.includes('could not open its database'))).toHaveLength(4);
    expect(said.filter((message) => message.includes('a new one logs the requests that follow'))).toHaveLength(3);
    expect(said.at(-1)).toMatch(/stopped several times in a row; requests are no longer logged until Airlock restarts/);
    client.enqueue(startEvent('after'));
    await expect(client.flush()).resolves.toBeUndefined();
    await expect(client.close()).resolves.toBeUndefined();
  });

  it('answers a flush once everything posted before it is written', async () => {
    const errors: unknown[] = [];
    const client = clientWith({}, errors);
    client.enqueue(startEvent('r1'));
    client.enqueue(endEvent('r1'));
    await client.flush();
    await client.close();
    const db = new DatabaseSync(join(dataDir(), 'requests.db'));
    expect(db.prepare('SELECT id, state FROM requests').all()).toEqual([{ id: 'r1', state: 'done' }]);
    db.close();
    expect(errors).toEqual([]);
  });

  it('skips bodies, never rows, while the thread is behind by more than the limit, and logs them again once it caught up', async () => {
    const errors: unknown[] = [];
    const client = clientWith(
      { threadUrl: new URL('./fixtures/stalledLogThread.ts', import.meta.url), maxUnwrittenBodyBytes: 100 },
      errors,
    );
    const batches = (): string[] => messages(errors).filter((message) => message.startsWith('batch'));
    const postAndWait = async (id: string): Promise<string | undefined> => {
      const before = batches().length;
      client.enqueue(endEvent(id, { bodies: capturedBodies({ requestBody: Buffer.alloc(300, 'a') }) }));
      await expect.poll(() => batches().length).toBeGreaterThan(before);
      return batches().at(-1);
    };

    expect(await postAndWait('first')).toBe('batch withBodies=true bodiesCarried=true');
    expect(client.behindReason).toBeNull();
    expect(await postAndWait('behind')).toBe('batch withBodies=false bodiesCarried=false');
    expect(client.behindReason).toBe(BEHIND_REASON);

    await client.flush();
    expect(await postAndWait('caught up')).toBe('batch withBodies=true bodiesCarried=true');
    expect(client.behindReason).toBeNull();
    await client.close();
  });
});
