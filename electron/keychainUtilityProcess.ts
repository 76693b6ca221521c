/**
 * The desktop app's keychain helper, run by Electron's utilityProcess (keychainUtility.ts starts
 * it): one keytar call per message from the main process, each answered by id. There is no
 * process.send here: a utility process talks to the app through process.parentPort.
 */
import { keytarCalls } from '../proxy/app/secrets/keytarStore.ts';
import { answerHelperCall, type HelperCall } from '../proxy/app/secrets/keychainHelperProtocol.ts';

const keychain = keytarCalls(process.argv[2]);

process.parentPort.on('message', (message) => {
  void answerHelperCall(keychain, message.data as HelperCall).then((answer) => process.parentPort.postMessage(answer));
});
