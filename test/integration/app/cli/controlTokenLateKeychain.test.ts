import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateToken, tokenRecord } from '../../../../proxy/http/clientTokens.ts';
import { addClientToken } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { boundKeychainWaits } from '../../../../proxy/app/secrets/boundedSecretStore.ts';
import { type Airlock, startAirlock } from '../../../../proxy/app/startAirlock.ts';
import { CONTROL_TOKEN_ACCOUNT, type SecretStore } from '../../../../proxy/contracts/secretStore.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';

/** The bound under test, short so the test is quick; production waits 30 s (boundedSecretStore.ts). */
const ANSWER_WAIT_MS = 200;
const STORED_CONTROL_TOKEN = 'alkc_control-token-of-an-earlier-run-0123456789';

let airlock: Airlock | null = null;
let dataDir = '';

afterEach(async () => {
  await airlock?.stop();
  airlock = null;
  rmSync(dataDir, { recursive: true, force: true });
});

/** A keychain whose reads wait for the test, as a keyring still starting (or behind an unlock prompt) when Airlock starts. */
function slowKeychain(initial: Record<string, string>) {
  const stored = memorySecretStore(initial);
  let answer: () => void = () => undefined;
  const answering = new Promise<void>((resolve) => {
    answer = resolve;
  });
  const inner: SecretStore = { ...stored, get: async (account) => answering.then(() => stored.get(account)) };
  return { stored, airlockSecrets: boundKeychainWaits(inner, ANSWER_WAIT_MS), answer };
}

async function startOnSlowKeychain(secrets: SecretStore): Promise<Airlock> {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-late-control-token-'));
  const store = openConfigStore(dataDir);
  await store.update((config) => addClientToken(config, tokenRecord('quiet', generateToken(), null, Date.now())));
  store.close();
  return startAirlock({ dataDir, port: 0, env: {}, secrets, uiDir: path.join(dataDir, 'no-ui') });
}

/** `airlock resume quiet`: a command that needs the running Airlock to take the keychain's control token. */
const resumeQuiet = (stored: SecretStore) => runAirlock(dataDir, stored, ['resume', 'quiet', '--port', String(airlock!.proxy.port)]);

describe('CLI control commands after Airlock started while the keychain did not answer', () => {
  it("work with the keychain's control token once the keychain answers, without a restart", async () => {
    const keychain = slowKeychain({ [CONTROL_TOKEN_ACCOUNT]: STORED_CONTROL_TOKEN });
    airlock = await startOnSlowKeychain(keychain.airlockSecrets);
    // The token in the keychain is not the one this run started with (the window keeps that one).
    const runToken = airlock.controlToken;
    expect(runToken).not.toBe(STORED_CONTROL_TOKEN);
    const whileSilent = await resumeQuiet(keychain.stored);
    expect(whileSilent.exitCode).toBe(1);
    expect(whileSilent.stderr).toContain('needs the Airlock control token');

    keychain.answer();
    await expect.poll(async () => (await resumeQuiet(keychain.stored)).exitCode).toBe(0);
    expect((await resumeQuiet(keychain.stored)).stdout).toContain('Client "quiet" was not paused.');
    const status = await fetch(`${airlock.proxy.url}/_airlock/api/status`, { headers: { authorization: `Bearer ${runToken}` } });
    expect(status.status).toBe(200);
  });

  it('keeps the run’s control token in the keychain once it answers, when it held none, so the CLI finds it', async () => {
    const keychain = slowKeychain({});
    airlock = await startOnSlowKeychain(keychain.airlockSecrets);

    keychain.answer();
    await expect.poll(() => keychain.stored.entries.get(CONTROL_TOKEN_ACCOUNT)).toBe(airlock.controlToken);
    const run = await resumeQuiet(keychain.stored);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
  });
});
