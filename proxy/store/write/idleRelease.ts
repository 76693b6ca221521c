import type { DatabaseSync } from 'node:sqlite';

/**
 * What the log thread gives back once it is idle, a check after its heap's collection. Its
 * connection's page cache (SQLite's default, up to 2 MB) is nearly empty at start, full after a
 * load, and stays full: `PRAGMA shrink_memory` frees the pages no statement holds, and the next
 * write reads what it needs back from the OS's file cache. Freed, they sit in glibc's arena,
 * resident until a trim; this thread runs at SCHED_IDLE and must not hold the allocator's locks a
 * trim takes, so it asks the forwarding thread to trim at its next idle check (`askTrim`).
 * Measured 60 s after a c=50 load (DESIGN.md, "Performance and memory"): the arena's memory in
 * use 5.1 -> 3.2 MB, RSS 1.4-3.2 MB less.
 */
export function releaseIdleMemory(db: DatabaseSync, askTrim: () => void): void {
  db.exec('PRAGMA shrink_memory');
  askTrim();
}
