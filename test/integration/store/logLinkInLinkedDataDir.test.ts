import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openLogDatabase } from '../../../proxy/store/schema.ts';

let root: string;
let previousUmask: number;
beforeAll(() => {
  // The usual umask, under which SQLite creates a missing log readable by everyone.
  previousUmask = process.umask(0o022);
  root = mkdtempSync(path.join(tmpdir(), 'airlock-linked-dir-'));
});
afterAll(() => {
  process.umask(previousUmask);
  rmSync(root, { recursive: true, force: true });
});

// A relative link's `..` is taken by the kernel from the folder the link is really in: with the data
// directory itself a link (AIRLOCK_DATA_DIR=~/Airlock into a synced folder), that is the folder it points into.
it('a relative link to a missing log, in a data directory that is itself a link: the log it reaches is created 0600', () => {
  const real = path.join(root, 'sync', 'Airlock');
  mkdirSync(real, { recursive: true });
  mkdirSync(path.join(root, 'sync', 'logs'));
  mkdirSync(path.join(root, 'home', 'logs'), { recursive: true });
  const dataDir = path.join(root, 'home', 'Airlock');
  symlinkSync(real, dataDir);
  symlinkSync(path.join('..', 'logs', 'requests.db'), path.join(dataDir, 'requests.db'));

  openLogDatabase({ dataDir }).close();

  const reached = path.join(root, 'sync', 'logs', 'requests.db');
  expect((statSync(reached).mode & 0o777).toString(8)).toBe('600');
  expect(existsSync(path.join(root, 'home', 'logs', 'requests.db'))).toBe(false);
});
