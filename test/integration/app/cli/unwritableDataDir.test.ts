import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';

const AIRLOCK_BIN = fileURLToPath(new URL('../../../../proxy/app/cli/bin.js', import.meta.url));
/** The user "nobody" on Linux. */
const NOBODY_ID = '65534';

let dataDir: string;
let configText: string;

/**
 * `airlock <args>` as a user who may read the data directory but not write to it. Root writes
 * anywhere, so as root the command runs as nobody (util-linux's setpriv), as any other user itself.
 */
function airlockWithoutWriteAccess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const command = [process.execPath, AIRLOCK_BIN, '--data-dir', dataDir, ...args];
  const [file, ...rest] =
    process.getuid?.() === 0 ? ['setpriv', `--reuid=${NOBODY_ID}`, `--regid=${NOBODY_ID}`, '--clear-groups', ...command] : command;
  return new Promise((resolve) => {
    execFile(file!, rest, { env: { ...process.env, HOME: tmpdir() } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-readonly-'));
  const store = openConfigStore(dataDir);
  await store.update((config) => addProfile(config, { id: 'work', name: 'Work', baseUrl: 'https://gw.example/v1' }, { activate: true }));
  await store.update((config) => addProfile(config, { id: 'home', name: 'Home', baseUrl: 'https://home.example/v1' }));
  store.close();
  configText = readFileSync(path.join(dataDir, 'airlock.json'), 'utf8');
  chmodSync(path.join(dataDir, 'airlock.json'), 0o644);
  // The directory stays the user's own (as root, nobody's): another user's is told apart (dataDirOwnedByAnother.test.ts).
  if (process.getuid?.() === 0) chownSync(dataDir, Number(NOBODY_ID), Number(NOBODY_ID));
  chmodSync(dataDir, 0o555);
});

afterAll(() => {
  chmodSync(dataDir, 0o700);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a data directory the user cannot write to', () => {
  it.each([
    [['profile', 'use', 'home']],
    [['limits', '--requests-per-minute', '10']],
    [['token', 'create', 'aider']],
    // Its own lock file (one Airlock per directory) is the first thing serve writes.
    [['serve', '--port', '1']],
  ])('`airlock %j` fails with one line that names the directory and the way out, and changes nothing', async (args) => {
    const run = await airlockWithoutWriteAccess(args);
    expect(run).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `airlock: Airlock cannot write to its data directory ${dataDir} (permission denied). Make it writable for your user, or give Airlock another one with --data-dir or AIRLOCK_DATA_DIR.\n`,
    });
    expect(readFileSync(path.join(dataDir, 'airlock.json'), 'utf8')).toBe(configText);
  });

  it('is still read: `airlock profile list` lists the profiles', async () => {
    const run = await airlockWithoutWriteAccess(['profile', 'list']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\* work {2}Work/);
  });
});
