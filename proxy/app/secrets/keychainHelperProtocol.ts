import { type KeychainCall, KeychainUnavailableError, type SecretStore } from '../../contracts/secretStore.ts';

/**
 * What a keychain helper process and Airlock say to each other, whatever carries it: Node's IPC
 * channel for the CLI and `airlock serve` (keychainHelperStore.ts), Electron's utilityProcess for
 * the desktop app (electron/keychainUtility.ts).
 */

/** One keychain call sent to the helper process. */
export interface HelperCall {
  id: number;
  kind: KeychainCall;
  account: string;
  secret?: string;
}

/** The helper's answer: the call's value, or the keychain's reason for failing it. */
export type HelperAnswer = { id: number; value: string | boolean | null } | { id: number; failure: string };

/** The helper's side: one call made on the keychain, answered by its id. */
export async function answerHelperCall(keychain: SecretStore, call: HelperCall): Promise<HelperAnswer> {
  try {
    if (call.kind === 'read') return { id: call.id, value: await keychain.get(call.account) };
    if (call.kind === 'save') {
      await keychain.set(call.account, call.secret ?? '');
      return { id: call.id, value: null };
    }
    return { id: call.id, value: await keychain.delete(call.account) };
  } catch (error) {
    // keytar's reasons never hold the secret (keytarStore.ts); anything else is said without its message.
    return { id: call.id, failure: error instanceof KeychainUnavailableError ? error.detail : 'the keychain call failed' };
  }
}

/** A helper process as the calls see it, whatever started it (child_process here, Electron's utilityProcess in the desktop app). */
export interface KeychainHelper {
  send(call: HelperCall): void;
  /** Ends it, a call it holds included. */
  kill(): void;
}

/** What a started helper tells: each answer, and its end (for whatever reason). */
export interface KeychainHelperEvents {
  answered(answer: HelperAnswer): void;
  /** `cause`: why it could not be started or reached (EMFILE), when that is why it ended. */
  ended(cause?: string): void;
}

/** Starts a helper process for the keychain's `service`. */
export type StartKeychainHelper = (service: string, events: KeychainHelperEvents) => KeychainHelper;

type Settle = (answer: HelperAnswer | KeychainUnavailableError) => void;

/**
 * The keychain's calls sent to a helper process that `start` starts when a call comes and that is
 * ended once idle, so a running Airlock keeps no process for its rare keychain calls. The calls are
 * not bounded here (boundKeychainWaits does that).
 */
export function keychainInHelper(start: StartKeychainHelper, service: string): SecretStore {
  let helper: { child: KeychainHelper; pending: Map<number, Settle> } | null = null;
  let nextId = 1;

  const started = (): NonNullable<typeof helper> => {
    if (helper) return helper;
    // Each helper settles only the calls sent to it: one ended for idleness must not fail its successor's.
    const pending = new Map<number, Settle>();
    const own = {
      pending,
      child: start(service, {
        answered(answer) {
          const settle = pending.get(answer.id);
          pending.delete(answer.id);
          settle?.(answer);
          // Idle once the caller had its turn to send the next call (a reading of several accounts does at once): it ends.
          setImmediate(() => {
            if (pending.size > 0 || helper !== own) return;
            helper = null;
            own.child.kill();
          });
        },
        ended(cause) {
          if (helper === own) helper = null;
          const reason = cause === undefined ? 'the keychain helper process ended' : `the keychain helper process failed (${cause})`;
          for (const [id, settle] of [...pending]) {
            pending.delete(id);
            settle(new KeychainUnavailableError(reason));
          }
        },
      }),
    };
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
