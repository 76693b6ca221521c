/**
 * The keychain helper process (keychainHelperStore.ts starts it): one keytar call per message on
 * its IPC channel, each answered by id. Its parent ends it once idle and kills it at exit; a call
 * past its wait is left to answer late (the keychain answering again is news: boundedSecretStore.ts).
 */
import { keytarCalls } from './keytarStore.ts';
import { answerHelperCall, type HelperCall } from './keychainHelperProtocol.ts';

const keychain = keytarCalls(process.argv[2]);

process.on('message', (call: HelperCall) => {
  void answerHelperCall(keychain, call).then((reply) => process.send?.(reply));
});
// The parent ended: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
