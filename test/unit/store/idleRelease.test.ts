import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { releaseIdleMemory } from '../../../proxy/store/write/idleRelease.ts';
import { mallocInUseBytes } from '../../support/mallocInUse.ts';

const MiB = 1024 * 1024;

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
