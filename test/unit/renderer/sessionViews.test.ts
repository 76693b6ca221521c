import { describe, expect, it } from 'vitest';
import type { TurnChange } from '../../../proxy/contracts/agentSessions.ts';
import { requestIdFromHash, screenFromHash, sessionHash, sessionIdFromHash } from '../../../renderer/src/common/useHashRoute.ts';
import { shortSessionId } from '../../../renderer/src/live/RequestRow.tsx';
import { changeSummary, sessionCost } from '../../../renderer/src/sessions/sessionFormat.ts';

describe('a session’s address', () => {
  it.each<[string, string | null]>([
    ['#/sessions', null],
    ['#/sessions/', null],
    ['#/sessions/conv-0123abcd', 'conv-0123abcd'],
    ['#/sessions/a%2Fb', 'a/b'],
    ['#/live/alk_1', null],
  ])('%s → %s', (hash, expected) => {
    expect(sessionIdFromHash(hash)).toBe(expected);
  });

  it('round-trips an id with characters a URL must escape, on the Sessions screen', () => {
    const hash = sessionHash('id with/slash');
    expect(sessionIdFromHash(hash)).toBe('id with/slash');
    expect(screenFromHash(hash)).toBe('sessions');
    expect(sessionHash(null)).toBe('#/sessions');
  });

  it('keeps an id that is not valid percent-encoding as typed, for the screen to say it is not found', () => {
    // decodeURIComponent throws on these; a pasted or cut-off link must not take the screen down.
    expect(sessionIdFromHash('#/sessions/%E0%A4%A')).toBe('%E0%A4%A');
    expect(requestIdFromHash('#/live/50%')).toBe('50%');
  });
});

describe('short session ids in a row', () => {
  it.each([
    ['5e55f00d-1111-2222-3333-444455556666', '5e55f00d'],
    ['conv-28db7aca9c8089bc43f6cb61', 'conv-28db7a'],
    ['thread', 'thread'],
  ])('%s → %s', (id, expected) => {
    expect(shortSessionId(id)).toBe(expected);
  });
});

const change = (fields: Partial<TurnChange>): TurnChange => ({
  kind: 'appended',
  sinceTurn: 1,
  keptItems: 0,
  droppedItems: 0,
  echoedAnswerItems: 0,
  added: [],
  ...fields,
});

describe('a turn’s change in words', () => {
  it.each<[Partial<TurnChange>, string]>([
    [{ kind: 'first' }, 'First turn: the whole conversation so far.'],
    [
      { keptItems: 2, echoedAnswerItems: 1, added: [{ kind: 'user', text: 'x' }] },
      'Since turn 1: 2 items kept, 1 item of the previous answer sent back, 1 new item.',
    ],
    [
      { kind: 'rewritten', sinceTurn: 4, keptItems: 1, droppedItems: 6 },
      'History rewritten since turn 4: 1 item kept, 6 items dropped, 0 new items.',
    ],
    [{ kind: 'unknown', reason: 'the request body was cut' }, 'Change unknown: the request body was cut.'],
  ])('%j', (fields, expected) => {
    expect(changeSummary(change(fields))).toBe(expected);
  });

  it('a session’s cost says how many turns had no price', () => {
    expect(sessionCost({ costCredits: 1.5, unpricedTurns: 0 })).toBe('1.5');
    expect(sessionCost({ costCredits: 1.5, unpricedTurns: 2 })).toBe('1.5 (+2 unpriced)');
  });
});
