import type { Command } from 'commander';
import { read } from 'read';
import { cleanApiKey } from '../../../core/apiKey.ts';
import { bumpKeysRevision, requireProfile } from '../../profiles/configMutations.ts';
import type { ConfigStore } from '../../profiles/configStore.ts';
import { describeKeyStatus, keyLastFour } from '../../secrets/keyCache.ts';
import { gatewayKeyAccount } from '../../../contracts/secretStore.ts';
import { configStoreFor, defaultCliDeps, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';

/** A pasted key is a few hundred bytes at most; more means the wrong thing was piped in. */
const MAX_KEY_INPUT_BYTES = 64 * 1024;

/**
 * `airlock key set|delete <profile>`. The key comes from stdin or a no-echo prompt, never from
 * the command line (argv is visible to every process on the machine and lands in shell history).
 */
export function registerKeyCommands(program: Command, deps: CliDeps = defaultCliDeps()): void {
  const key = program.command('key').description('gateway keys, kept in the OS keychain');

  key
    .command('set <profile>')
    .description('store the gateway key of a profile (read from stdin, or typed at a hidden prompt)')
    .action((profileId: string, _options: unknown, command: Command) =>
      withCliErrors(command, async () => {
        const store = configStoreFor(command, deps);
        requireExistingProfile(store, profileId);
        const raw = deps.stdin.isTTY ? await promptForKey(profileId, deps) : await readAll(deps.stdin);
        const cleaned = cleanApiKey(raw);
        if (!cleaned.ok) throw new Error(cleaned.reason);
        for (const note of cleaned.notes) writeLine(deps.stderr, `note: ${note}`);
        await deps.secrets().set(gatewayKeyAccount(profileId), cleaned.key);
        await store.update(bumpKeysRevision);
        const status = describeKeyStatus({ set: true, lastFour: keyLastFour(cleaned.key) });
        writeLine(deps.stdout, `Saved the key of profile ${profileId} in the OS keychain (${status}).`);
      }),
    );

  key
    .command('delete <profile>')
    .description('delete the gateway key of a profile from the keychain')
    .action((profileId: string, _options: unknown, command: Command) =>
      withCliErrors(command, async () => {
        const store = configStoreFor(command, deps);
        requireExistingProfile(store, profileId);
        const deleted = await deps.secrets().delete(gatewayKeyAccount(profileId));
        if (deleted) await store.update(bumpKeysRevision);
        writeLine(deps.stdout, deleted ? `Deleted the key of profile ${profileId}.` : `Profile ${profileId} had no key.`);
      }),
    );
}

function requireExistingProfile(store: ConfigStore, profileId: string): void {
  const problem = store.problem();
  if (problem) throw new Error(problem);
  requireProfile(store.snapshot(), profileId);
}

async function promptForKey(profileId: string, deps: CliDeps): Promise<string> {
  // The prompt goes to stderr so stdout stays clean for scripts; nothing typed is echoed.
  return read({ prompt: `Gateway key for profile ${profileId} (input hidden): `, silent: true, input: deps.stdin, output: deps.stderr });
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_KEY_INPUT_BYTES) throw new Error('the input on stdin is too long to be a key: pipe only the key');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
