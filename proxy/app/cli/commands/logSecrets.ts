import type { Command } from 'commander';
import { API_KEY_ENV_VAR, cleanApiKey } from '../../../core/apiKey.ts';
import { keyAccountsOf } from '../../../contracts/keyPool.ts';
import { CONTROL_TOKEN_ACCOUNT, KeychainUnavailableError, traceHeaderAccount } from '../../../contracts/secretStore.ts';
import { configStoreFor, secretsFor, writeLine, type CliDeps } from './cliContext.ts';

/**
 * The secrets the running Airlock masks, as far as the CLI can know them, for what it reads from the
 * log: a row is masked with the keys known when it was written, and a key set later (a second pool
 * key, a key pasted into a prompt before it was set) would otherwise print as it was logged. Every
 * profile's keys, the control token and the trace export's header values from the keychain (as this
 * data directory sees it), and AIRLOCK_API_KEY. Keys replaced lately are known to the running Airlock only.
 */
export async function secretsForLogReads(command: Command, deps: CliDeps): Promise<string[]> {
  const store = configStoreFor(command, deps);
  const config = store.snapshot();
  store.close();
  const accounts = [
    ...config.profiles.flatMap((profile) => keyAccountsOf(profile)),
    CONTROL_TOKEN_ACCOUNT,
    ...config.settings.traceExport.headerNames.map(traceHeaderAccount),
  ];
  const secrets = secretsFor(command, deps);
  const found: string[] = [];
  for (const account of accounts) {
    try {
      const secret = await secrets.get(account);
      if (secret) found.push(secret);
    } catch (error) {
      if (!(error instanceof KeychainUnavailableError)) throw error;
      // The output is still masked with the keys known when each row was written, and by their shapes.
      writeLine(
        deps.stderr,
        `Warning: the keychain could not be read (${error.detail}): a key set after a request was logged may show as it was logged.`,
      );
      break;
    }
  }
  const fromEnvironment = deps.env[API_KEY_ENV_VAR];
  const cleaned = fromEnvironment === undefined ? null : cleanApiKey(fromEnvironment);
  if (cleaned?.ok) found.push(cleaned.key);
  return found;
}
