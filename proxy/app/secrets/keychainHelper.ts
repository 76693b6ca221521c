/**
 * The keychain helper process (keychainHelperStore.ts starts it): one keytar call per message on
 * its IPC channel, each answered by id. Its parent kills it when a call does not answer in time.
 */
import { KeychainUnavailableError } from '../../contracts/secretStore.ts';
import { keytarCalls } from './keytarStore.ts';
import type { HelperAnswer, HelperCall } from './keychainHelperStore.ts';

const keychain = keytarCalls(process.argv[2]);

async function answer(call: HelperCall): Promise<HelperAnswer> {
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

process.on('message', (call: HelperCall) => {
  void answer(call).then((reply) => process.send?.(reply));
});
// The parent ended: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
