import type { DatabaseSync } from 'node:sqlite';

/**
 * The chunk ids of the pieces the log wrote or found lately, by their text. A conversation resends
 * its whole history every turn, and hashing and looking up each known piece again made the log
 * thread's cost per row grow with the conversation. Ids are kept only once their transaction
 * committed (a rolled-back one's ids never existed), and all are forgotten when bodies are deleted
 * (a piece's row goes with the last body holding it: `forgetRecentPieces`).
 *
 * Two generations bound it: entries go into the current one, which becomes the previous one once
 * its texts reach `maxCharsPerGeneration`; a hit in the previous one moves the entry back, so the
 * pieces a live conversation repeats stay. A piece over a MAX_PIECES_SHARE-th of a generation (one
 * JSON string: a pasted file, an image as base64) is not kept, so the bound holds whatever the
 * capture limit. Each kept text is a copy of its piece: a piece is a
 * slice of its body, and a slice would keep the whole body alive.
 */
const MAX_PIECES_SHARE = 8;

export class RecentPieces {
  private current = new Map<string, KeptPiece>();
  private previous = new Map<string, KeptPiece>();
  private currentChars = 0;
  /** Pieces of the open transaction, kept only if it commits. */
  private pending = new Map<string, number>();
  private readonly maxCharsPerGeneration: number;

  constructor(maxCharsPerGeneration: number) {
    this.maxCharsPerGeneration = maxCharsPerGeneration;
  }

  chunkIdOf(text: string): number | undefined {
    const known = this.current.get(text)?.chunkId;
    if (known !== undefined) return known;
    const older = this.previous.get(text);
    if (older === undefined) return undefined;
    this.previous.delete(text);
    this.add(older);
    return older.chunkId;
  }

  /** A piece this transaction stored or found by its hash. */
  note(text: string, chunkId: number): void {
    this.pending.set(text, chunkId);
  }

  committed(): void {
    for (const [text, chunkId] of this.pending)
      if (text.length <= this.maxCharsPerGeneration / MAX_PIECES_SHARE && !this.current.has(text))
        this.add({ text: ownCopy(text), chunkId });
    this.pending.clear();
  }

  rolledBack(): void {
    this.pending.clear();
  }

  clear(): void {
    this.current = new Map();
    this.previous = new Map();
    this.currentChars = 0;
    this.pending.clear();
  }

  /** Keyed by the kept copy itself: a key from the piece just asked for would keep its body. */
  private add(piece: KeptPiece): void {
    if (this.currentChars + piece.text.length > this.maxCharsPerGeneration && this.current.size > 0) {
      this.previous = this.current;
      this.current = new Map();
      this.currentChars = 0;
    }
    this.current.set(piece.text, piece);
    this.currentChars += piece.text.length;
  }
}

interface KeptPiece {
  /** A copy of the piece's text (ownCopy). */
  text: string;
  chunkId: number;
}

/**
 * A string equal to `text` that does not share its memory. A UTF-8 round trip turns a lone
 * surrogate into U+FFFD, which is also what SQLite stores and the hash covers for it, so such a
 * copy names the same chunk; it only never matches the original text again.
 */
function ownCopy(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** Each connection's cache, so whatever deletes bodies through it can forget the cached ids. */
const byConnection = new WeakMap<DatabaseSync, RecentPieces>();

export function recentPiecesOf(db: DatabaseSync, maxCharsPerGeneration: number): RecentPieces {
  let recent = byConnection.get(db);
  if (recent === undefined) {
    recent = new RecentPieces(maxCharsPerGeneration);
    byConnection.set(db, recent);
  }
  return recent;
}

/** Called after bodies were deleted through `db`: the pieces they held may be gone. */
export function forgetRecentPieces(db: DatabaseSync): void {
  byConnection.get(db)?.clear();
}
