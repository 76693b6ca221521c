import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { KEYCHAIN_SERVICE, type KeychainCall, KeychainUnavailableError, type SecretStore } from '../../contracts/secretStore.ts';
import { boundKeychainWaits, KEYCHAIN_ANSWER_WAIT_MS } from './boundedSecretStore.ts';

/** One keychain call sent to the helper process. */
export interface HelperCall {
  id: number;
  kind: KeychainCall;
  account: string;
  secret?: string;
}

/** The helper's answer: the call's value, or the keychain's reason for failing it. */
export type HelperAnswer = { id: number; value: string | boolean | null } | { id: number; failure: string };

const HELPER = fileURLToPath(new URL('./keychainHelper.ts', import.meta.url));

/**
 * The OS keychain with its calls in a helper process, for Airlock run by Node (`airlock serve` and
 * the CLI's commands). A keytar call that never returns holds a thread of libuv's pool, and a
 * process cannot exit while one does: libuv joins its threads at exit, so `airlock key set` printed
 * its error and then hung, and `airlock serve` could not be stopped. Here the stuck call holds the
 * helper's thread; the helper never keeps Airlock running (its channel is unreferenced: the bounded
 * wait's timer keeps a command alive while it waits) and is killed when Airlock exits.
 */
export function createKeychainHelperStore(answerWaitMs: number = KEYCHAIN_ANSWER_WAIT_MS, service: string = KEYCHAIN_SERVICE): SecretStore {
  return boundKeychainWaits(keychainInHelper(service), answerWaitMs);
}

function keychainInHelper(service: string): SecretStore {
  let helper: ChildProcess | null = null;
  let nextId = 1;
  const pending = new Map<number, (answer: HelperAnswer | KeychainUnavailableError) => void>();

  const started = (): ChildProcess => {
    if (helper) return helper;
    const child = fork(HELPER, [service], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    child.on('message', (answer: HelperAnswer) => {
      const settle = pending.get(answer.id);
      pending.delete(answer.id);
      settle?.(answer);
      // Idle once the caller had its turn to send the next call (a reading of several accounts does at once): it ends,
      // so a running Airlock keeps no process for its rare keychain calls.
      setImmediate(() => {
        if (pending.size > 0 || helper !== child) return;
        helper = null;
        child.kill();
      });
    });
    child.on('exit', () => {
      if (helper === child) helper = null;
      for (const [id, settle] of [...pending]) {
        pending.delete(id);
        settle(new KeychainUnavailableError('the keychain helper process ended'));
      }
    });
    child.unref();
    child.channel?.unref();
    helper = child;
    return child;
  };
  process.once('exit', () => helper?.kill('SIGKILL'));

  const call = (kind: KeychainCall, account: string, secret?: string): Promise<string | boolean | null> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (answer) => {
        if (answer instanceof Error) reject(answer);
        else if ('failure' in answer) reject(new KeychainUnavailableError(answer.failure));
        else resolve(answer.value);
      });
      const message: HelperCall = secret === undefined ? { id, kind, account } : { id, kind, account, secret };
      started().send(message);
    });

  return {
    get: async (account) => (await call('read', account)) as string | null,
    set: async (account, secret) => void (await call('save', account, secret)),
    delete: async (account) => (await call('delete', account)) === true,
  };
}
