import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SESSIONS_FILE_NAME, sessionFile } from '../../../../proxy/app/control/sessionFile.ts';
import { ControlSessions, hashOf, SESSION_TTL_MS, sessionCookie } from '../../../../proxy/app/control/sessions.ts';

const TOKEN = 'alkc_the-control-token-0123456789';
let dir = '';
let filePath = '';

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'airlock-sessions-'));
  filePath = path.join(dir, SESSIONS_FILE_NAME);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** One run of Airlock: sessions backed by the file, under `token`. */
const run = (clock: { nowMs: number }, token = TOKEN) =>
  new ControlSessions({
    controlToken: token,
    nowMs: () => clock.nowMs,
    persistence: sessionFile(filePath, hashOf(token), () => undefined),
  });
const cookieOf = (sessionId: string) => sessionCookie(sessionId).split(';')[0];

describe('window sessions across a restart', () => {
  it('keeps a session signed in for the next run, stored hashed in a 0600 file', () => {
    const clock = { nowMs: 1_000 };
    const sessionId = run(clock).exchangeControlToken(TOKEN)!;
    const restarted = run(clock);
    expect(restarted.isAuthorized(undefined, cookieOf(sessionId))).toBe(true);
    expect(restarted.isAuthorized(undefined, cookieOf('not-a-session'))).toBe(false);
    const text = readFileSync(filePath, 'utf8');
    expect(text).not.toContain(sessionId);
    expect(text).not.toContain(TOKEN);
    if (process.platform !== 'win32') expect(statSync(filePath).mode & 0o777).toBe(0o600);
  });

  it('does not bring back a session past its expiry', () => {
    const clock = { nowMs: 1_000 };
    const sessionId = run(clock).exchangeControlToken(TOKEN)!;
    clock.nowMs += SESSION_TTL_MS;
    expect(run(clock).isAuthorized(undefined, cookieOf(sessionId))).toBe(false);
  });

  it('signs every browser out when the control token changed', () => {
    const clock = { nowMs: 1_000 };
    const sessionId = run(clock).exchangeControlToken(TOKEN)!;
    expect(run(clock, 'alkc_a-new-control-token-98765').isAuthorized(undefined, cookieOf(sessionId))).toBe(false);
  });

  it('starts with no sessions from a damaged file, and a new sign-in replaces it', () => {
    writeFileSync(filePath, '{not json', { mode: 0o600 });
    const clock = { nowMs: 1_000 };
    const sessions = run(clock);
    const sessionId = sessions.exchangeControlToken(TOKEN)!;
    expect(run(clock).isAuthorized(undefined, cookieOf(sessionId))).toBe(true);
  });

  it('reports a file it cannot write, and the session still works for this run', () => {
    const problems: string[] = [];
    const unwritable = path.join(dir, 'missing-folder', SESSIONS_FILE_NAME);
    const sessions = new ControlSessions({
      controlToken: TOKEN,
      persistence: sessionFile(unwritable, hashOf(TOKEN), (message) => problems.push(message)),
    });
    const sessionId = sessions.exchangeControlToken(TOKEN)!;
    expect(sessions.isAuthorized(undefined, cookieOf(sessionId))).toBe(true);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('sign in again after a restart');
  });
});
