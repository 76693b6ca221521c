import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { forgetRecentPieces, RecentPieces, recentPiecesOf } from '../../../proxy/store/write/recentPieces.ts';

/** `text` as a slice of a longer string, as a piece of a body is. */
const sliced = (text: string): string => `{"pad":0}${text}`.slice(9);

describe('RecentPieces', () => {
  it('keeps the ids of a transaction that committed, and none of one that rolled back', () => {
    const recent = new RecentPieces(1_000);
    recent.note(sliced('kept piece'), 1);
    expect(recent.chunkIdOf('kept piece')).toBeUndefined();
    recent.committed();
    recent.note('rolled back', 2);
    recent.rolledBack();
    recent.committed();
    expect([recent.chunkIdOf(sliced('kept piece')), recent.chunkIdOf('rolled back')]).toEqual([1, undefined]);
  });

  it('keeps two generations of texts: what a later turn repeats stays, what none repeats goes', () => {
    // Generations of 40 characters: eight pieces of 5.
    const recent = new RecentPieces(40);
    const piece = (index: number): string => String(index).padStart(5, 'x');
    const commit = (from: number, to: number): void => {
      for (let index = from; index <= to; index += 1) recent.note(piece(index), index);
      recent.committed();
    };
    commit(0, 7);
    // Piece 8 would pass 40 characters: the current generation becomes the previous one.
    commit(8, 8);
    expect(recent.chunkIdOf(piece(0))).toBe(0);
    commit(9, 15);
    // Pieces 1-7 were not asked for while in the previous generation: they went with it. Piece 0
    // was moved back to the current one, which is now the previous one, beside 8-14.
    expect([1, 7, 0, 8, 14, 15].map((index) => recent.chunkIdOf(piece(index)))).toEqual([undefined, undefined, 0, 8, 14, 15]);
  });

  it('keeps no piece over an eighth of a generation: one long string would hold the bound alone', () => {
    const recent = new RecentPieces(80);
    recent.note('a'.repeat(10), 1);
    recent.note('b'.repeat(11), 2);
    recent.committed();
    expect([recent.chunkIdOf('a'.repeat(10)), recent.chunkIdOf('b'.repeat(11))]).toEqual([1, undefined]);
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
