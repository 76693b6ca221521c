import { describe, expect, it } from 'vitest';
import {
  closedWhileIdle,
  IDLE_CLOSE_WINDOW_MS,
  MIN_IDLE_BEFORE_CLOSE_MS,
  mayHaveExecuted,
  type UnansweredClose,
  type UpstreamAttempt,
} from '../../../proxy/forward/upstreamExecution.ts';

describe('mayHaveExecuted: whether the gateway may have run an attempt', () => {
  it.each<[string, UpstreamAttempt, boolean]>([
    ['never reached a socket (refused, connect timeout, given up first)', { reachedSocket: false, answered: false }, false],
    ['handed to a connected socket, then broke without an answer', { reachedSocket: true, answered: false }, true],
    ['answered 200', { reachedSocket: true, answered: true, status: 200 }, true],
    ['answered 202', { reachedSocket: true, answered: true, status: 202 }, true],
    [
      'answered 502: the gateway got no valid upstream answer, the model may have run',
      { reachedSocket: true, answered: true, status: 502 },
      true,
    ],
    ['answered 504', { reachedSocket: true, answered: true, status: 504 }, true],
    ['refused 400', { reachedSocket: true, answered: true, status: 400 }, false],
    ['refused 401', { reachedSocket: true, answered: true, status: 401 }, false],
    ['refused 429', { reachedSocket: true, answered: true, status: 429 }, false],
    [
      'on a socket, then its reused connection closed idle before the gateway read it',
      { reachedSocket: true, answered: false, closedIdle: true },
      false,
    ],
  ])('%s', (_label, attempt, expected) => {
    expect(mayHaveExecuted(attempt)).toBe(expected);
  });
});

describe('closedWhileIdle: the keep-alive race, where the gateway closed a reused connection before reading the request', () => {
  const race: UnansweredClose = { idleBeforeMs: 5000, answerBytes: 0, closedAfterMs: 2, code: 'UND_ERR_SOCKET' };
  it.each<[string, Partial<UnansweredClose>, boolean]>([
    ['its FIN ("other side closed") on a reused connection, no byte of answer, at once', {}, true],
    ['a reset instead of a FIN', { code: 'ECONNRESET' }, true],
    ['a broken pipe while writing', { code: 'EPIPE' }, true],
    ['closed a second after the request, the longest round trip allowed', { closedAfterMs: IDLE_CLOSE_WINDOW_MS }, true],
    ['a fresh connection: the gateway may have read the request and refused it by closing', { idleBeforeMs: null }, false],
    ['idle for a second, the least a server waits to close one', { idleBeforeMs: MIN_IDLE_BEFORE_CLOSE_MS }, true],
    [
      'in use a moment before: no idle close, the gateway may have read it and closed',
      { idleBeforeMs: MIN_IDLE_BEFORE_CLOSE_MS - 1 },
      false,
    ],
    ['after part of an answer: the gateway read and ran it', { answerBytes: 17 }, false],
    ['later than a round trip: the gateway may have read it and died running it', { closedAfterMs: IDLE_CLOSE_WINDOW_MS + 1 }, false],
    ["Airlock's own idle timeout", { code: 'UND_ERR_HEADERS_TIMEOUT' }, false],
    ['a failure with no code', { code: null }, false],
  ])('%s', (_label, change, expected) => {
    expect(closedWhileIdle({ ...race, ...change })).toBe(expected);
  });
});
