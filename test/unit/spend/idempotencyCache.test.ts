import { afterEach, describe, expect, it, vi } from 'vitest';
import { IdempotencyCache, type FirstResponse, type IdempotencyClaim } from '../../../proxy/spend/idempotencyCache.ts';

const response = (status: number, body = '{"id":"task-1"}', extra: Partial<FirstResponse> = {}): FirstResponse => ({
  status,
  headers: { 'content-type': 'application/json', 'x-request-id': 'req-1', 'set-cookie': 'a=b', 'content-length': String(body.length) },
  body: Buffer.from(body),
  bodyTruncated: false,
  ...extra,
});

function first(claim: IdempotencyClaim) {
  if (claim.kind !== 'first') throw new Error(`expected first, got ${claim.kind}`);
  return claim.ticket;
}

describe('IdempotencyCache', () => {
  it('replays the first response with allowlisted headers and a replay marker', async () => {
    const cache = new IdempotencyCache();
    first(await cache.claim('work', 'k1', 'alk_1')).complete(response(200));
    const repeat = await cache.claim('work', 'k1', 'alk_1');
    expect(repeat).toEqual({
      kind: 'replay',
      response: {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-request-id': 'req-1', 'x-airlock-idempotent-replay': 'true' },
        body: Buffer.from('{"id":"task-1"}'),
      },
    });
  });

  it('scopes keys per profile', async () => {
    const cache = new IdempotencyCache();
    first(await cache.claim('work', 'k1', 'alk_1')).complete(response(200));
    expect((await cache.claim('home', 'k1', 'alk_1')).kind).toBe('first');
  });

  it.each([200, 202, 502, 504])('keeps a completed first answered %i for the repeat', async (status) => {
    const cache = new IdempotencyCache();
    first(await cache.claim('work', 'k', 'alk_1')).complete(response(status));
    expect((await cache.claim('work', 'k', 'alk_1')).kind).toBe('replay');
  });

  it('forgets an abandoned first (it certainly did not run), so the repeat is sent', async () => {
    const cache = new IdempotencyCache();
    first(await cache.claim('work', 'k', 'alk_1')).abandon();
    expect((await cache.claim('work', 'k', 'alk_1')).kind).toBe('first');
  });

  it.each([
    { name: 'body over the limit', body: 'x'.repeat(11), truncated: false },
    { name: 'capture truncated', body: 'x', truncated: true },
  ])('refuses with 409 instead of resending when the first response was not kept: $name', async ({ body, truncated }) => {
    const cache = new IdempotencyCache({ maxBodyBytes: 10 });
    first(await cache.claim('work', 'k', 'alk_1')).complete(response(200, body, { bodyTruncated: truncated }));
    const repeat = await cache.claim('work', 'k', 'alk_1');
    expect(repeat).toMatchObject({ kind: 'refused', refusal: { status: 409, code: 'idempotency_key_reused' } });
  });

  it('expires after the window', async () => {
    let nowMs = 0;
    const cache = new IdempotencyCache({ windowMs: 1000 }, { nowMs: () => nowMs });
    first(await cache.claim('work', 'k', 'alk_1')).complete(response(200));
    nowMs = 999;
    expect((await cache.claim('work', 'k', 'alk_1')).kind).toBe('replay');
    nowMs = 1000;
    expect((await cache.claim('work', 'k', 'alk_1')).kind).toBe('first');
  });

  it('a repeat waits for the in-flight first and gets its response', async () => {
    const cache = new IdempotencyCache();
    const ticket = first(await cache.claim('work', 'k', 'alk_1'));
    const repeats = [cache.claim('work', 'k', 'alk_1'), cache.claim('work', 'k', 'alk_1')];
    ticket.complete(response(200));
    expect((await Promise.all(repeats)).map((claim) => claim.kind)).toEqual(['replay', 'replay']);
  });

  it('a repeat bounded in its wait still gets the answer that comes within it', async () => {
    const cache = new IdempotencyCache();
    const ticket = first(await cache.claim('work', 'k', 'alk_1'));
    const repeat = cache.claim('work', 'k', 'alk_2', { maxWaitMs: 60_000 });
    ticket.complete(response(200));
    expect((await repeat).kind).toBe('replay');
  });

  describe('a repeat while the first still runs', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('is refused with 409 once it waited its limit, naming the first and what to do', async () => {
      vi.useFakeTimers();
      const cache = new IdempotencyCache();
      const ticket = first(await cache.claim('work', 'k', 'alk_first'));
      const repeat = cache.claim('work', 'k', 'alk_repeat', { maxWaitMs: 60_000 });
      await vi.advanceTimersByTimeAsync(59_999);
      ticket.complete(response(200));
      expect((await repeat).kind).toBe('replay');

      const second = first(await cache.claim('work', 'k2', 'alk_second'));
      const late = cache.claim('work', 'k2', 'alk_late', { maxWaitMs: 60_000 });
      await vi.advanceTimersByTimeAsync(60_000);
      expect(await late).toMatchObject({
        kind: 'refused',
        refusal: {
          status: 409,
          code: 'idempotency_key_in_progress',
          message: expect.stringMatching(/\(alk_second\) is still running.*waited 60 s/),
        },
      });
      // The first is still the first: its answer goes to the repeats after.
      second.complete(response(200, 'task'));
      const after = await cache.claim('work', 'k2', 'alk_after');
      expect(after.kind === 'replay' && after.response.body.toString()).toBe('task');
    });

    it('stops waiting when its own client leaves', async () => {
      const cache = new IdempotencyCache();
      first(await cache.claim('work', 'k', 'alk_first'));
      const clientGone = new AbortController();
      const repeat = cache.claim('work', 'k', 'alk_repeat', { maxWaitMs: 60_000, signal: clientGone.signal });
      clientGone.abort();
      expect((await repeat).kind).toBe('refused');
    });
  });

  it('refuses, never sends, a keyed creation whose record cannot be read (app/keyedCreations.ts words the refusal for a damaged log)', async () => {
    const errors: unknown[] = [];
    const unreadable = {
      find: () => {
        throw new Error('database disk image is malformed');
      },
      begin: () => undefined,
      settle: () => undefined,
      forget: () => undefined,
      prune: () => undefined,
    };
    const cache = new IdempotencyCache({}, { store: unreadable, onStoreError: (error) => errors.push(error) });
    expect(await cache.claim('work', 'k', 'alk_1')).toMatchObject({
      kind: 'refused',
      refusal: {
        status: 503,
        code: 'idempotency_key_unverifiable',
        message: expect.stringMatching(/could not read.*same idempotency key.*new key/),
      },
    });
    expect(errors).toHaveLength(1);
  });

  it('when the first is abandoned exactly one waiter becomes the new first', async () => {
    const cache = new IdempotencyCache();
    const ticket = first(await cache.claim('work', 'k', 'alk_1'));
    const waiting = [cache.claim('work', 'k', 'alk_1'), cache.claim('work', 'k', 'alk_1'), cache.claim('work', 'k', 'alk_1')];
    ticket.abandon();
    const [newFirst, ...others] = waiting;
    first(await newFirst!).complete(response(201));
    expect((await Promise.all(others)).map((claim) => claim.kind)).toEqual(['replay', 'replay']);
  });

  it('a ticket settles once', async () => {
    const cache = new IdempotencyCache();
    const ticket = first(await cache.claim('work', 'k', 'alk_1'));
    ticket.complete(response(200, 'first'));
    ticket.abandon();
    ticket.complete(response(200, 'second'));
    const repeat = await cache.claim('work', 'k', 'alk_1');
    expect(repeat.kind === 'replay' && repeat.response.body.toString()).toBe('first');
  });

  it('evicts least recently used entries by count', async () => {
    const cache = new IdempotencyCache({ maxEntries: 2 });
    for (const key of ['a', 'b']) first(await cache.claim('p', key, 'alk_1')).complete(response(200, key));
    expect((await cache.claim('p', 'a', 'alk_1')).kind).toBe('replay');
    first(await cache.claim('p', 'c', 'alk_1')).complete(response(200, 'c'));
    expect(cache.size).toBe(2);
    expect((await cache.claim('p', 'a', 'alk_1')).kind).toBe('replay');
    expect((await cache.claim('p', 'b', 'alk_1')).kind).toBe('first');
  });

  it('evicts by total bytes and keeps the byte count exact', async () => {
    const cache = new IdempotencyCache({ maxTotalBytes: 100 });
    first(await cache.claim('p', 'a', 'alk_1')).complete(response(200, 'x'.repeat(60)));
    first(await cache.claim('p', 'b', 'alk_1')).complete(response(200, 'y'.repeat(60)));
    expect(cache.size).toBe(1);
    expect(cache.totalBytes).toBe(60 + Buffer.byteLength('p\u0000b'));
    expect((await cache.claim('p', 'b', 'alk_1')).kind).toBe('replay');
  });

  it('never evicts an in-flight entry', async () => {
    const cache = new IdempotencyCache({ maxEntries: 1 });
    const ticket = first(await cache.claim('p', 'slow', 'alk_1'));
    first(await cache.claim('p', 'fast', 'alk_1')).complete(response(200));
    const repeatOfSlow = cache.claim('p', 'slow', 'alk_1');
    ticket.complete(response(200, 'slow'));
    const claim = await repeatOfSlow;
    expect(claim.kind === 'replay' && claim.response.body.toString()).toBe('slow');
  });

  describe('a key reused for another request', () => {
    const asked = (requestFingerprint: string) => ({ requestFingerprint });

    it.each([
      { name: 'answered', settle: (ticket: ReturnType<typeof first>) => ticket.complete(response(200)) },
      { name: 'of unknown outcome', settle: (ticket: ReturnType<typeof first>) => ticket.outcomeUnknown() },
      { name: 'still in flight', settle: () => undefined },
    ])('is refused with 422 naming the first when the first is $name', async ({ settle }) => {
      const cache = new IdempotencyCache();
      settle(first(await cache.claim('work', 'k', 'alk_first', asked('body-a'))));
      // Unbounded wait: a refusal that waited for the first in flight would never come.
      const other = await cache.claim('work', 'k', 'alk_other', asked('body-b'));
      expect(other).toMatchObject({ kind: 'refused', refusal: { status: 422, code: 'idempotency_key_reused_with_different_request' } });
      expect(other.kind === 'refused' && other.refusal.message).toContain('alk_first');
    });

    it('leaves the first request answered for its own repeat', async () => {
      const cache = new IdempotencyCache();
      first(await cache.claim('work', 'k', 'alk_1', asked('body-a'))).complete(response(200));
      await cache.claim('work', 'k', 'alk_2', asked('body-b'));
      expect((await cache.claim('work', 'k', 'alk_3', asked('body-a'))).kind).toBe('replay');
    });

    it('is not compared with a first kept without a fingerprint', async () => {
      const cache = new IdempotencyCache();
      first(await cache.claim('work', 'k', 'alk_1')).complete(response(200));
      expect((await cache.claim('work', 'k', 'alk_2', asked('body-b'))).kind).toBe('replay');
    });
  });
});
