import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretStore } from '../../../../proxy/contracts/secretStore.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { type ControlHarness, setUpMainProfileAndAgent, startControlHarness } from '../../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { unavailableSecretStore } from '../../../support/memorySecretStore.ts';

/**
 * `request`, `export requests` and `sessions` read the local log only. They read the keychain for one
 * reason: to mask a key learned after a row was written (laterKeyMasking.test.ts), and each read can
 * prompt (macOS) or wait out a locked or stuck keyring. So the keychain is read only when there is a
 * log to mask, and a keychain that cannot be reached costs a warning, never the command.
 */

/** A keychain that counts its reads and holds nothing. */
function countingSecretStore(): SecretStore & { reads: number } {
  const store = {
    reads: 0,
    get: async () => {
      store.reads += 1;
      return null;
    },
    set: async () => undefined,
    delete: async () => false,
  };
  return store;
}

const LOG_READS = (requestId: string): string[][] => [['request', requestId], ['export', 'requests', '--format', 'csv'], ['sessions']];

let harness: ControlHarness;
let logged: Promise<string> | null = null;
beforeAll(async () => {
  harness = await startControlHarness();
});
afterAll(async () => {
  await harness?.close();
});

/** One request logged and ended, once for the file (its row is awaited by a poll, which runs only inside a test). */
function loggedRequestId(): Promise<string> {
  logged ??= (async () => {
    const token = await setUpMainProfileAndAgent(harness);
    const answer = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody(),
    });
    expect(answer.status).toBe(200);
    return (await harness.loggedDetail(answer)).row.id;
  })();
  return logged;
}

describe('the commands that read the log, and the keychain', () => {
  it('work with no keychain reachable (no D-Bus session), with one warning', async () => {
    for (const args of LOG_READS(await loggedRequestId())) {
      const run = await runAirlock(harness.dataDir, unavailableSecretStore(), args);
      expect(run.exitCode, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expect(run.stdout).not.toBe('');
      expect(run.stderr.match(/the keychain could not be read/g)).toHaveLength(1);
    }
  });

  it('do not touch the keychain for --help or a mistake in the command line', async () => {
    await loggedRequestId();
    const keychain = countingSecretStore();
    for (const args of [
      ['request', '--help'],
      ['request'],
      ['export', 'requests', '--help'],
      ['export', 'requests'],
      ['export', 'requests', '--format', 'xml'],
      ['export', 'requests', '--format', 'csv', '--since', 'yesterday'],
      ['sessions', '--help'],
      ['sessions', '--limit', '0'],
    ]) {
      const run = await runAirlock(harness.dataDir, keychain, args);
      expect(run.exitCode, args.join(' ')).not.toBe(1);
    }
    expect(keychain.reads).toBe(0);
  });

  it('do not touch the keychain where there is no log to read', async () => {
    const emptyDataDir = mkdtempSync(path.join(tmpdir(), 'airlock-no-log-'));
    try {
      const keychain = countingSecretStore();
      for (const args of LOG_READS('req_unknown')) {
        const run = await runAirlock(emptyDataDir, keychain, args);
        expect(run.exitCode).toBe(1);
        expect(run.stderr).toMatch(/no request log in/);
      }
      expect(keychain.reads).toBe(0);
    } finally {
      rmSync(emptyDataDir, { recursive: true, force: true });
    }
  });
});
