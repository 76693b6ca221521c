import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  KEYCHAIN_SERVICE,
  type KeychainCall,
  KeychainNotAnsweringError,
  KeychainUnavailableError,
  type SecretStore,
} from '../../contracts/secretStore.ts';
import { KEYCHAIN_ANSWER_WAIT_MS } from './boundedSecretStore.ts';

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

interface Pending {
  kind: KeychainCall;
  settle(answer: HelperAnswer | KeychainUnavailableError): void;
}

/**
 * The OS keychain through a helper process, for commands that end (the CLI). A keytar call that
 * never returns holds a thread of libuv's pool, and a process cannot exit while one does: libuv
 * joins its threads at exit, so `airlock key set` printed its error and then hung. In a helper the
 * stuck call is ended with the helper (SIGKILL, past `answerWaitMs`); the next call starts another.
 */
export function createKeychainHelperStore(answerWaitMs: number = KEYCHAIN_ANSWER_WAIT_MS, service: string = KEYCHAIN_SERVICE): SecretStore {
  let helper: ChildProcess | null = null;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const endHelper = (reason: (kind: KeychainCall) => KeychainUnavailableError): void => {
    const ended = helper;
    helper = null;
    ended?.kill('SIGKILL');
    for (const [id, call] of [...pending]) {
      pending.delete(id);
      call.settle(reason(call.kind));
    }
  };
  const started = (): ChildProcess => {
    if (helper) return helper;
    const child = fork(HELPER, [service], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    child.on('message', (answer: HelperAnswer) => {
      const call = pending.get(answer.id);
      pending.delete(answer.id);
      call?.settle(answer);
      if (pending.size === 0) idle(child);
    });
    child.on('exit', () => {
      if (helper === child) endHelper(() => new KeychainUnavailableError('the keychain helper process ended'));
    });
    helper = child;
    return child;
  };
  // An idle helper keeps the command from ending; it is ended with it (see below).
  const idle = (child: ChildProcess): void => {
    child.unref();
    child.channel?.unref();
  };
  process.once('exit', () => helper?.kill('SIGKILL'));

  const call = (kind: KeychainCall, account: string, secret?: string): Promise<string | boolean | null> =>
    new Promise((resolve, reject) => {
      const child = started();
      child.ref();
      child.channel?.ref();
      const id = nextId++;
      const timer = setTimeout(() => endHelper((of) => new KeychainNotAnsweringError(answerWaitMs, of)), answerWaitMs);
      pending.set(id, {
        kind,
        settle(answer) {
          clearTimeout(timer);
          if (answer instanceof Error) reject(answer);
          else if ('failure' in answer) reject(new KeychainUnavailableError(answer.failure));
          else resolve(answer.value);
        },
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
