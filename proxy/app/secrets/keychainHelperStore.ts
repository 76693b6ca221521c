import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { KEYCHAIN_SERVICE, type KeychainCall, KeychainUnavailableError, type SecretStore } from '../../contracts/secretStore.ts';
import { boundKeychainWaits, KEYCHAIN_ANSWER_WAIT_MS } from './boundedSecretStore.ts';
import { withoutGatewayKey } from '../../core/apiKey.ts';

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

/** Every helper running, killed when Airlock exits (one listener for them all). */
const runningHelpers = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of runningHelpers) child.kill('SIGKILL');
});

function keychainInHelper(service: string): SecretStore {
  let helper: { child: ChildProcess; pending: Map<number, (answer: HelperAnswer | KeychainUnavailableError) => void> } | null = null;
  let nextId = 1;

  const started = (): NonNullable<typeof helper> => {
    if (helper) return helper;
    // Its environment without the gateway key a run may hold in AIRLOCK_API_KEY: the helper reads the keychain only.
    const child = fork(HELPER, [service], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], env: withoutGatewayKey(process.env) });
    // Each helper settles only the calls sent to it: one ended for idleness must not fail its successor's.
    const own = { child, pending: new Map<number, (answer: HelperAnswer | KeychainUnavailableError) => void>() };
    child.on('message', (answer: HelperAnswer) => {
      const settle = own.pending.get(answer.id);
      own.pending.delete(answer.id);
      settle?.(answer);
      // Idle once the caller had its turn to send the next call (a reading of several accounts does at once): it ends,
      // so a running Airlock keeps no process for its rare keychain calls.
      setImmediate(() => {
        if (own.pending.size > 0 || helper !== own) return;
        helper = null;
        child.kill();
      });
    });
    child.on('exit', () => {
      runningHelpers.delete(child);
      if (helper === own) helper = null;
      for (const [id, settle] of [...own.pending]) {
        own.pending.delete(id);
        settle(new KeychainUnavailableError('the keychain helper process ended'));
      }
    });
    child.unref();
    child.channel?.unref();
    runningHelpers.add(child);
    helper = own;
    return own;
  };

  const call = (kind: KeychainCall, account: string, secret?: string): Promise<string | boolean | null> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const { child, pending } = started();
      pending.set(id, (answer) => {
        if (answer instanceof Error) reject(answer);
        else if ('failure' in answer) reject(new KeychainUnavailableError(answer.failure));
        else resolve(answer.value);
      });
      const message: HelperCall = secret === undefined ? { id, kind, account } : { id, kind, account, secret };
      child.send(message);
    });

  return {
    get: async (account) => (await call('read', account)) as string | null,
    set: async (account, secret) => void (await call('save', account, secret)),
    delete: async (account) => (await call('delete', account)) === true,
  };
}
