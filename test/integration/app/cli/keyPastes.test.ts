import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SecretStore } from '../../../../proxy/contracts/secretStore.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { findSentinel, SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../../../support/sentinel.ts';

let dataDir: string;
let secrets: SecretStore;

/** What a terminal hands the hidden prompt: `typed` in one chunk, as a paste arrives. */
function terminalTyping(typed: string): PassThrough {
  const terminal = new PassThrough();
  Object.assign(terminal, { isTTY: true });
  return terminal.end(typed);
}

beforeEach(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-cli-'));
  secrets = memorySecretStore();
  expect((await runAirlock(dataDir, secrets, ['profile', 'add', 'main', '--base-url', 'https://main.example/v1'])).exitCode).toBe(0);
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('airlock key set at the hidden prompt', () => {
  it.each([
    [`${SENTINEL_KEY}\n${SECOND_SENTINEL_KEY}\n`, 2],
    [`${SENTINEL_KEY}\r${SECOND_SENTINEL_KEY}\r`, 2],
    [`${SENTINEL_KEY}\r\n\r\n${SECOND_SENTINEL_KEY}\r\nthird\r\n`, 3],
  ])('refuses a paste of several lines, saving neither key and repeating none (%#)', async (pasted, lines) => {
    const run = await runAirlock(dataDir, secrets, ['key', 'set', 'main'], terminalTyping(pasted));
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain(`the paste held ${lines} lines, and a key is one: nothing was saved`);
    expect(await secrets.get('main')).toBeNull();
    expect(findSentinel(run.stdout + run.stderr)).toBeNull();
    expect(findSentinel(run.stdout + run.stderr, SECOND_SENTINEL_KEY)).toBeNull();
  });

  it('saves a key pasted as one line, its Enter after it or with it', async () => {
    for (const pasted of [`${SENTINEL_KEY}\r`, `  ${SENTINEL_KEY}  \r\n`]) {
      const run = await runAirlock(dataDir, secrets, ['key', 'set', 'main'], terminalTyping(pasted));
      expect(run.exitCode, run.stderr).toBe(0);
      expect(await secrets.get('main')).toBe(SENTINEL_KEY);
    }
  });
});

describe('airlock key set with a key no gateway has', () => {
  it('refuses a 10 KB key with the length taken, saving nothing', async () => {
    const run = await runAirlock(dataDir, secrets, ['key', 'set', 'main'], `sk-${'a1B2'.repeat(2500)}\n`);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain('The key is 10003 characters long, and a gateway key is at most 4096');
    expect(await secrets.get('main')).toBeNull();
  });
});
