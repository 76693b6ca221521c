import type { Command } from 'commander';
import { cleanApiKey } from '../../../core/apiKey.ts';
import { redactKnownSecrets } from '../../../core/redact.ts';
import { bumpKeysRevision, requireProfile } from '../../profiles/configMutations.ts';
import type { ConfigStore } from '../../profiles/configStore.ts';
import { addPoolKey, relabelPoolKey, removePoolKey, replacePoolKey, requirePoolKey } from '../../profiles/keyPoolEdits.ts';
import { describeKeyStatus, keyLastFour } from '../../secrets/keyCache.ts';
import {
  gatewayKeyAccount,
  KeychainNotAnsweringError,
  KeychainUnavailableError,
  type SecretStore,
} from '../../../contracts/secretStore.ts';
import { API_KEY_ENV_VAR } from '../../secrets/envKeySource.ts';
import { UnscopedKeyError } from '../../secrets/dataDirSecrets.ts';
import { poolKeyAccount } from '../../../contracts/keyPool.ts';
import { configStoreFor, hintFor, secretsFor, defaultCliDeps, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';
import { readSecretInput } from './secretInput.ts';

/**
 * `airlock key set|delete|add|remove|label|list <profile>`. A key comes from stdin or a no-echo
 * prompt, never from the command line (argv is visible to every process on the machine and lands
 * in shell history). A pool's keys are named by their short id and label, never shown.
 */
export function registerKeyCommands(program: Command, deps: CliDeps = defaultCliDeps()): void {
  const key = program.command('key').description('gateway keys, kept in the OS keychain');

  key
    .command('set <profile>')
    .description('store the gateway key of a profile, or with --key a new secret for one key of its pool (stdin or hidden prompt)')
    .option('--key <id>', 'the pool key to replace (ids: `key list`)')
    .action((profileId: string, options: { key?: string }, command: Command) =>
      withCliErrors(command, deps, async () => {
        const store = configStoreFor(command, deps);
        const profile = requireExistingProfile(store, profileId);
        if (profile.keyPool !== undefined && options.key === undefined) {
          throw new Error(
            `profile ${profileId} holds a key pool: name the key to replace with --key <id> (\`${hintFor(command, deps)(`key list ${profileId}`)}\`), or add one with \`${hintFor(command, deps)(`key add ${profileId}`)}\``,
          );
        }
        // Checked before the secret is asked for: a wrong id is better told before the user pastes a key.
        if (options.key !== undefined) requirePoolKey(store.snapshot(), profileId, options.key);
        await requireKeychain(secretsFor(command, deps), profileId);
        const cleaned = await readKey(deps, profileId);
        const status = describeKeyStatus({ set: true, lastFour: keyLastFour(cleaned) });
        if (options.key !== undefined) {
          await replacePoolKey({ secrets: secretsFor(command, deps), config: store }, profileId, options.key, cleaned);
          writeLine(deps.stdout, `Saved a new secret for key ${options.key} of profile ${profileId} in the OS keychain (${status}).`);
          return;
        }
        await secretsFor(command, deps).set(gatewayKeyAccount(profileId), cleaned);
        await store.update(bumpKeysRevision);
        writeLine(deps.stdout, `Saved the key of profile ${profileId} in the OS keychain (${status}).`);
      }),
    );

  key
    .command('delete <profile>')
    .description('delete the gateway key of a profile (every key of its pool) from the keychain')
    .action((profileId: string, _options: unknown, command: Command) =>
      withCliErrors(command, deps, () =>
        withKeychainFallback(DELETE_FALLBACK, async () => {
          const store = configStoreFor(command, deps);
          const profile = requireExistingProfile(store, profileId);
          if (profile.keyPool !== undefined) {
            for (const entry of profile.keyPool)
              await removePoolKey({ secrets: secretsFor(command, deps), config: store }, profileId, entry.id);
            writeLine(deps.stdout, `Deleted the ${profile.keyPool.length} key(s) of the pool of profile ${profileId}.`);
            return;
          }
          const deleted = await secretsFor(command, deps).delete(gatewayKeyAccount(profileId));
          if (deleted) await store.update(bumpKeysRevision);
          writeLine(deps.stdout, deleted ? `Deleted the key of profile ${profileId}.` : `Profile ${profileId} had no key.`);
        }),
      ),
    );

  key
    .command('add <profile>')
    .description("add a key to the profile's pool, used in turn with the others (the profile's own key becomes the pool's first)")
    .option('--label <label>', 'a name to tell the key by in the window and the log (default "key N")')
    .action((profileId: string, options: { label?: string }, command: Command) =>
      withCliErrors(command, deps, async () => {
        const store = configStoreFor(command, deps);
        requireExistingProfile(store, profileId);
        await requireKeychain(secretsFor(command, deps), profileId);
        const cleaned = await readKey(deps, profileId);
        const entry = await addPoolKey({ secrets: secretsFor(command, deps), config: store }, profileId, options.label, cleaned);
        const status = describeKeyStatus({ set: true, lastFour: keyLastFour(cleaned) });
        writeLine(deps.stdout, `Added key ${entry.id} ("${entry.label}") to the pool of profile ${profileId} (${status}).`);
      }),
    );

  key
    .command('remove <profile> <id>')
    .description("remove one key from the profile's pool and from the keychain")
    .action((profileId: string, keyId: string, _options: unknown, command: Command) =>
      withCliErrors(command, deps, () =>
        withKeychainFallback(DELETE_FALLBACK, async () => {
          const store = configStoreFor(command, deps);
          requireExistingProfile(store, profileId);
          await removePoolKey({ secrets: secretsFor(command, deps), config: store }, profileId, keyId);
          writeLine(deps.stdout, `Removed key ${keyId} from the pool of profile ${profileId}.`);
        }),
      ),
    );

  key
    .command('label <profile> <id> <label>')
    .description('rename one key of the pool')
    .action((profileId: string, keyId: string, label: string, _options: unknown, command: Command) =>
      withCliErrors(command, deps, () =>
        withKeychainFallback(LABEL_FALLBACK, async () => {
          const store = configStoreFor(command, deps);
          requireExistingProfile(store, profileId);
          const entry = await relabelPoolKey({ secrets: secretsFor(command, deps), config: store }, profileId, keyId, label);
          writeLine(deps.stdout, `Key ${entry.id} of profile ${profileId} is now "${entry.label}".`);
        }),
      ),
    );

  key
    .command('list <profile>')
    .description("the profile's keys: id, label and whether the keychain holds each (its last four characters)")
    .action((profileId: string, _options: unknown, command: Command) =>
      withCliErrors(command, deps, () =>
        withKeychainFallback(LIST_FALLBACK, async () => {
          const store = configStoreFor(command, deps);
          const profile = requireExistingProfile(store, profileId);
          const secrets = secretsFor(command, deps);
          if (profile.keyPool === undefined) {
            const single = await secrets.get(gatewayKeyAccount(profileId));
            writeLine(
              deps.stdout,
              `${profileId}: one key, ${describeKeyStatus({ set: single !== null, lastFour: single ? keyLastFour(single) : null })}`,
            );
            return;
          }
          const held = await Promise.all(profile.keyPool.map((entry) => secrets.get(poolKeyAccount(profileId, entry.id))));
          const keys = held.filter((secret) => secret !== null);
          for (const [index, entry] of profile.keyPool.entries()) {
            const secret = held[index] ?? null;
            const status = describeKeyStatus({ set: secret !== null, lastFour: secret ? keyLastFour(secret) : null });
            // A label written into the file by hand could hold a key: masked, as the window masks it.
            writeLine(deps.stdout, `${entry.id}\t${redactKnownSecrets(entry.label, keys)}\t${status}`);
          }
        }),
      ),
    );
}

/*
 * What a key command that cannot reach the keychain says after "start a keyring, or": the
 * gateway keys' usual way forward (AIRLOCK_API_KEY for a run) is no answer to a delete, a list or
 * a label, which have nothing to do with a run.
 */
const DELETE_FALLBACK = `note that nothing was deleted (Airlock keeps keys in no file); if the key comes from ${API_KEY_ENV_VAR}, unset ${API_KEY_ENV_VAR} in the shell or service that sets it`;
const LIST_FALLBACK = `note that the keys cannot be listed without it (a run without a keychain takes its key from ${API_KEY_ENV_VAR})`;
const LABEL_FALLBACK = "note that the label was not changed: it is checked against the pool's keys, which only the keychain holds";

async function withKeychainFallback(fallback: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    throw error instanceof KeychainUnavailableError ? error.withFallback(fallback) : error;
  }
}

function requireExistingProfile(store: ConfigStore, profileId: string) {
  const problem = store.problem();
  if (problem) throw new Error(problem);
  return requireProfile(store.snapshot(), profileId);
}

/**
 * Reads the profile's key account before the key is asked for, so a missing, locked or silent
 * keychain is told (and its unlock prompt shown) before the user pastes a key it could not keep.
 */
async function requireKeychain(secrets: SecretStore, profileId: string): Promise<void> {
  try {
    await secrets.get(gatewayKeyAccount(profileId));
  } catch (error) {
    // The keychain answered: a key under the account every data directory shares is what `key set` replaces.
    if (error instanceof UnscopedKeyError) return;
    // Said as the save's silence is: the way forward is to save once it answers, not a read later.
    if (error instanceof KeychainNotAnsweringError) throw new KeychainNotAnsweringError(error.waitedMs, 'save');
    throw error;
  }
}

async function readKey(deps: CliDeps, profileId: string): Promise<string> {
  const raw = await readSecretInput(deps, `Gateway key for profile ${profileId} (input hidden): `, 'key');
  const cleaned = cleanApiKey(raw);
  if (!cleaned.ok) throw new Error(cleaned.reason);
  for (const note of cleaned.notes) writeLine(deps.stderr, `note: ${note}`);
  return cleaned.key;
}
