import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { KEYCHAIN_SERVICE, type SecretStore } from '../../contracts/secretStore.ts';
import { boundKeychainWaits, KEYCHAIN_ANSWER_WAIT_MS } from './boundedSecretStore.ts';
import { type HelperAnswer, type KeychainHelper, type KeychainHelperEvents, keychainInHelper } from './keychainHelperProtocol.ts';
import { withoutGatewayKey } from '../../core/apiKey.ts';

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
  return boundKeychainWaits(keychainInHelper(forkNodeHelper, service), answerWaitMs);
}

/** Every helper running, killed when Airlock exits (one listener for them all). */
const runningHelpers = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of runningHelpers) child.kill('SIGKILL');
});

function forkNodeHelper(service: string, events: KeychainHelperEvents): KeychainHelper {
  // Its environment without the gateway key a run may hold in AIRLOCK_API_KEY: the helper reads the keychain only.
  const child = fork(HELPER, [service], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], env: withoutGatewayKey(process.env) });
  child.on('message', (answer: HelperAnswer) => events.answered(answer));
  child.on('exit', () => {
    runningHelpers.delete(child);
    events.ended();
  });
  // A helper that could not be started (no file descriptor or process left: EMFILE, EAGAIN) or sent a
  // call (it died before its exit was seen) is told by an 'error' event, which ends Airlock unless
  // listened to. Its calls fail as the keychain unavailable; one that never started has no exit to wait for.
  child.on('error', (error: NodeJS.ErrnoException) => {
    if (child.pid === undefined) runningHelpers.delete(child);
    events.ended(error.code ?? 'unknown error');
  });
  child.unref();
  child.channel?.unref();
  runningHelpers.add(child);
  return {
    // No channel (never made, or closed as the helper died): the call is failed by that 'error' or exit.
    send: (call) => {
      if (child.connected) child.send(call);
    },
    kill: () => child.kill(),
  };
}
