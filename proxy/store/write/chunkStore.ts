import { hash } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { recentPiecesOf, type RecentPieces } from './recentPieces.ts';
import { MIN_SPLIT_CHARS, requestChunks } from './requestChunks.ts';

/** A piece with its chunk id when a recent body held it, else with the hash that finds or stores it. */
export type Piece = { text: string; chunkId: number } | { text: string; sha256: Buffer };

/**
 * Texts of the recent pieces kept per generation (RecentPieces): a generation holds the history of
 * the largest body the log captures whole (1 MiB by default), and at most two are kept, a few MB.
 */
const RECENT_PIECE_CHARS = 1024 * 1024;

/**
 * Stores a request body as its pieces (requestChunks.ts), each distinct piece once: a turn of a
 * conversation adds only the pieces its history did not hold yet. Pieces are found by their
 * SHA-256, over the masked text (masking is deterministic, so a turn's repeated history hashes the
 * same). Runs inside the writer's transaction, on the log thread.
 */
export class ChunkStore {
  private readonly selectChunk: StatementSync;
  private readonly insertChunk: StatementSync;
  private readonly insertList: StatementSync;
  private readonly insertRefs: StatementSync;
  private readonly listUnindexed: StatementSync;
  private readonly recent: RecentPieces;

  constructor(db: DatabaseSync) {
    this.recent = recentPiecesOf(db, RECENT_PIECE_CHARS);
    this.selectChunk = db.prepare('SELECT chunk_id AS chunkId FROM body_chunks WHERE sha256 = ?');
    this.insertChunk = db.prepare('INSERT INTO body_chunks (sha256, stored_bytes, text) VALUES (?, ?, ?)');
    this.insertList = db.prepare('INSERT INTO request_body_chunk_lists (body_id, added_bytes, chunk_ids) VALUES (?, ?, ?)');
    this.insertRefs = db.prepare('INSERT OR IGNORE INTO request_body_chunks (chunk_id, body_id) SELECT value, ? FROM json_each(?)');
    this.listUnindexed = db.prepare('INSERT INTO body_chunks_unindexed (chunk_id) SELECT value FROM json_each(?)');
  }

  /**
   * The pieces of `text` with their hashes, or null to keep it inline, as before: a body shorter
   * than MIN_SPLIT_CHARS (a piece costs a few lookups and rows, more than such a body repeated;
   * most requests of a script, and the bench's, are that small) or one piece (not a JSON object).
   * Done before the transaction, so the write lock is not held for it. Only pieces no recent body
   * held are hashed.
   */
  piecesOf(text: string | null): Piece[] | null {
    if (text === null || text.length < MIN_SPLIT_CHARS) return null;
    const pieces = requestChunks(text);
    if (pieces.length < 2) return null;
    return pieces.map((piece) => {
      const chunkId = this.recent.chunkIdOf(piece);
      return chunkId === undefined ? { text: piece, sha256: hash('sha256', piece, 'buffer') } : { text: piece, chunkId };
    });
  }

  /** The writer's transaction ended: the pieces it stored or found are kept for the next bodies, or dropped. */
  transactionEnded(committed: boolean): void {
    if (committed) this.recent.committed();
    else this.recent.rolledBack();
  }

  /** Stores body `bodyId`'s pieces and its list; returns the UTF-8 bytes of the pieces stored for the first time. */
  store(bodyId: number, pieces: readonly Piece[]): number {
    const chunkIds: number[] = [];
    const newChunkIds: number[] = [];
    let addedBytes = 0;
    for (const piece of pieces) {
      if ('chunkId' in piece) {
        chunkIds.push(piece.chunkId);
        continue;
      }
      const found = this.selectChunk.get(piece.sha256);
      if (found !== undefined) {
        chunkIds.push(Number(found.chunkId));
        this.recent.note(piece.text, Number(found.chunkId));
        continue;
      }
      const bytes = Buffer.byteLength(piece.text, 'utf8');
      const chunkId = Number(this.insertChunk.run(piece.sha256, bytes, piece.text).lastInsertRowid);
      chunkIds.push(chunkId);
      newChunkIds.push(chunkId);
      this.recent.note(piece.text, chunkId);
      addedBytes += bytes;
    }
    const list = JSON.stringify(chunkIds);
    this.insertList.run(bodyId, addedBytes, list);
    this.insertRefs.run(bodyId, list);
    if (newChunkIds.length > 0) this.listUnindexed.run(JSON.stringify(newChunkIds));
    return addedBytes;
  }
}
