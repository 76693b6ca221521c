import { redactSecrets } from '../../core/redact.ts';
import { type KeychainCall, KeychainNotAnsweringError, type SecretStore } from '../../contracts/secretStore.ts';

/**
 * How long a caller waits for one keychain call. Long enough to answer an unlock prompt (type a
 * password, or click Allow on macOS), which the call waits for; GitHub's CLI gives its keyring
 * calls the same 30 s for that reason (cli/cli internal/keyring). Above GDBus's own 25 s call
 * timeout, so a Secret Service that is merely stopped reports libsecret's own error first.
 */
export const KEYCHAIN_ANSWER_WAIT_MS = 30_000;

interface Waiting {
  /** Fails the call with KeychainNotAnsweringError, said for what it was doing. */
  giveUp(): void;
}

/**
 * A listener that throws must not reject the chain every later call waits on (those would never be
 * sent), nor keep the other listeners from hearing it.
 */
function tellAnswersAgain(listener: () => void): void {
  try {
    listener();
  } catch (error) {
    console.error(`[airlock] after the keychain answered again: ${redactSecrets(error instanceof Error ? error.message : String(error))}`);
  }
}

/**
 * The keychain with a bound on every wait. keytar runs each call on libuv's thread pool (4 threads,
 * shared with file reads and DNS look-ups) and cannot cancel it: a call that never returns (D-Bus
 * stuck, an unlock prompt nobody answers) holds its thread for good. So calls run one at a time; a
 * caller waits at most `answerWaitMs`; and while a call is past its wait no other is sent (each
 * fails at once, the pool keeps its other threads). When that call returns at last, listeners hear
 * that the keychain answers again.
 */
export function boundKeychainWaits(inner: SecretStore, answerWaitMs: number = KEYCHAIN_ANSWER_WAIT_MS): SecretStore {
  let turn: Promise<void> = Promise.resolve();
  /** A call sent is past its wait: the keychain holds it. */
  let overdue = false;
  const waiting = new Set<Waiting>();
  const listeners = new Set<() => void>();

  const call = <T>(kind: KeychainCall, send: () => Promise<T>): Promise<T> => {
    if (overdue) return Promise.reject(new KeychainNotAnsweringError(answerWaitMs, kind));
    return new Promise<T>((resolve, reject) => {
      let done = false;
      const finish = (settle: () => void): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        waiting.delete(entry);
        settle();
      };
      const entry: Waiting = { giveUp: () => finish(() => reject(new KeychainNotAnsweringError(answerWaitMs, kind))) };
      waiting.add(entry);
      const timer = setTimeout(() => {
        if (sent) {
          // This call holds the keychain: the ones behind it would only wait for it, so they fail now.
          overdue = true;
          for (const other of [...waiting]) other.giveUp();
        }
        entry.giveUp();
      }, answerWaitMs);
      let sent = false;
      turn = turn.then(async () => {
        // A call that gave up before its turn is never sent: a save the user was told failed must not happen later.
        if (done) return;
        sent = true;
        try {
          const value = await send();
          finish(() => resolve(value));
        } catch (error) {
          finish(() => reject(error));
        } finally {
          if (overdue) {
            overdue = false;
            for (const listener of [...listeners]) tellAnswersAgain(listener);
          }
        }
      });
    });
  };

  return {
    get: (account) => call('read', () => inner.get(account)),
    set: (account, secret) => call('save', () => inner.set(account, secret)),
    delete: (account) => call('delete', () => inner.delete(account)),
    onAnswersAgain(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
