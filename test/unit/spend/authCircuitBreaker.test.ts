import { describe, expect, it } from 'vitest';
import { AuthCircuitBreaker } from '../../../proxy/spend/authCircuitBreaker.ts';
import { commandHint, PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

const T0 = 5_000_000;
type Step = { at: number; admit: boolean } | { at: number; status: number; keyRejected?: boolean };

/** Runs a script of admissions and upstream outcomes; returns what each admission decided. */
function run(steps: Step[], breaker = new AuthCircuitBreaker()): boolean[] {
  const decisions: boolean[] = [];
  for (const step of steps) {
    if ('status' in step) {
      const keyRejected = step.keyRejected ?? step.status === 401;
      breaker.recordUpstreamOutcome({ profileId: 'work', status: step.status, keyRejected, atMs: T0 + step.at });
    } else decisions.push(breaker.admit('work', T0 + step.at) === null);
  }
  return decisions;
}

describe('AuthCircuitBreaker', () => {
  it.each<{ name: string; steps: Step[]; admitted: boolean[] }>([
    {
      name: 'closed lets everything through',
      steps: [
        { at: 0, admit: true },
        { at: 0, status: 200 },
        { at: 1, admit: true },
      ],
      admitted: [true, true],
    },
    {
      name: '429 and 500 do not open it',
      steps: [
        { at: 0, status: 429 },
        { at: 0, status: 500 },
        { at: 1, admit: true },
      ],
      admitted: [true],
    },
    {
      name: '401 opens it for 30 s',
      steps: [
        { at: 0, status: 401 },
        { at: 1, admit: true },
        { at: 29_999, admit: true },
      ],
      admitted: [false, false],
    },
    {
      name: 'a 403 with an invalid-key code opens it too',
      steps: [
        { at: 0, status: 403, keyRejected: true },
        { at: 1, admit: true },
      ],
      admitted: [false],
    },
    {
      name: 'a 403 for a closed model or an empty balance, or a 401 that is no rejected key, does not',
      steps: [
        { at: 0, status: 403, keyRejected: false },
        { at: 0, status: 401, keyRejected: false },
        { at: 1, admit: true },
      ],
      admitted: [true],
    },
    {
      name: 'after the cooldown exactly one probe goes through',
      steps: [
        { at: 0, status: 401 },
        { at: 30_000, admit: true },
        { at: 30_001, admit: true },
      ],
      admitted: [true, false],
    },
    {
      name: 'a successful probe closes it',
      steps: [
        { at: 0, status: 401 },
        { at: 30_000, admit: true },
        { at: 30_500, status: 200 },
        { at: 30_501, admit: true },
        { at: 30_502, admit: true },
      ],
      admitted: [true, true, true],
    },
    {
      name: 'a failed probe doubles the cooldown',
      steps: [
        { at: 0, status: 401 },
        { at: 30_000, admit: true },
        { at: 30_500, status: 401 },
        { at: 90_499, admit: true },
        { at: 90_500, admit: true },
      ],
      admitted: [true, false, true],
    },
    {
      name: 'in-flight 401s while open do not double it',
      steps: [
        { at: 0, status: 401 },
        { at: 10, status: 401 },
        { at: 20, status: 401 },
        { at: 30_000, admit: true },
      ],
      admitted: [true],
    },
    {
      name: 'a probe that never reports is replaced after a cooldown',
      steps: [
        { at: 0, status: 401 },
        { at: 30_000, admit: true },
        { at: 59_999, admit: true },
        { at: 60_000, admit: true },
      ],
      admitted: [true, false, true],
    },
  ])('$name', ({ steps, admitted }) => {
    expect(run(steps)).toEqual(admitted);
  });

  it('doubles up to the maximum', () => {
    const breaker = new AuthCircuitBreaker({ initialCooldownMs: 30_000, maxCooldownMs: 100_000 });
    let atMs = T0;
    breaker.recordUpstreamOutcome({ profileId: 'work', status: 401, keyRejected: true, atMs });
    const cooldowns: number[] = [];
    for (let probe = 0; probe < 4; probe += 1) {
      const state = breaker.stateOf('work');
      if (state.state !== 'open') throw new Error('expected open');
      cooldowns.push(state.cooldownMs);
      atMs = state.untilMs;
      expect(breaker.admit('work', atMs)).toBeNull();
      breaker.recordUpstreamOutcome({ profileId: 'work', status: 401, keyRejected: true, atMs });
    }
    expect(cooldowns).toEqual([30_000, 60_000, 100_000, 100_000]);
  });

  it('refuses at once with 403 circuit_open and no Retry-After, naming the profile and the fix for a stored key', () => {
    const breaker = new AuthCircuitBreaker();
    breaker.recordUpstreamOutcome({ profileId: 'work', status: 401, keyRejected: true, atMs: T0 });
    const refusal = breaker.admit('work', T0 + 10_500, {
      profileName: 'Work gateway',
      keyFromEnvironment: false,
      command: PLAIN_HINT.command,
    });
    expect(refusal).toMatchObject({ status: 403, errorClass: 'circuit_open', headers: { 'x-should-retry': 'false' } });
    expect(refusal?.headers).not.toHaveProperty('retry-after');
    expect(refusal?.message).toContain('rejected the key of profile "Work gateway" (work) with HTTP 401');
    expect(refusal?.message).toContain('`npx airlock key set work`');
  });

  it("names the fix's command as the Airlock that refuses names it: a second data directory's key is set there", () => {
    const breaker = new AuthCircuitBreaker();
    breaker.recordUpstreamOutcome({ profileId: 'work', status: 401, keyRejected: true, atMs: T0 });
    const command = commandHint('/data/second').command;
    const refusal = breaker.admit('work', T0 + 1, { profileName: 'Work gateway', keyFromEnvironment: false, command });
    expect(refusal?.message).toContain('`npx airlock key set work --data-dir /data/second`');
  });

  it('names AIRLOCK_API_KEY as the fix when the key came from the environment', () => {
    const breaker = new AuthCircuitBreaker();
    breaker.recordUpstreamOutcome({ profileId: 'command-line', status: 401, keyRejected: true, atMs: T0 });
    const refusal = breaker.admit('command-line', T0 + 1, {
      profileName: 'Command line (--base-url)',
      keyFromEnvironment: true,
      command: PLAIN_HINT.command,
    });
    expect(refusal?.message).toContain('AIRLOCK_API_KEY');
    expect(refusal?.message).not.toContain('key set');
  });

  it('is per profile, and a key change resets it', () => {
    const breaker = new AuthCircuitBreaker();
    breaker.recordUpstreamOutcome({ profileId: 'work', status: 401, keyRejected: true, atMs: T0 });
    expect(breaker.admit('home', T0 + 1)).toBeNull();
    expect(breaker.admit('work', T0 + 1)).not.toBeNull();
    breaker.reset('work');
    expect(breaker.admit('work', T0 + 2)).toBeNull();
    expect(breaker.stateOf('work')).toEqual({ state: 'closed' });
  });
});

/** A wall clock set back (NTP, a wrong RTC fixed at resume) must not stretch a wait past one cooldown from the step. */
describe('AuthCircuitBreaker with the clock set back a day', () => {
  const DAY_MS = 86_400_000;
  it('an open breaker refuses for one cooldown after the step, not a day more', () => {
    const steps: Step[] = [
      { at: 0, status: 401 },
      { at: -DAY_MS, admit: true },
      { at: -DAY_MS + 29_999, admit: true },
      { at: -DAY_MS + 30_000, admit: true },
    ];
    expect(run(steps)).toEqual([false, false, true]);
  });

  it('a probe that never reports is replaced a cooldown after the step', () => {
    const steps: Step[] = [
      { at: 0, status: 401 },
      { at: 30_000, admit: true },
      { at: 30_000 - DAY_MS, admit: true },
      { at: 60_000 - DAY_MS, admit: true },
    ];
    expect(run(steps)).toEqual([true, false, true]);
  });
});
