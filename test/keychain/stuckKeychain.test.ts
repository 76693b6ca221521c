import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { findSentinel } from '../support/sentinel.ts';
import { type PrivateKeyring, startPrivateKeyring } from '../support/privateKeyring.ts';

const fixture = path.join(import.meta.dirname, 'fixtures', 'stuckKeychain.ts');
/** The bound under test, short so the test is quick; production waits 30 s (boundedSecretStore.ts). */
const ANSWER_WAIT_MS = 1000;

let keyring: PrivateKeyring | null = null;

afterEach(async () => {
  await keyring?.stop();
  keyring = null;
});

describe('a keychain that stops answering', () => {
  it('fails each call within the bound with the cause and the fix, keeps the thread pool, and answers again after', async () => {
    keyring = await startPrivateKeyring();
    const child = spawn(process.execPath, [fixture, String(ANSWER_WAIT_MS)], { env: keyring.env, stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async (): Promise<Record<string, unknown>> => JSON.parse((await lines.next()).value as string);
    try {
      expect(await next()).toEqual({ ready: true });
      // D-Bus itself stops answering: libsecret's call then waits for ever (no timeout of its own).
      keyring.bus.kill('SIGSTOP');
      child.stdin.write('stuck\n');
      const stuck = await next();
      expect(stuck.fileRead).toBe(true);
      const failures = stuck.failures as string[];
      expect(failures).toHaveLength(6);
      for (const failure of failures) {
        expect(failure).toMatch(/^KeychainNotAnsweringError: the OS keychain did not answer within 1 s/);
        expect(failure).toContain('unlock');
        expect(failure).toContain('gnome-keyring-daemon');
        expect(findSentinel(failure)).toBeNull();
      }
      keyring.bus.kill('SIGCONT');
      expect(await next()).toEqual({ answersAgain: true, keyRead: true });
    } finally {
      child.kill();
    }
  });
});
