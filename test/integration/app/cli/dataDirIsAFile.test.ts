import { lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAirlockBin } from '../../../support/airlockBin.ts';

let parent: string;
let file: string;
const FILE_TEXT = 'notes the user keeps here\n';

beforeAll(() => {
  parent = mkdtempSync(path.join(tmpdir(), 'airlock-datafile-'));
  file = path.join(parent, 'Airlock');
  writeFileSync(file, FILE_TEXT);
});
afterAll(() => rmSync(parent, { recursive: true, force: true }));

/**
 * A file where the data directory belongs (a typo in --data-dir, a backup restored as a file, a
 * sync tool's placeholder): it failed with Node's own words, "EEXIST: file already exists, mkdir"
 * or "ENOTDIR: not a directory, stat .../airlock.json", naming neither the file nor a way out.
 */
describe('a file where the data directory, or a folder above it, belongs', () => {
  it.each([
    ['serve', (dir: string) => ['serve', '--port', '1', '--base-url', 'http://127.0.0.1:1/v1', '--data-dir', dir]],
    ['profile list', (dir: string) => ['profile', 'list', '--data-dir', dir]],
    ['token create', (dir: string) => ['token', 'create', 'aider', '--data-dir', dir]],
  ])('`airlock %s` names the file and the way out, and leaves the file as it was', async (_name, args) => {
    for (const dataDir of [file, path.join(file, 'sub')]) {
      const run = await runAirlockBin(args(dataDir), { ...process.env, AIRLOCK_API_KEY: 'sk-test-key-0123456789', HOME: parent });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toBe(
        `airlock: Airlock cannot use ${dataDir} as its data directory: ${file} is a file, not a folder. ` +
          'Move or rename that file, or give Airlock another data directory with --data-dir or AIRLOCK_DATA_DIR.\n',
      );
      expect(readFileSync(file, 'utf8')).toBe(FILE_TEXT);
    }
  });
});

/**
 * A link to nothing where the data directory, or a folder above it, belongs (its disk not mounted,
 * its target moved): serve and every command that writes failed with Node's bare "ENOENT: no such
 * file or directory, mkdir", naming the link's own path as if nothing were there (review R).
 */
describe('a link to nothing where the data directory, or a folder above it, belongs', () => {
  it.each([
    ['serve', (dir: string) => ['serve', '--port', '1', '--base-url', 'http://127.0.0.1:1/v1', '--data-dir', dir]],
    ['token create', (dir: string) => ['token', 'create', 'aider', '--data-dir', dir]],
  ])('`airlock %s` names the link, where it points and the way out, and leaves the link as it was', async (_name, args) => {
    const link = path.join(parent, 'linked');
    const target = path.join(parent, 'unmounted', 'Airlock');
    symlinkSync(target, link);
    try {
      for (const [dataDir, what] of [
        [link, `${link} is a link`],
        [path.join(link, 'sub'), `${link}, a folder above it, is a link`],
      ] as const) {
        const run = await runAirlockBin(args(dataDir), { ...process.env, AIRLOCK_API_KEY: 'sk-test-key-0123456789', HOME: parent });
        expect(run.code, run.stderr).toBe(1);
        expect(run.stderr).toBe(
          `airlock: Airlock cannot use ${dataDir} as its data directory: ${what} to ${target}, which does not exist. ` +
            'Connect the disk it is on (or make that folder), or remove the link, or give Airlock another data directory with --data-dir or AIRLOCK_DATA_DIR.\n',
        );
        expect(lstatSync(link).isSymbolicLink()).toBe(true);
        expect(readlinkSync(link)).toBe(target);
      }
    } finally {
      rmSync(link);
    }
  });
});
