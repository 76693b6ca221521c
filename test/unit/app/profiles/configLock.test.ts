import { describe, expect, it } from 'vitest';
import { DataDirUnwritableError } from '../../../../proxy/app/dataDir.ts';
import { lockConfigFile } from '../../../../proxy/app/profiles/configLock.ts';
import { toApiError } from '../../../../proxy/app/control/http.ts';
import { PLAIN_HINT } from '../../../../proxy/contracts/cli.ts';

const errno = (code: string) => Object.assign(new Error(`${code}: from the file system`), { code });

/** A stand-in for proper-lockfile's lock that fails with each of `failures` in turn, then takes the lock. */
function scriptedLock(failures: Error[]) {
  const calls: { retries: unknown }[] = [];
  const release = async (): Promise<void> => undefined;
  const lock = async (_file: string, options: { retries?: unknown }) => {
    calls.push({ retries: options.retries });
    const failure = failures[calls.length - 1];
    if (failure) throw failure;
    return release;
  };
  return { lock, calls, release };
}

describe('lockConfigFile', () => {
  it.each([
    ['EACCES', 'permission denied'],
    ['EROFS', 'read-only file system'],
    ['ENOSPC', 'the disk is full'],
  ])('fails at once on %s, naming the directory and the way to another one', async (code, reason) => {
    const scripted = scriptedLock([errno(code)]);
    const locking = lockConfigFile('/data', '/data/airlock.json', scripted.lock);
    await expect(locking).rejects.toBeInstanceOf(DataDirUnwritableError);
    await expect(locking).rejects.toThrow(`Airlock cannot write to its data directory /data (${reason}). Make it writable`);
    expect(scripted.calls).toEqual([{ retries: 0 }]);
  });

  it('waits for a lock another writer holds, and takes it once free', async () => {
    const held = Object.assign(new Error('Lock file is already being held'), { code: 'ELOCKED' });
    const scripted = scriptedLock([held, held, held]);
    await expect(lockConfigFile('/data', '/data/airlock.json', scripted.lock)).resolves.toBe(scripted.release);
    expect(scripted.calls).toHaveLength(4);
  });

  it('passes any other failure on as it is', async () => {
    const scripted = scriptedLock([errno('ENAMETOOLONG')]);
    await expect(lockConfigFile('/data', '/data/airlock.json', scripted.lock)).rejects.toThrow('ENAMETOOLONG: from the file system');
    expect(scripted.calls).toHaveLength(1);
  });
});

describe("the window's answer when the data directory cannot be written", () => {
  it('is 503 unavailable with the directory and the way out, not an internal error', () => {
    const answer = toApiError(new DataDirUnwritableError('/data', 'read-only file system'), PLAIN_HINT.command);
    expect(answer.code).toBe('unavailable');
    expect(answer.message).toContain('Airlock cannot write to its data directory /data (read-only file system)');
  });
});
