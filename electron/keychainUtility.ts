/**
 * The desktop app's keychain: keytar's calls made in a helper started with Electron's
 * utilityProcess (keychainUtilityProcess.ts), as `airlock serve` makes them in a Node child
 * (proxy/app/secrets/keychainHelperStore.ts). A keytar call that never returns (D-Bus stuck, an
 * unlock prompt nobody answers) then holds the helper's thread, not one of the main process's
 * libuv pool, which its exit would wait for: quitting never hangs on the keychain, and the helper
 * is killed at quit. Only the transport is here; the calls, their ids and the helper's idle end are
 * proxy/app/secrets/keychainHelperProtocol.ts's.
 */
import { fileURLToPath } from 'node:url';
import { app, utilityProcess, type UtilityProcess } from 'electron';
import { KEYCHAIN_SERVICE, type SecretStore } from '../proxy/contracts/secretStore.ts';
import { boundKeychainWaits, KEYCHAIN_ANSWER_WAIT_MS } from '../proxy/app/secrets/boundedSecretStore.ts';
import {
  type HelperAnswer,
  type KeychainHelper,
  type KeychainHelperEvents,
  keychainInHelper,
} from '../proxy/app/secrets/keychainHelperProtocol.ts';
import { withoutGatewayKey } from '../proxy/core/apiKey.ts';
import { threadScriptUrl } from '../proxy/core/threadScript.ts';

/** The helper's script: the source beside this file, or its own bundle beside main.js (vite.config.ts). */
const HELPER_SCRIPT = fileURLToPath(threadScriptUrl(import.meta.url, 'keychainUtilityProcess'));

const runningHelpers = new Set<UtilityProcess>();
// Before the process ends: a helper holding a stuck call would otherwise outlive the app.
app.on('will-quit', () => {
  for (const child of runningHelpers) child.kill();
});

/** The OS keychain for the desktop app, each wait bounded (boundedSecretStore.ts). Its first call must come after `ready`. */
export function createKeychainUtilityStore(
  answerWaitMs: number = KEYCHAIN_ANSWER_WAIT_MS,
  service: string = KEYCHAIN_SERVICE,
): SecretStore {
  return boundKeychainWaits(keychainInHelper(forkUtilityHelper, service), answerWaitMs);
}

function forkUtilityHelper(service: string, events: KeychainHelperEvents): KeychainHelper {
  const child = utilityProcess.fork(HELPER_SCRIPT, [service], {
    stdio: 'ignore',
    // Without the gateway key a run may hold in AIRLOCK_API_KEY: the helper reads the keychain only.
    env: withoutGatewayKey(process.env),
    serviceName: 'Airlock keychain',
  });
  child.on('message', (answer: HelperAnswer) => events.answered(answer));
  child.on('exit', () => {
    runningHelpers.delete(child);
    events.ended();
  });
  runningHelpers.add(child);
  return {
    send: (call) => child.postMessage(call),
    kill: () => void child.kill(),
  };
}
