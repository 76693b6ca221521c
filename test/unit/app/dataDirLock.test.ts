import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE_NAME, lockDataDir } from '../../../proxy/app/dataDirLock.ts';

const dirs: string[] = [];
function dataDir(lockText?: string): { dir: string; lockFile: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-lock-'));
  dirs.push(dir);
  const lockFile = path.join(dir, LOCK_FILE_NAME);
  if (lockText !== undefined) writeFileSync(lockFile, lockText);
  return { dir, lockFile };
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const RUNNING_PID = 4242;
const isRunning = (pid: number): boolean => pid === RUNNING_PID;

describe('lockDataDir', () => {
  it.each([
    { name: 'no lock yet', lockText: undefined },
    { name: "an earlier Airlock's text lock whose process is gone (a crash)", lockText: '31337\n' },
    { name: 'a lock with no PID in it', lockText: 'garbage' },
    { name: 'an empty lock', lockText: '' },
  ])('takes the directory over $name, and then refuses it to others naming its PID', ({ lockText }) => {
    const { dir } = dataDir(lockText);
    const lock = lockDataDir(dir, { pid: 1000, isRunning });
    expect(() => lockDataDir(dir, { pid: 2000, isRunning })).toThrow('Another Airlock (process 1000) is running');
    lock.release();
  });

  it('takes over a lock file whose pages were torn (a power cut while its PID was written)', () => {
    const { dir, lockFile } = dataDir();
    lockDataDir(dir, { pid: 1000, isRunning }).release();
    const torn = readFileSync(lockFile);
    torn.fill(0xab, 100);
    writeFileSync(lockFile, torn);
    const lock = lockDataDir(dir, { pid: 2000, isRunning });
    expect(() => lockDataDir(dir, { pid: 3000, isRunning })).toThrow('Another Airlock (process 2000) is running');
    lock.release();
  });

  it("refuses a directory whose earlier Airlock's text lock names a running process, naming the process, the directory and the fix", () => {
    const { dir, lockFile } = dataDir(`${RUNNING_PID}\n`);
    const attempt = () => lockDataDir(dir, { pid: 1000, isRunning });
    expect(attempt).toThrow(DataDirInUseError);
    expect(attempt).toThrow(`Another Airlock (process ${RUNNING_PID}) is running with the data directory ${dir}.`);
    expect(attempt).toThrow('--data-dir');
    expect(readFileSync(lockFile, 'utf8')).toBe(`${RUNNING_PID}\n`);
  });

  it('refuses a second lock while the first is held, and allows one after release', () => {
    const { dir } = dataDir();
    const first = lockDataDir(dir, { pid: RUNNING_PID, isRunning });
    expect(() => lockDataDir(dir, { pid: 1000, isRunning })).toThrow(DataDirInUseError);
    first.release();
    lockDataDir(dir, { pid: 1000, isRunning }).release();
  });

  it('is taken again with no new disk space, so a start on a full disk is not refused by its own lock', () => {
    const { dir, lockFile } = dataDir();
    lockDataDir(dir, { pid: 1000, isRunning }).release();
    const keptBytes = statSync(lockFile).size;
    const again = lockDataDir(dir, { pid: 2000, isRunning });
    // The PID is written in place and no rollback journal is made beside the file.
    expect(readdirSync(dir)).toEqual([LOCK_FILE_NAME]);
    expect(statSync(lockFile).size).toBe(keptBytes);
    expect(() => lockDataDir(dir, { pid: 3000, isRunning })).toThrow('Another Airlock (process 2000) is running');
    again.release();
  });

  it("knows a real running process from a finished one by default, for an earlier Airlock's text lock", () => {
    const { dir } = dataDir(`${process.pid}\n`);
    expect(() => lockDataDir(dir, { pid: 1000 })).toThrow(DataDirInUseError);
  });
});
