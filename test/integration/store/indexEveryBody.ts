import type { DatabaseSync } from 'node:sqlite';
import { DEFAULT_INDEX_SLICE, indexUnindexedSlice } from '../../../proxy/store/write/fullTextBackfill.ts';

/** Indexes every body still waiting for the full-text index, slice after slice, as the background pass would. */
export function indexEveryBody(db: DatabaseSync): void {
  while (indexUnindexedSlice(db, DEFAULT_INDEX_SLICE).rows > 0);
}
