import { describe, expect, it } from 'vitest';
import { mayHaveExecuted, type UpstreamAttempt } from '../../../proxy/core/upstreamExecution.ts';

describe('mayHaveExecuted: whether the gateway may have run an attempt', () => {
  it.each<[string, UpstreamAttempt, boolean]>([
    ['never reached a socket (refused, connect timeout, given up first)', { reachedSocket: false, answered: false }, false],
    ['handed to a connected socket, then broke without an answer', { reachedSocket: true, answered: false }, true],
    ['answered, any status', { reachedSocket: true, answered: true }, true],
  ])('%s', (_label, attempt, expected) => {
    expect(mayHaveExecuted(attempt)).toBe(expected);
  });
});
