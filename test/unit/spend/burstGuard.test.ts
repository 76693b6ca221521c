import { describe, expect, it } from 'vitest';
import { ANONYMOUS_CLIENT, BurstGuard, burstGuardOptionsFrom, UNREACHABLE_REQUEST_COUNT } from '../../../proxy/spend/burstGuard.ts';
import { commandHint } from '../../../proxy/contracts/cli.ts';

const T0 = 1_000_000;

function sendRequests(guard: BurstGuard, client: string, count: number, startMs: number, stepMs: number): (string | null)[] {
  return Array.from({ length: count }, (_, index) => guard.admit(client, startMs + index * stepMs)?.errorClass ?? null);
}

describe('BurstGuard by request count', () => {
  it.each([
    { name: 'at the limit', count: 3, stepMs: 1000, refusedFrom: null },
    { name: 'one over the limit within the window', count: 4, stepMs: 1000, refusedFrom: 3 },
    { name: 'spread beyond the window', count: 10, stepMs: 30_001, refusedFrom: null },
  ])('$name', ({ count, stepMs, refusedFrom }) => {
    const guard = new BurstGuard({ maxRequests: 3, windowMs: 60_000 });
    const results = sendRequests(guard, 'cursor', count, T0, stepMs);
    const firstRefused = results.indexOf('client_paused');
    expect(firstRefused === -1 ? null : firstRefused).toBe(refusedFrom);
  });

  it('pauses only the offending client, stays paused after the window, until resumed', () => {
    const guard = new BurstGuard({ maxRequests: 2 });
    sendRequests(guard, 'agent', 3, T0, 10);
    expect(guard.admit('other', T0 + 100)).toBeNull();
    const refusal = guard.admit('agent', T0 + 3_600_000);
    expect(refusal).toMatchObject({ status: 403, errorClass: 'client_paused' });
    expect(refusal?.message).toContain("client 'agent'");
    expect(refusal?.message).toContain('3 requests within 60 s (limit 2)');
    expect(refusal?.message).toContain('`npx airlock resume agent`');
    expect(guard.pausedClients().map((pause) => pause.clientName)).toEqual(['agent']);

    expect(guard.resume('agent')).toBe(true);
    expect(guard.resume('agent')).toBe(false);
    expect(guard.pausedRefusal('agent')).toBeNull();
    expect(sendRequests(guard, 'agent', 2, T0 + 3_600_001, 1)).toEqual([null, null]);
  });

  it("names resume as the Airlock that paused the client is reached: its port and data directory, the client's name quoted", () => {
    const guard = new BurstGuard({ maxRequests: 0 }, commandHint('/data/second', { port: () => 9100 }));
    expect(guard.admit('my agent', T0)?.message).toContain("`npx airlock resume 'my agent' --port 9100 --data-dir /data/second`");
  });

  it("quotes the client's name for the hint's shell: double quotes on Windows", () => {
    const guard = new BurstGuard({ maxRequests: 0 }, commandHint('C:\\Airlock B', { port: () => 9100, shell: 'windows' }));
    expect(guard.admit('my agent', T0)?.message).toContain('`npx airlock resume "my agent" --port 9100 --data-dir "C:\\Airlock B"`');
  });

  it('the anonymous client is told to resume in the window', () => {
    const guard = new BurstGuard({ maxRequests: 0 });
    expect(guard.admit(ANONYMOUS_CLIENT, T0)?.message).toContain('Resume it in the Airlock window.');
  });
});

describe('BurstGuard by credits', () => {
  it.each([
    { name: 'under the limit', spends: [1, 2, 1.9], gapMs: 1000, paused: false },
    { name: 'over the limit within the window', spends: [2, 2, 1.01], gapMs: 1000, paused: true },
    { name: 'old spend leaves the window', spends: [3, 3], gapMs: 60_000, paused: false },
    { name: 'unpriced requests never count', spends: [null, null, null], gapMs: 1, paused: false },
  ])('$name', ({ spends, gapMs, paused }) => {
    const guard = new BurstGuard({ maxCredits: 5 });
    for (const [index, credits] of spends.entries()) guard.recordCredits('cursor', credits, T0 + index * gapMs);
    const refusal = guard.admit('cursor', T0 + spends.length * gapMs);
    expect(refusal?.errorClass ?? null).toBe(paused ? 'client_paused' : null);
  });

  it('names the credits in the refusal', () => {
    const guard = new BurstGuard({ maxCredits: 5 });
    guard.recordCredits('cursor', 5.5, T0);
    expect(guard.pausedRefusal('cursor')?.message).toContain('5.5 credits within 60 s (limit 5)');
  });
});

describe('BurstGuard by credits, a running request counted as it spends', () => {
  type Step =
    | { soFar: number; atMs: number; request?: string }
    | { cost: number | null; atMs: number; request?: string }
    | { spend: number; atMs: number }
    | { resume: true; atMs: number };
  it.each<{ name: string; steps: Step[]; paused: boolean }>([
    {
      name: 'two running streams together past the limit: paused before either ends',
      steps: [
        { soFar: 2, atMs: 0, request: 'a' },
        { soFar: 2, atMs: 0, request: 'b' },
        { soFar: 3.5, atMs: 1000, request: 'a' },
      ],
      paused: true,
    },
    {
      name: 'its cost replaces the estimate: not counted twice',
      steps: [
        { soFar: 3, atMs: 0 },
        { cost: 3, atMs: 1000 },
        { spend: 1.5, atMs: 2000 },
      ],
      paused: false,
    },
    {
      name: 'an estimate above the cost is taken back at the end',
      steps: [
        { soFar: 4, atMs: 0 },
        { cost: 2, atMs: 1000 },
        { spend: 2.5, atMs: 2000 },
      ],
      paused: false,
    },
    {
      name: 'a cost above the estimate adds the rest',
      steps: [
        { soFar: 2, atMs: 0 },
        { cost: 5.5, atMs: 1000 },
      ],
      paused: true,
    },
    {
      name: 'no cost at the end takes the estimate back (as on its row)',
      steps: [
        { soFar: 4, atMs: 0 },
        { cost: null, atMs: 1000 },
        { spend: 4.5, atMs: 2000 },
      ],
      paused: false,
    },
    {
      name: 'a long stream spending under the rate: its growth leaves the window as it ages',
      steps: [
        ...Array.from({ length: 10 }, (_, minute) => ({ soFar: (minute + 1) * 0.6, atMs: minute * 60_000 })),
        { cost: 6, atMs: 600_000 },
      ],
      paused: false,
    },
    {
      // The estimate's first minutes left the window; taking all of its excess back made the window
      // negative, and the next minute's 5.5 credits (over the limit of 5) went out unpaused.
      name: 'an over-estimate outliving the window takes back only what is still in it',
      steps: [
        ...Array.from({ length: 10 }, (_, minute) => ({ soFar: (minute + 1) * 0.6, atMs: minute * 60_000 })),
        { cost: 3, atMs: 600_000 },
        { spend: 5.5, atMs: 610_000 },
      ],
      paused: true,
    },
    {
      name: 'an over-estimate counted before a resume takes nothing back from the window after it',
      steps: [
        { soFar: 5.5, atMs: 0 },
        { resume: true, atMs: 1000 },
        { cost: 1, atMs: 2000 },
        { spend: 5.5, atMs: 3000 },
      ],
      paused: true,
    },
  ])('$name', ({ steps, paused }) => {
    const guard = new BurstGuard({ maxCredits: 5 });
    for (const step of steps) {
      if ('soFar' in step) guard.spentSoFar('agent', step.request ?? 'a', step.soFar, T0 + step.atMs);
      else if ('cost' in step) guard.recordCredits('agent', step.cost, T0 + step.atMs, step.request ?? 'a');
      else if ('resume' in step) guard.resume('agent');
      else guard.recordCredits('agent', step.spend, T0 + step.atMs);
    }
    expect(guard.pausedRefusal('agent')?.errorClass ?? null).toBe(paused ? 'client_paused' : null);
  });
});

describe('BurstGuard with limits read at each request', () => {
  it('applies a raised limit to the next request, and keeps a pause once made', () => {
    let maxRequests = 1;
    const guard = new BurstGuard(() => ({ maxRequests }));
    expect(guard.admit('agent', 0)).toBeNull();
    maxRequests = 2;
    expect(guard.admit('agent', 1)).toBeNull();
    expect(guard.admit('agent', 2)?.message).toContain('3 requests within 60 s (limit 2)');
    maxRequests = 100;
    expect(guard.admit('agent', 3)?.errorClass).toBe('client_paused');
  });

  // A limit no count reaches keeps no request times: a limit lowered afterwards counts only what
  // follows its edit. A reachable limit keeps them all, so the same lowering pauses the client.
  it.each([
    { name: 'Infinity, the count turned off', limits: [Number.POSITIVE_INFINITY], paused: false },
    { name: 'the longest array’s length', limits: [UNREACHABLE_REQUEST_COUNT], paused: false },
    { name: 'one below it, reachable', limits: [UNREACHABLE_REQUEST_COUNT - 1], paused: true },
    { name: 'raised past reach: the times held so far go', limits: [10, Number.POSITIVE_INFINITY], paused: false },
    { name: 'raised within reach', limits: [10, 1000], paused: true },
  ])('a limit no count reaches, then lowered to 2: $name', ({ limits, paused }) => {
    let maxRequests = 2;
    const guard = new BurstGuard(() => ({ maxRequests }));
    for (const [phase, limit] of limits.entries()) {
      maxRequests = limit;
      expect(sendRequests(guard, 'agent', 3, T0 + phase * 100, 10)).toEqual([null, null, null]);
    }
    maxRequests = 2;
    expect(guard.admit('agent', T0 + 1_000)?.errorClass ?? null).toBe(paused ? 'client_paused' : null);
  });

  it('takes the config file’s per-minute limits', () => {
    expect(burstGuardOptionsFrom({ maxRequestsPerMinute: 300, maxCreditsPerMinute: 12.5 })).toEqual({
      windowMs: 60_000,
      maxRequests: 300,
      maxCredits: 12.5,
    });
  });
});

/** A wall clock set back (NTP, a wrong clock fixed at resume): times stamped before the step are ahead of every later one. */
describe('BurstGuard with the clock set back an hour', () => {
  const HOUR_MS = 3_600_000;

  it('counts a client at its usual pace from the step, not against requests it made before', () => {
    const guard = new BurstGuard({ maxRequests: 3, windowMs: 60_000 });
    expect(sendRequests(guard, 'agent', 3, T0 + HOUR_MS, 30_000)).toEqual([null, null, null]);
    // One request every 30 s after the step: never more than 2 in a minute.
    expect(sendRequests(guard, 'agent', 6, T0, 30_000)).toEqual([null, null, null, null, null, null]);
  });

  it('still pauses a burst after the step', () => {
    const guard = new BurstGuard({ maxRequests: 3, windowMs: 60_000 });
    sendRequests(guard, 'agent', 2, T0 + HOUR_MS, 1000);
    expect(sendRequests(guard, 'agent', 4, T0, 1000)).toEqual([null, null, null, 'client_paused']);
  });

  it('lets credits spent before the step leave the window', () => {
    const guard = new BurstGuard({ maxCredits: 5 });
    guard.recordCredits('agent', 4, T0 + HOUR_MS);
    guard.recordCredits('agent', 4, T0 + 61_000);
    expect(guard.admit('agent', T0 + 62_000)).toBeNull();
  });
});
