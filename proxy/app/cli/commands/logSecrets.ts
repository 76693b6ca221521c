import type { Command } from 'commander';
import { keyAccountsOf } from '../../../contracts/keyPool.ts';
import { CONTROL_TOKEN_ACCOUNT, KeychainUnavailableError, traceHeaderAccount } from '../../../contracts/secretStore.ts';
import { knownSecretsFrom } from '../../secrets/knownSecrets.ts';
import { openLogForReading, type ReadOnlyLog } from '../../export/readOnlyLog.ts';
import { configStoreFor, dataDirFor, hintFor, secretsFor, writeLine, type CliDeps } from './cliContext.ts';

/**
 * The data directory's request log, opened for reading, and the secrets it is masked with as it is read
 * (secretsForLogReads). The keychain is read only once the log is there to read: each read may prompt
 * (macOS) or wait out a locked keyring, for nothing where there is no log, or one of another schema.
 */
export async function openLogWithSecrets(command: Command, deps: CliDeps): Promise<{ log: ReadOnlyLog; knownSecrets: string[] }> {
  const knownSecrets: string[] = [];
  const log = openLogForReading(dataDirFor(command, deps), hintFor(command, deps), () => knownSecrets);
  try {
    knownSecrets.push(...(await secretsForLogReads(command, deps)));
  } catch (error) {
    log.close();
    throw error;
  }
  return { log, knownSecrets };
}

/**
 * The secrets the running Airlock masks, as far as the CLI can know them, for what it reads from the
 * log: a row is masked with the keys known when it was written, and a key set later (a second pool
 * key, a key pasted into a prompt before it was set) would otherwise print as it was logged. The
 * kinds are knownSecretsFrom's, read from the keychain as this data directory sees it and from the
 * CLI's environment. Keys replaced lately are known to the running Airlock only.
 */
async function secretsForLogReads(command: Command, deps: CliDeps): Promise<string[]> {
  const store = configStoreFor(command, deps);
  const config = store.snapshot();
  store.close();
  const read = keychainReader(command, deps);
  const gatewayKeys = await read(config.profiles.flatMap((profile) => keyAccountsOf(profile)));
  const controlTokens = await read([CONTROL_TOKEN_ACCOUNT]);
  const traceHeaderValues = await read(config.settings.traceExport.headerNames.map(traceHeaderAccount));
  return knownSecretsFrom({
    gatewayKeys: () => gatewayKeys,
    controlTokens: () => controlTokens,
    traceHeaderValues: () => traceHeaderValues,
    env: deps.env,
  })();
}

/** Reads accounts from the keychain; once it does not answer, warns one time and reads nothing more. */
function keychainReader(command: Command, deps: CliDeps): (accounts: string[]) => Promise<string[]> {
  const secrets = secretsFor(command, deps);
  let unavailable = false;
  return async (accounts) => {
    const found: string[] = [];
    for (const account of accounts) {
      if (unavailable) break;
      try {
        const secret = await secrets.get(account);
        if (secret) found.push(secret);
      } catch (error) {
        if (!(error instanceof KeychainUnavailableError)) throw error;
        unavailable = true;
        // The output is still masked with the keys known when each row was written, and by their shapes.
        writeLine(
          deps.stderr,
          `Warning: the keychain could not be read (${error.detail}): a key set after a request was logged may show as it was logged.`,
        );
      }
    }
    return found;
  };
}
