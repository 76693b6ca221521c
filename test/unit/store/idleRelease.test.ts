import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { releaseIdleMemory } from '../../../proxy/store/write/idleRelease.ts';

const MiB = 1024 * 1024;
const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
// The suite runs on Linux with glibc (Debian here and in CI): mallinfo2 sums every arena's blocks in use.
const libc = koffi.load('libc.so.6');
const MALLINFO2_FIELDS = ['arena', 'ordblks', 'smblks', 'hblks', 'hblkhd', 'usmblks', 'fsmblks', 'uordblks', 'fordblks', 'keepcost'];
koffi.struct('mallinfo2', Object.fromEntries(MALLINFO2_FIELDS.map((field) => [field, 'size_t'])));
const mallinfo2 = libc.func('mallinfo2 mallinfo2()') as () => { uordblks: number | bigint };
const mallocInUseBytes = (): number => Number(mallinfo2().uordblks);

let dataDir = '';
let db: DatabaseSync | null = null;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'airlock-idle-release-'));
});
afterEach(() => {
  db?.close();
  db = null;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('releaseIdleMemory', () => {
  it("hands the connection's cached pages back to malloc, then trims", () => {
    db = new DatabaseSync(join(dataDir, 'cache.db'));
    // A cache larger than the default 2 MB, so its release stands far above other threads' allocations.
    db.exec('PRAGMA cache_size = -16384');
    db.exec('CREATE TABLE pages (payload BLOB)');
    const insert = db.prepare('INSERT INTO pages (payload) VALUES (randomblob(?))');
    db.exec('BEGIN');
    for (let row = 0; row < 5_000; row += 1) insert.run(3_000);
    db.exec('COMMIT');
    db.prepare('SELECT SUM(LENGTH(payload)) AS bytes FROM pages').get();
    const cachedBytes = mallocInUseBytes();
    let atTrimBytes = Number.NaN;
    releaseIdleMemory(db, () => {
      atTrimBytes = mallocInUseBytes();
    });
    // The trim must come after the pages were freed: pages freed after it stay resident.
    expect(cachedBytes - atTrimBytes).toBeGreaterThan(8 * MiB);
  });
});
