import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { asDataDirError } from '../../../proxy/app/dataDir.ts';
import { makeDataDirPrivate } from '../../../proxy/app/privateDataDir.ts';

/** The user "nobody" on Linux. */
const NOBODY_ID = 65534;
const IS_ROOT = process.getuid?.() === 0;
/** A file whose mode no user may change, root included (procfs refuses chmod), and readable by all. */
const UNCHANGEABLE_FILE = '/proc/self/status';
/** A file of root's on every Linux, for a run that cannot make one another user's. */
const ROOTS_FILE = '/etc/shadow';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A data directory as macOS names it by default: "Application Support" has a space. */
function dataDirWithASpace(): string {
  const parent = mkdtempSync(path.join(tmpdir(), 'airlock-fix-'));
  dirs.push(parent);
  const dataDir = path.join(parent, 'Application Support', 'Airlock');
  mkdirSync(dataDir, { recursive: true });
  return dataDir;
}

/** The words a POSIX shell makes of the command's arguments after `prefix`, as pasted. */
function shellWordsAfter(message: string, prefix: string): string[] {
  const command = /`([^`]*)`/.exec(message)?.[1] ?? '';
  expect(command.startsWith(prefix), command).toBe(true);
  const printed = execFileSync('sh', ['-c', `printf '%s\\n' ${command.slice(prefix.length)}`], { encoding: 'utf8' });
  return printed.split('\n').slice(0, -1);
}

describe('the commands a data directory problem suggests name its path as one word, spaces and all', () => {
  it("a file of another user's: the chown names the whole directory", () => {
    const dataDir = dataDirWithASpace();
    const file = path.join(dataDir, 'airlock.json');
    // Root makes it nobody's; any other user links it to a file of root's, refused the same way.
    if (IS_ROOT) {
      writeFileSync(file, '{}');
      chownSync(file, NOBODY_ID, NOBODY_ID);
    } else {
      symlinkSync(ROOTS_FILE, file);
    }
    const refused = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES', path: file });
    const error = asDataDirError(dataDir, refused) as Error;
    expect(error.name).toBe('DataDirOwnedByAnotherError');
    expect(shellWordsAfter(error.message, 'sudo chown -R "$USER" ')).toEqual([dataDir]);
  });

  it('a file whose sharing Airlock cannot take away: the chmod names the whole file', () => {
    const dataDir = dataDirWithASpace();
    const file = path.join(dataDir, 'airlock.json');
    symlinkSync(UNCHANGEABLE_FILE, file);
    const problems = makeDataDirPrivate(dataDir, 'linux');
    expect(problems).toHaveLength(1);
    expect(shellWordsAfter(problems[0]!, 'chmod go-rwx ')).toEqual([file]);
  });
});
