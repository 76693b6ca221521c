import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { forgetRecentPieces, RecentPieces, recentPiecesOf } from '../../../proxy/store/write/recentPieces.ts';

/** `text` as a slice of a longer string, as a piece of a body is. */
const sliced = (text: string): string => `{"pad":0}${text}`.slice(9);

describe('RecentPieces', () => {
  it('keeps the ids of a transaction that committed, and none of one that rolled back', () => {
    const recent = new RecentPieces(1_000);
    recent.note(sliced('kept piece'), 1);
    // Visible to the rest of its own transaction.
    expect(recent.chunkIdOf('kept piece')).toBe(1);
    recent.committed();
    recent.note('rolled back', 2);
    recent.rolledBack();
    recent.committed();
    expect([recent.chunkIdOf(sliced('kept piece')), recent.chunkIdOf('rolled back')]).toEqual([1, undefined]);
  });

  it('keeps two generations of texts: what a later turn repeats stays, what none repeats goes', () => {
    const recent = new RecentPieces(10);
    const commit = (text: string, chunkId: number): void => {
      recent.note(text, chunkId);
      recent.committed();
    };
    commit('aaaaa', 1);
    commit('bbbbb', 2);
    // 'ccccc' would pass 10 characters: the current generation becomes the previous one.
    commit('ccccc', 3);
    expect(recent.chunkIdOf('aaaaa')).toBe(1);
    commit('ddddd', 4);
    // 'bbbbb' was not asked for while in the previous generation: it went with it. 'aaaaa' was
    // moved back to the current one, and 'ccccc' is the previous generation's now.
    const asked = ['bbbbb', 'aaaaa', 'ccccc', 'ddddd'].map((text) => recent.chunkIdOf(text));
    expect(asked).toEqual([undefined, 1, 3, 4]);
  });

  it('is forgotten per connection, as retention does after deleting bodies', () => {
    const db = new DatabaseSync(':memory:');
    const other = new DatabaseSync(':memory:');
    for (const [connection, chunkId] of [
      [db, 1],
      [other, 2],
    ] as const) {
      const recent = recentPiecesOf(connection, 1_000);
      recent.note('piece', chunkId);
      recent.committed();
    }
    forgetRecentPieces(db);
    expect([recentPiecesOf(db, 1_000).chunkIdOf('piece'), recentPiecesOf(other, 1_000).chunkIdOf('piece')]).toEqual([undefined, 2]);
    db.close();
    other.close();
  });
});
