import type { DatabaseSync } from 'node:sqlite';

/**
 * What the log thread gives back once it is idle, a check after its heap's collection. Its
 * connection's page cache (SQLite's default, up to 2 MB) is nearly empty at start, full after a
 * load, and stays full: `PRAGMA shrink_memory` frees the pages no statement holds, and the next
 * write reads what it needs back from the OS's file cache. Freed, they sit in glibc's arena,
 * resident until a trim; a trim holds the allocator's locks, which forwarding shares, and this
 * thread may be preempted or lowered (AIRLOCK_BACKGROUND_PRIORITY) while it holds them, so it asks
 * the forwarding thread to trim at its next idle check (`askTrim`).
 * Measured 60 s after a c=50 load (DESIGN.md, "Performance and memory"): the arena's memory in
 * use 5.1 -> 3.2 MB, RSS 1.4-3.2 MB less.
 */
export function releaseIdleMemory(db: DatabaseSync, askTrim: () => void): void {
  db.exec('PRAGMA shrink_memory');
  askTrim();
}
