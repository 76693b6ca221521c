import { describe, expect, it } from 'vitest';
import { isLocalRefusal, type KeyLease, type LocalRefusal } from '../../../proxy/contracts/ports.ts';
import { KeyPools, selectKey, type KeyHealth, type Selection } from '../../../proxy/spend/keyPool.ts';
import { commandHint } from '../../../proxy/contracts/cli.ts';

const NOW = 1_000_000;
const READY: KeyHealth = { coolingUntilMs: 0, rejectedUntilMs: null };
const cooling = (untilMs: number): KeyHealth => ({ coolingUntilMs: untilMs, rejectedUntilMs: null });
const rejected = (untilMs: number): KeyHealth => ({ coolingUntilMs: 0, rejectedUntilMs: untilMs });

describe('selectKey', () => {
  it.each<{ name: string; keys: KeyHealth[]; start: number; tried?: number[]; expected: Selection }>([
    { name: 'takes the key in turn', keys: [READY, READY, READY], start: 1, expected: { kind: 'key', index: 1 } },
    { name: 'wraps around the end of the pool', keys: [READY, READY], start: 2, expected: { kind: 'key', index: 0 } },
    { name: 'skips a key cooling after a 429', keys: [READY, cooling(NOW + 5000), READY], start: 1, expected: { kind: 'key', index: 2 } },
    { name: 'uses a key whose Retry-After has passed', keys: [cooling(NOW), READY], start: 0, expected: { kind: 'key', index: 0 } },
    { name: 'skips a rejected key', keys: [rejected(NOW + 30_000), READY], start: 0, expected: { kind: 'key', index: 1 } },
    {
      name: 'tries a rejected key again once its breaker cooldown ended',
      keys: [rejected(NOW - 1), READY],
      start: 0,
      expected: { kind: 'key', index: 0 },
    },
    { name: 'never a key this request already tried', keys: [READY, READY], start: 0, tried: [0], expected: { kind: 'key', index: 1 } },
    {
      name: 'all cooling: says when the first one frees',
      keys: [cooling(NOW + 9000), cooling(NOW + 2000), cooling(NOW + 4000)],
      start: 0,
      expected: { kind: 'none', coolingKeys: 3, rejectedKeys: 0, earliestFreeAtMs: NOW + 2000, earliestFreeIndex: 1 },
    },
    {
      name: 'cooling and rejected: the rejected one never counts as freeing',
      keys: [rejected(NOW + 1000), cooling(NOW + 7000)],
      start: 0,
      expected: { kind: 'none', coolingKeys: 1, rejectedKeys: 1, earliestFreeAtMs: NOW + 7000, earliestFreeIndex: 1 },
    },
    {
      name: 'all rejected: nothing frees by waiting',
      keys: [rejected(NOW + 1000), rejected(NOW + 2000)],
      start: 1,
      expected: { kind: 'none', coolingKeys: 0, rejectedKeys: 2, earliestFreeAtMs: null, earliestFreeIndex: null },
    },
    {
      name: 'tried and cooling after its 429: the pool is spent for this request',
      keys: [cooling(NOW + 3000), READY],
      start: 0,
      tried: [1],
      expected: { kind: 'none', coolingKeys: 1, rejectedKeys: 0, earliestFreeAtMs: NOW + 3000, earliestFreeIndex: 0 },
    },
  ])('$name', ({ keys, start, tried = [], expected }) => {
    expect(selectKey({ keys, startIndex: start, nowMs: NOW, tried: new Set(tried) })).toEqual(expected);
  });
});

const PROFILE = { id: 'work', name: 'Work' };
const KEYS = [
  { id: 'main', label: 'first', apiKey: 'sk-first-0000000000000001' },
  { id: 'b2', label: 'second', apiKey: 'sk-second-000000000000002' },
  { id: 'c3', label: 'third', apiKey: 'sk-third-0000000000000003' },
];

function lease(pools: KeyPools, nowMs: number): KeyLease {
  const result = pools.lease(PROFILE, KEYS, nowMs);
  if (isLocalRefusal(result)) throw new Error(`refused: ${result.message}`);
  return result;
}

function refusal(pools: KeyPools, nowMs: number): LocalRefusal {
  const result = pools.lease(PROFILE, KEYS, nowMs);
  if (!isLocalRefusal(result)) throw new Error(`leased ${result.current.keyId}`);
  return result;
}

describe('KeyPools', () => {
  it('gives the keys in turn across requests', () => {
    const pools = new KeyPools();
    expect([0, 1, 2, 3].map((step) => lease(pools, NOW + step).current.label)).toEqual(['first', 'second', 'third', 'first']);
  });

  it('after a 429 the request moves on to the next key, and later requests skip the cooling one until its Retry-After', () => {
    const pools = new KeyPools();
    const first = lease(pools, NOW);
    first.record({ kind: 'rate_limited', cooldownMs: 10_000 }, NOW);
    const moved = first.next(NOW);
    expect(isLocalRefusal(moved) ? moved.errorClass : moved.label).toBe('second');
    expect([lease(pools, NOW + 1).current.label, lease(pools, NOW + 2).current.label]).toEqual(['third', 'second']);
    expect(pools.stateOf('work', 'main', NOW + 3)).toEqual({ state: 'cooling', untilMs: NOW + 10_000 });
    expect(pools.stateOf('work', 'main', NOW + 10_000)).toEqual({ state: 'ready' });
  });

  it("a clock set back an hour does not stretch a key's rest past its Retry-After from the step", () => {
    const pools = new KeyPools();
    lease(pools, NOW).record({ kind: 'rate_limited', cooldownMs: 10_000 }, NOW);
    const steppedBack = NOW - 3_600_000;
    expect(pools.stateOf('work', 'main', steppedBack)).toEqual({ state: 'cooling', untilMs: steppedBack + 10_000 });
    expect(pools.stateOf('work', 'main', steppedBack + 10_000)).toEqual({ state: 'ready' });
    expect([0, 1, 2].map((step) => lease(pools, steppedBack + 10_000 + step).current.label)).toContain('first');
  });

  it("names the key commands as the Airlock that refuses names them: a second data directory's keys are set there", () => {
    const pools = new KeyPools({}, commandHint('/data/second').command);
    for (const step of [0, 1, 2]) lease(pools, NOW + step).record({ kind: 'rate_limited', cooldownMs: 10_000 }, NOW + step);
    const cooling = refusal(pools, NOW + 3);
    expect(cooling.message).toContain('`npx airlock key add work --data-dir /data/second`');
  });

  it('all keys cooling: a 429 refusal with the seconds until the first frees, naming it', () => {
    const pools = new KeyPools();
    const cooldowns = [30_000, 4_500, 12_000];
    for (const cooldownMs of cooldowns) lease(pools, NOW).record({ kind: 'rate_limited', cooldownMs }, NOW);
    const refused = refusal(pools, NOW + 500);
    expect(refused).toMatchObject({ status: 429, errorClass: 'keys_cooling', headers: { 'retry-after': '4' } });
    expect(refused.message).toContain('"second"');
    expect(refused.message).toContain('airlock key add work');
  });

  it('a rejected key is skipped by its own breaker while the others serve, and probed once after the cooldown', () => {
    const pools = new KeyPools({ initialCooldownMs: 30_000 });
    const first = lease(pools, NOW);
    first.record({ kind: 'rejected', status: 401 }, NOW);
    expect(pools.stateOf('work', 'main', NOW)).toEqual({ state: 'rejected', status: 401, retryAtMs: NOW + 30_000 });
    const served = [1, 2, 3, 4].map((step) => lease(pools, NOW + step).current.label);
    expect(served).toEqual(['second', 'third', 'second', 'third']);
    // Cooldown over: the rejected key gets one probe, then is skipped while the probe runs.
    const afterCooldown = [0, 1, 2].map((step) => lease(pools, NOW + 30_000 + step).current.label);
    expect(afterCooldown.filter((label) => label === 'first')).toHaveLength(1);
  });

  it('every key rejected: a 403 that no client retries, with the fix', () => {
    const pools = new KeyPools();
    for (let index = 0; index < KEYS.length; index += 1) lease(pools, NOW).record({ kind: 'rejected', status: 401 }, NOW);
    const refused = refusal(pools, NOW + 1);
    expect(refused).toMatchObject({ status: 403, errorClass: 'circuit_open', headers: { 'x-should-retry': 'false' } });
    expect(refused.message).toContain('airlock key set work --key');
  });

  it('a new secret for a rejected key is used at once, though nothing reset the key (the CLI set it in its own process)', () => {
    const pools = new KeyPools({ initialCooldownMs: 30_000 });
    const only = [{ id: 'main', label: 'first', apiKey: 'sk-revoked-00000000000001' }];
    const onOld = pools.lease(PROFILE, only, NOW);
    if (isLocalRefusal(onOld)) throw new Error(onOld.message);
    onOld.record({ kind: 'rejected', status: 401 }, NOW);
    expect(isLocalRefusal(pools.lease(PROFILE, only, NOW + 1))).toBe(true);
    const replaced = [{ ...only[0]!, apiKey: 'sk-replaced-0000000000002' }];
    const onNew = pools.lease(PROFILE, replaced, NOW + 2);
    expect(isLocalRefusal(onNew) ? onNew.errorClass : onNew.current.apiKey).toBe('sk-replaced-0000000000002');
    // The old secret's rejection, reported after the change by a request still running on it, stops nothing either.
    onOld.record({ kind: 'rejected', status: 401 }, NOW + 3);
    expect(isLocalRefusal(pools.lease(PROFILE, replaced, NOW + 4))).toBe(false);
  });

  it('a new secret for a key clears what the gateway said of the old one', () => {
    const pools = new KeyPools();
    lease(pools, NOW).record({ kind: 'rejected', status: 403 }, NOW);
    pools.resetKey('work', 'main');
    expect(pools.stateOf('work', 'main', NOW)).toEqual({ state: 'ready' });
  });
});
