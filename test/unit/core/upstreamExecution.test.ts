import { describe, expect, it } from 'vitest';
import { mayHaveExecuted, type UpstreamAttempt } from '../../../proxy/forward/upstreamExecution.ts';

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
  ])('%s', (_label, attempt, expected) => {
    expect(mayHaveExecuted(attempt)).toBe(expected);
  });
});
