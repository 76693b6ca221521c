import { setTimeout as sleep } from 'node:timers/promises';
import lockfile from 'proper-lockfile';
import { asDataDirError } from '../dataDir.ts';

/** Held only for one read-modify-write; stale after this long if its holder died. */
const LOCK_STALE_MS = 10_000;
/** While another writer holds the lock: up to 100 more tries, 5 ms apart growing by 1.3 to 200 ms (about 20 s in all). */
const HELD_LOCK_WAIT = { retries: 100, firstMs: 5, factor: 1.3, maxMs: 200 };

type LockFile = (file: string, options: lockfile.LockOptions) => Promise<() => Promise<void>>;

/**
 * Takes the cross-process lock of the config file; resolves to its release. Only a lock another
 * writer holds is worth waiting for: proper-lockfile's own retries also repeat a failure no wait can
 * change (a read-only or full disk, no permission), so every save there took about 20 s to fail.
 * Those fail at once, as a DataDirUnwritableError. `lockFile` is proper-lockfile's, or a test's.
 */
export async function lockConfigFile(dataDir: string, filePath: string, lockFile: LockFile = lockfile.lock): Promise<() => Promise<void>> {
  let waitMs = HELD_LOCK_WAIT.firstMs;
  for (let retry = 0; ; retry += 1) {
    try {
      return await lockFile(dataDir, { lockfilePath: `${filePath}.lock`, stale: LOCK_STALE_MS, retries: 0 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw asDataDirError(dataDir, error);
      if (retry === HELD_LOCK_WAIT.retries) throw error;
      // Randomized, so writers that collided do not retry in step.
      await sleep(waitMs * (1 + Math.random()));
      waitMs = Math.min(waitMs * HELD_LOCK_WAIT.factor, HELD_LOCK_WAIT.maxMs);
    }
  }
}
