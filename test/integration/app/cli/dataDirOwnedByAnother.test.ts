import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';

const AIRLOCK_BIN = fileURLToPath(new URL('../../../../proxy/app/cli/bin.js', import.meta.url));
/** The user "nobody" on Linux. */
const NOBODY_ID = 65534;
const IS_ROOT = process.getuid?.() === 0;
/** A file of root's no other user may read, on every Linux. */
const ROOTS_UNREADABLE_FILE = '/etc/shadow';

let dataDir: string;
let configText = '';

/**
 * As `sudo airlock serve` once run leaves them: the data directory is the user's, its files root's.
 * As root, root makes the files and the command runs as nobody, who owns the directory (util-linux's
 * setpriv). Any other user cannot make a file another's: its airlock.json is then a link to a file of
 * root's it may not read, which is refused the same way.
 */
function airlockAsTheUser(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const command = [process.execPath, AIRLOCK_BIN, '--data-dir', dataDir, ...args];
  const [file, ...rest] = IS_ROOT ? ['setpriv', `--reuid=${NOBODY_ID}`, `--regid=${NOBODY_ID}`, '--clear-groups', ...command] : command;
  return new Promise((resolve) => {
    execFile(
      file!,
      rest,
      { env: { ...process.env, HOME: tmpdir(), AIRLOCK_API_KEY: 'sk-test-key-0123456789' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-sudo-'));
  if (IS_ROOT) {
    const store = openConfigStore(dataDir);
    await store.update((config) => addProfile(config, { id: 'work', name: 'Work', baseUrl: 'https://gw.example/v1' }, { activate: true }));
    store.close();
    configText = readFileSync(path.join(dataDir, 'airlock.json'), 'utf8');
    chownSync(dataDir, NOBODY_ID, NOBODY_ID);
  } else {
    symlinkSync(ROOTS_UNREADABLE_FILE, path.join(dataDir, 'airlock.json'));
  }
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("a data directory whose files are another user's (left by a run with sudo)", () => {
  it.each([[['profile', 'list']], [['token', 'create', 'aider']], [['serve', '--port', '1', '--base-url', 'http://127.0.0.1:1/v1']]])(
    '`airlock %j` names the file, its owner and the chown that gives it back, and changes nothing',
    async (args) => {
      const run = await airlockAsTheUser(args);
      expect(run.code, run.stderr).toBe(1);
      // Which file is met first depends on the command (the lock, or airlock.json); each is root's.
      expect(run.stderr).toMatch(
        new RegExp(
          `^airlock: Airlock cannot open ${dataDir}/(airlock\\.json|airlock\\.lock) in its data directory: it belongs to another user \\(uid 0\\), ` +
            `as files made by a run with sudo do\\. Give the directory back to your user with \`sudo chown -R "\\$USER" ${dataDir}\`, ` +
            'or give Airlock another data directory with --data-dir or AIRLOCK_DATA_DIR\\.\\n$',
        ),
      );
      if (IS_ROOT) expect(readFileSync(path.join(dataDir, 'airlock.json'), 'utf8')).toBe(configText);
    },
  );
});
