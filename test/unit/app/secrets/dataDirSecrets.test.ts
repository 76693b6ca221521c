import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { secretStoreForDataDir, UnscopedKeyError } from '../../../../proxy/app/secrets/dataDirSecrets.ts';
import { clientTokenAccount, CONTROL_TOKEN_ACCOUNT, traceHeaderAccount } from '../../../../proxy/contracts/secretStore.ts';
import { poolKeyAccount } from '../../../../proxy/contracts/keyPool.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';

let root: string;
/** The default data directory is `<configHome>/Airlock` (XDG_CONFIG_HOME on Linux). */
let host: { env: NodeJS.ProcessEnv; platform: NodeJS.Platform; homedir: string };

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'airlock-dir-secrets-'));
  host = { env: { XDG_CONFIG_HOME: path.join(root, 'config') }, platform: 'linux', homedir: path.join(root, 'home') };
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("a data directory's keychain accounts", () => {
  it('are the plain ones for the default data directory, however its path is written', async () => {
    const keychain = memorySecretStore();
    const secrets = secretStoreForDataDir(keychain, path.join(root, 'config', '.', 'Airlock'), host);
    await secrets.set('work', 'sk-default-key-0001');
    expect([...keychain.entries.keys()]).toEqual(['work']);
  });

  it('are its own for any other, the same before it exists, after, and through a symlink', async () => {
    const keychain = memorySecretStore();
    const other = path.join(root, 'other');
    await secretStoreForDataDir(keychain, other, host).set('work', 'sk-other-key-00000001');
    mkdirSync(other);
    symlinkSync(other, path.join(root, 'link'));
    expect(await secretStoreForDataDir(keychain, other, host).get('work')).toBe('sk-other-key-00000001');
    expect(await secretStoreForDataDir(keychain, path.join(root, 'link'), host).get('work')).toBe('sk-other-key-00000001');
    expect(await secretStoreForDataDir(keychain, path.join(root, 'config', 'Airlock'), host).get('work')).toBeNull();
    expect(await secretStoreForDataDir(keychain, path.join(root, 'third'), host).get('work')).toBeNull();
    expect(keychain.entries.has('work')).toBe(false);
  });

  it('refuse a gateway key found only under the plain account, naming the command that sets its own', async () => {
    const other = path.join(root, 'other dir');
    const keychain = memorySecretStore({
      work: 'sk-plain-key-00000001',
      [poolKeyAccount('work', 'spare')]: 'sk-plain-key-00000002',
      [CONTROL_TOKEN_ACCOUNT]: 'alkc_plain-control',
      [clientTokenAccount('cli')]: 'alk_plain-token',
      [traceHeaderAccount('x-team')]: 'plain-header',
    });
    const secrets = secretStoreForDataDir(keychain, other, host);
    const refusal = secrets.get('work');
    await expect(refusal).rejects.toBeInstanceOf(UnscopedKeyError);
    await expect(refusal).rejects.toThrow(`npx airlock key set work --data-dir '${other}'`);
    await expect(secrets.get(poolKeyAccount('work', 'spare'))).rejects.toThrow(
      `npx airlock key set work --key spare --data-dir '${other}'`,
    );
    // Not gateway keys: made anew or set again in this directory, never taken from another one.
    for (const account of [CONTROL_TOKEN_ACCOUNT, clientTokenAccount('cli'), traceHeaderAccount('x-team')]) {
      expect(await secrets.get(account)).toBeNull();
    }
    await secrets.set('work', 'sk-own-key-0000000001');
    expect(await secrets.get('work')).toBe('sk-own-key-0000000001');
    expect(keychain.entries.get('work')).toBe('sk-plain-key-00000001');
  });
});
