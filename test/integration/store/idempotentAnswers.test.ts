import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IdempotencyCache, type FirstResponse, type IdempotencyClaim } from '../../../proxy/spend/idempotencyCache.ts';
import type { RequestLog } from '../../../proxy/store/requestLog.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';
import { openTempLog, type TempLog } from './tempLog.ts';

const answer = (status: number, body: string | Buffer, extra: Partial<FirstResponse> = {}): FirstResponse => ({
  status,
  headers: { 'content-type': 'application/json', 'x-request-id': 'up-1', 'set-cookie': 'a=b' },
  body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  bodyTruncated: false,
  ...extra,
});

function first(claim: IdempotencyClaim) {
  if (claim.kind !== 'first') throw new Error(`expected first, got ${claim.kind}`);
  return claim.ticket;
}

let temp: TempLog | null = null;
afterEach(async () => {
  await temp?.cleanup();
  temp = null;
});

/** One Airlock run: a cache over the log's store, as startAirlock builds it. */
function cacheOver(
  log: RequestLog,
  nowMs = () => 1_000_000,
  options: ConstructorParameters<typeof IdempotencyCache>[0] = {},
): IdempotencyCache {
  return new IdempotencyCache(options, {
    nowMs,
    store: log.idempotencyStore,
    onStoreError: (error) => {
      throw error;
    },
  });
}

async function restarted(): Promise<RequestLog> {
  if (!temp) throw new Error('no log open');
  await temp.log.close();
  return temp.reopen({ knownSecrets: () => [SENTINEL_KEY] });
}

describe('idempotent answers kept in the request log database', () => {
  it('answers a repeat after a restart with the first answer, byte for byte', async () => {
    temp = openTempLog({ knownSecrets: () => [SENTINEL_KEY] });
    first(await cacheOver(temp.log).claim('main', 'task-1', 'alk_first')).complete(answer(200, '{"data":[{"url":"https://x/1.png"}]}'));

    const repeat = await cacheOver(await restarted()).claim('main', 'task-1', 'alk_repeat');
    expect(repeat).toEqual({
      kind: 'replay',
      response: {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-request-id': 'up-1', 'x-airlock-idempotent-replay': 'true' },
        body: Buffer.from('{"data":[{"url":"https://x/1.png"}]}'),
      },
    });
  });

  it('refuses a repeat whose first request was in flight when the run stopped, naming that request', async () => {
    temp = openTempLog();
    first(await cacheOver(temp.log).claim('main', 'task-2', 'alk_lost'));

    const repeat = await cacheOver(await restarted()).claim('main', 'task-2', 'alk_repeat');
    expect(repeat).toMatchObject({ kind: 'refused', refusal: { status: 409, code: 'idempotency_key_reused' } });
    expect(repeat.kind === 'refused' && repeat.refusal.message).toContain('alk_lost');
  });

  it('refuses a key reused for another request after a restart, and replays the same request', async () => {
    temp = openTempLog();
    first(await cacheOver(temp.log).claim('main', 'task-3', 'alk_first', { requestFingerprint: 'body-a' })).complete(answer(200, '{}'));
    const cache = cacheOver(await restarted());
    const other = await cache.claim('main', 'task-3', 'alk_other', { requestFingerprint: 'body-b' });
    expect(other).toMatchObject({ kind: 'refused', refusal: { status: 422, code: 'idempotency_key_reused_with_different_request' } });
    expect((await cache.claim('main', 'task-3', 'alk_same', { requestFingerprint: 'body-a' })).kind).toBe('replay');
  });

  it.each([
    { name: 'a first that certainly did not run (never accepted, or refused with a 4xx) is forgotten', settle: 'abandoned', next: 'first' },
    { name: 'an answer too large to keep is refused after a restart', settle: 'too_large', next: 'refused' },
  ])('$name', async ({ settle, next }) => {
    temp = openTempLog();
    const ticket = first(await cacheOver(temp.log, () => 1_000_000, { maxBodyBytes: 10 }).claim('main', 'k', 'alk_1'));
    if (settle === 'abandoned') ticket.abandon();
    if (settle === 'too_large') ticket.complete(answer(200, 'x'.repeat(11)));
    expect((await cacheOver(await restarted()).claim('main', 'k', 'alk_2')).kind).toBe(next);
  });

  it('keeps keys apart per profile and sends again once the window has passed', async () => {
    temp = openTempLog();
    first(await cacheOver(temp.log, () => 1_000).claim('main', 'k', 'alk_1')).complete(answer(200, '{}'));
    const log = await restarted();
    expect((await cacheOver(log, () => 1_500, { windowMs: 1_000 }).claim('other', 'k', 'alk_2')).kind).toBe('first');
    expect((await cacheOver(log, () => 1_500, { windowMs: 1_000 }).claim('main', 'k', 'alk_3')).kind).toBe('replay');
    expect((await cacheOver(log, () => 2_000, { windowMs: 1_000 }).claim('main', 'k', 'alk_4')).kind).toBe('first');
  });

  it('drops the oldest answers once their bodies pass the byte limit', async () => {
    temp = openTempLog();
    let nowMs = 1_000;
    const cache = cacheOver(temp.log, () => nowMs, { maxTotalBytes: 100 });
    for (const key of ['a', 'b', 'c']) {
      nowMs += 1;
      first(await cache.claim('main', key, `alk_${key}`)).complete(answer(200, key.repeat(40)));
    }
    const log = await restarted();
    const kinds = await Promise.all(
      ['a', 'b', 'c'].map(async (key) => (await cacheOver(log, () => nowMs).claim('main', key, 'alk_x')).kind),
    );
    expect(kinds).toEqual(['first', 'replay', 'replay']);
  });

  it('keeps no answer that holds a known secret in any form, text or binary, and refuses its repeat', async () => {
    temp = openTempLog({ knownSecrets: () => [SENTINEL_KEY] });
    const cache = cacheOver(temp.log);
    const answers = {
      text: answer(200, `{"revised_prompt":"${SENTINEL_KEY}"}`),
      header: answer(200, '{}', { headers: { 'x-request-id': encodeURIComponent(SENTINEL_KEY) } }),
      binary: answer(200, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(Buffer.from(SENTINEL_KEY).toString('base64'))])),
      // Looks like a token but is no known secret: kept exactly, never masked, or the replay would differ.
      lookalike: answer(200, '{"url":"https://x/9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c.png"}'),
    };
    for (const [key, first_] of Object.entries(answers)) first(await cache.claim('main', key, `alk_${key}`)).complete(first_);
    await temp.log.close();
    const files = ['requests.db', 'requests.db-wal'].map((name) => join(temp?.dataDir ?? '', name)).filter((file) => existsSync(file));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(findSentinel(readFileSync(file))).toBeNull();

    const log = temp.reopen({ knownSecrets: () => [SENTINEL_KEY] });
    const kinds = await Promise.all(Object.keys(answers).map(async (key) => (await cacheOver(log).claim('main', key, 'alk_again')).kind));
    expect(kinds).toEqual(['refused', 'refused', 'refused', 'replay']);
    const lookalike = await cacheOver(log).claim('main', 'lookalike', 'alk_again');
    expect(lookalike.kind === 'replay' && lookalike.response.body.equals(answers.lookalike.body)).toBe(true);
  });

  it('holds no answer in memory once the store keeps it: a burst of large keyed answers is replayed from the log, and memory returns', async () => {
    temp = openTempLog();
    const cache = cacheOver(temp.log);
    const image = (index: number) => Buffer.alloc(3 * 1024 * 1024, index);
    for (let index = 0; index < 6; index += 1)
      first(await cache.claim('main', `image-${index}`, `alk_${index}`)).complete(answer(200, image(index)));
    expect(cache.size).toBe(0);
    expect(cache.totalBytes).toBe(0);
    for (let index = 0; index < 6; index += 1) {
      const repeat = await cache.claim('main', `image-${index}`, `alk_repeat_${index}`);
      expect(repeat.kind === 'replay' && repeat.response.body.equals(image(index))).toBe(true);
    }
    expect(cache.totalBytes).toBe(0);
  });

  it('goes on from memory when the store cannot write (a busy or full log), and reports the failure', async () => {
    temp = openTempLog();
    const failures: unknown[] = [];
    const store = temp.log.idempotencyStore;
    const busy = (): never => {
      throw new Error('database is locked');
    };
    const writesFail = { find: store.find.bind(store), begin: busy, settle: busy, forget: busy, prune: busy };
    const cache = new IdempotencyCache({}, { store: writesFail, onStoreError: (error) => failures.push(error) });
    first(await cache.claim('main', 'k', 'alk_1')).complete(answer(200, '{}'));
    expect(cache.totalBytes).toBeGreaterThan(0);
    expect((await cache.claim('main', 'k', 'alk_2')).kind).toBe('replay');
    expect(failures.length).toBeGreaterThan(0);
  });

  it('refuses rather than sends a keyed creation when the store cannot be read', async () => {
    temp = openTempLog();
    const failures: unknown[] = [];
    const cache = new IdempotencyCache({}, { store: temp.log.idempotencyStore, onStoreError: (error) => failures.push(error) });
    await temp.log.close();
    expect(await cache.claim('main', 'k', 'alk_1')).toMatchObject({
      kind: 'refused',
      refusal: { status: 503, code: 'idempotency_key_unverifiable' },
    });
    expect(failures).toHaveLength(1);
  });
});
