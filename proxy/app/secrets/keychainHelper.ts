/**
 * The keychain helper process (keychainHelperStore.ts starts it): one keytar call per message on
 * its IPC channel, each answered by id. Its parent kills it when a call does not answer in time.
 */
import { keytarCalls } from './keytarStore.ts';
import { answerHelperCall, type HelperCall } from './keychainHelperProtocol.ts';

const keychain = keytarCalls(process.argv[2]);

process.on('message', (call: HelperCall) => {
  void answerHelperCall(keychain, call).then((reply) => process.send?.(reply));
});
// The parent ended: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
