import { describe, expect, it } from 'vitest';
import {
  ControlSessions,
  LOGIN_CODE_TTL_MS,
  SESSION_TTL_MS,
  sessionCookie,
  sessionIdFromCookie,
} from '../../../../proxy/app/control/sessions.ts';

const TOKEN = 'alkc_the-control-token-0123456789';

function sessionsAt(clock: { nowMs: number }) {
  return new ControlSessions({ controlToken: TOKEN, nowMs: () => clock.nowMs });
}

describe('ControlSessions', () => {
  it.each([
    ['just before expiry', LOGIN_CODE_TTL_MS - 1, true],
    ['at expiry', LOGIN_CODE_TTL_MS, false],
  ])('a login code used %s works: %s', (_name, waitMs, works) => {
    const clock = { nowMs: 1_000 };
    const sessions = sessionsAt(clock);
    const code = sessions.issueLoginCode();
    clock.nowMs += waitMs;
    expect(sessions.exchangeCode(code) !== null).toBe(works);
  });

  it('accepts a code only once', () => {
    const sessions = sessionsAt({ nowMs: 0 });
    const code = sessions.issueLoginCode();
    expect(sessions.exchangeCode(code)).not.toBeNull();
    expect(sessions.exchangeCode(code)).toBeNull();
  });

  it('authorises a session cookie until it expires', () => {
    const clock = { nowMs: 0 };
    const sessions = sessionsAt(clock);
    const sessionId = sessions.exchangeControlToken(TOKEN)!;
    const cookie = `other=1; ${sessionCookie(sessionId).split(';')[0]}`;
    expect(sessions.isAuthorized(undefined, cookie)).toBe(true);
    clock.nowMs = SESSION_TTL_MS;
    expect(sessions.isAuthorized(undefined, cookie)).toBe(false);
  });

  it.each<[string | undefined, string | undefined, boolean]>([
    [`Bearer ${TOKEN}`, undefined, true],
    [`bearer ${TOKEN}`, undefined, true],
    ['Bearer alk_client-token', undefined, false],
    [undefined, 'airlock_session=forged', false],
    [undefined, undefined, false],
    [TOKEN, undefined, false],
  ])('authorization %s, cookie %s → %s', (authorization, cookie, expected) => {
    expect(sessionsAt({ nowMs: 0 }).isAuthorized(authorization, cookie)).toBe(expected);
  });

  it('refuses a wrong control token', () => {
    expect(sessionsAt({ nowMs: 0 }).exchangeControlToken('alkc_wrong')).toBeNull();
  });

  it.each([
    ['airlock_session=abc', 'abc'],
    ['a=1; airlock_session=x=y', 'x=y'],
    ['a=1', null],
    [undefined, null],
  ])('sessionIdFromCookie(%s) = %s', (header, expected) => {
    expect(sessionIdFromCookie(header)).toBe(expected);
  });
});
