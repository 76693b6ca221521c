import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';
import { memorySecretStore, unavailableSecretStore } from '../../../support/memorySecretStore.ts';
import { runAirlock, type CliRun } from '../../../support/cliHarness.ts';

// `airlock key` where its keys are listed or the keychain is out of reach; cliCommands.test.ts has the rest of the CLI.

let dataDir: string;
let secrets: ReturnType<typeof memorySecretStore>;

function airlock(args: string[], input = ''): Promise<CliRun> {
  return runAirlock(dataDir, secrets, args, input);
}

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-cli-'));
  secrets = memorySecretStore();
});

afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('airlock key list', () => {
  it('masks a gateway key written into a label by hand, as the window does', async () => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    expect((await airlock(['key', 'add', 'work', '--label', 'team A'], `${SENTINEL_KEY}\n`)).exitCode).toBe(0);
    // The CLI and the window refuse such a label; an edit of airlock.json does not.
    const file = path.join(dataDir, 'airlock.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"team A"', `"team A ${SENTINEL_KEY}"`));
    const listed = await airlock(['key', 'list', 'work']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('team A');
    expect(findSentinel(listed.stdout)).toBeNull();
  });
});

// The README's way to remove Airlock relies on these leaving no gateway key behind in the keychain.
describe('removing keys with their profile', () => {
  const SECOND_KEY = 'sk-second-pool-key-0123456789';
  /** Another profile's key, which neither command may touch. */
  const HOME_KEY = 'sk-home-profile-key-0123456789';

  /** A profile whose own key became the pool's first when a second key was added: two keychain accounts. */
  async function profileWithPool(): Promise<void> {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    await airlock(['profile', 'add', 'home', '--name', 'Home', '--base-url', 'https://home.example/v1']);
    expect((await airlock(['key', 'set', 'work'], `${SENTINEL_KEY}\n`)).exitCode).toBe(0);
    expect((await airlock(['key', 'set', 'home'], `${HOME_KEY}\n`)).exitCode).toBe(0);
    expect((await airlock(['key', 'add', 'work', '--label', 'second'], `${SECOND_KEY}\n`)).exitCode).toBe(0);
    expect([...secrets.entries.values()].filter((key) => key === SENTINEL_KEY || key === SECOND_KEY)).toHaveLength(2);
  }

  it.each([
    ['profile remove', ['profile', 'remove', 'work']],
    ['key delete', ['key', 'delete', 'work']],
  ])("%s deletes every key of the profile's pool from the keychain, and no other profile's", async (_name, args) => {
    await profileWithPool();
    const run = await airlock(args);
    expect(run.exitCode, run.stderr).toBe(0);
    expect([...secrets.entries.values()]).toEqual([HOME_KEY]);
  });
});

describe('airlock key without a keychain', () => {
  /** Where a test's command line names the pool key added first. */
  const KEY_ID = '<key id>';
  async function addPoolKey(): Promise<string> {
    const added = await airlock(['key', 'add', 'work'], `${SENTINEL_KEY}\n`);
    expect(added.exitCode).toBe(0);
    return /^Added key (\S+)/.exec(added.stdout)?.[1] ?? '';
  }

  /** Runs `args` (KEY_ID standing for a pool key's id) with the keychain unreachable, on a profile with a pool or a single key. */
  async function withoutKeychain(args: string[], pool: boolean) {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    const keyId = pool ? await addPoolKey() : '';
    return runAirlock(
      dataDir,
      unavailableSecretStore(),
      args.map((arg) => (arg === KEY_ID ? keyId : arg)),
    );
  }

  it.each([
    ['key delete of a single key', ['key', 'delete', 'work'], false],
    ['key delete of a pool', ['key', 'delete', 'work'], true],
    ['key remove', ['key', 'remove', 'work', KEY_ID], true],
  ])('%s says nothing was deleted and where a key from AIRLOCK_API_KEY goes away, not to set it', async (_name, args, pool) => {
    const run = await withoutKeychain(args, pool);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('no D-Bus session');
    expect(run.stderr).toContain('nothing was deleted');
    expect(run.stderr).toContain('unset AIRLOCK_API_KEY in the shell or service that sets it');
    expect(run.stderr).not.toContain('set AIRLOCK_API_KEY for this run');
  });

  it.each([
    ['key list', ['key', 'list', 'work'], 'the keys cannot be listed'],
    ['key label', ['key', 'label', 'work', KEY_ID, 'team B'], 'the label was not changed'],
  ])('%s says what it could not do, not to set AIRLOCK_API_KEY', async (_name, args, said) => {
    const run = await withoutKeychain(args, true);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('no D-Bus session');
    expect(run.stderr).toContain(said);
    expect(run.stderr).not.toContain('set AIRLOCK_API_KEY for this run');
  });
});
