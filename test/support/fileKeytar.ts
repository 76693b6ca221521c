import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * keytar over files in a directory (AIRLOCK_TEST_KEYCHAIN_DIR), so a test and the processes it
 * starts (the desktop app's keychain helper) share one keychain; standInHooks.ts gives it to
 * processes as 'keytar'. While the directory holds a FIFO named `stuck`, a call blocks one of
 * libuv's pool threads opening it, as libsecret's call on a D-Bus that does not answer blocks
 * keytar's: a process holding one cannot exit (libuv joins its pool at exit).
 */
export const KEYCHAIN_DIR_ENV = 'AIRLOCK_TEST_KEYCHAIN_DIR';

const directory = (): string => {
  const path = process.env[KEYCHAIN_DIR_ENV];
  if (!path) throw new Error(`${KEYCHAIN_DIR_ENV} is not set`);
  return path;
};
const secretsFile = (): string => join(directory(), 'secrets.json');
const stuckFifo = (keychainDir: string): string => join(keychainDir, 'stuck');
const heldLog = (keychainDir: string): string => join(keychainDir, 'held.log');

function secrets(): Record<string, string> {
  return existsSync(secretsFile()) ? (JSON.parse(readFileSync(secretsFile(), 'utf8')) as Record<string, string>) : {};
}

async function answered<T>(kind: string, answer: () => T): Promise<T> {
  const keychainDir = directory();
  if (existsSync(stuckFifo(keychainDir))) {
    appendFileSync(heldLog(keychainDir), `${process.pid} ${kind}\n`);
    // No writer ever opens it: the pool thread waits for good.
    await open(stuckFifo(keychainDir), 'r');
  }
  return answer();
}

export default {
  getPassword: (service: string, account: string) => answered('read', () => secrets()[`${service}/${account}`] ?? null),
  setPassword: (service: string, account: string, password: string) =>
    answered('save', () => {
      writeFileSync(secretsFile(), JSON.stringify({ ...secrets(), [`${service}/${account}`]: password }));
    }),
  deletePassword: (service: string, account: string) =>
    answered('delete', () => {
      const { [`${service}/${account}`]: deleted, ...rest } = secrets();
      writeFileSync(secretsFile(), JSON.stringify(rest));
      return deleted !== undefined;
    }),
};

/** From now on every call to the keychain in `keychainDir` is held. */
export function holdKeychainCalls(keychainDir: string): void {
  execFileSync('mkfifo', [stuckFifo(keychainDir)]);
}

/**
 * The calls held so far, each as "<pid of the process that made it> <kind>". A log read between its
 * creation and the first line's write is empty: that is no call yet (read as one, its pid was '').
 */
export function heldKeychainCalls(keychainDir: string): string[] {
  if (!existsSync(heldLog(keychainDir))) return [];
  return readFileSync(heldLog(keychainDir), 'utf8')
    .split('\n')
    .filter((line) => line !== '');
}
