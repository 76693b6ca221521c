import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RELAUNCHED_ENV } from '../../../electron/logic/memoryLaunch.ts';
import { addClientToken, addProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { serializeConfig } from '../../../proxy/app/profiles/configParse.ts';
import { secretStoreForDataDir } from '../../../proxy/app/secrets/dataDirSecrets.ts';
import { keytarCalls } from '../../../proxy/app/secrets/keytarStore.ts';
import { CONFIG_FILE_NAME, emptyConfig } from '../../../proxy/contracts/config.ts';
import { clientTokenAccount, gatewayKeyAccount } from '../../../proxy/contracts/secretStore.ts';
import { generateToken, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import { heldKeychainCalls, holdKeychainCalls, KEYCHAIN_DIR_ENV } from '../../support/fileKeytar.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * The real electron/main.ts in a process of its own (fixtures/desktopAppProcess.ts), on the
 * stand-in for Electron, quit while a keychain call never returns. keytar cannot cancel such a
 * call (D-Bus stuck, an unlock prompt nobody answers) and it holds a libuv pool thread, which a
 * process's exit waits for: the app's keychain calls are made in a utility process, killed at quit.
 */
vi.mock('keytar', () => import('../../support/fileKeytar.ts'));

const APP_PROCESS = fileURLToPath(new URL('./fixtures/desktopAppProcess.ts', import.meta.url));
const STAND_IN_HOOKS = new URL('../../support/standInHooks.ts', import.meta.url).href;

let dataDir = '';
let keychainDir = '';
let desktopApp: ChildProcessWithoutNullStreams | null = null;

afterEach(() => {
  // Only when the test failed with the app still running.
  if (desktopApp?.exitCode === null && desktopApp.signalCode === null) desktopApp.kill('SIGKILL');
  desktopApp = null;
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(keychainDir, { recursive: true, force: true });
});

/** A data directory with a profile and a client token, their secrets in the file-backed keychain. */
async function seededDataDir(): Promise<void> {
  dataDir = mkdtempSync(join(tmpdir(), 'airlock-quit-stuck-'));
  keychainDir = mkdtempSync(join(tmpdir(), 'airlock-quit-stuck-keychain-'));
  vi.stubEnv(KEYCHAIN_DIR_ENV, keychainDir);
  const clientToken = generateToken();
  let config = addProfile(emptyConfig(), { id: 'main', name: 'Main gateway', baseUrl: 'https://gw.example/v1' }, { activate: true });
  config = addClientToken(config, tokenRecord('agent', clientToken, null, Date.now()));
  writeFileSync(join(dataDir, CONFIG_FILE_NAME), serializeConfig(config));
  const secrets = secretStoreForDataDir(keytarCalls(), dataDir, { env: process.env, platform: process.platform, homedir: homedir() });
  await secrets.set(gatewayKeyAccount('main'), SENTINEL_KEY);
  await secrets.set(clientTokenAccount('agent'), clientToken);
}

/** Starts the app; `events` fills with what it records, and `recorded` resolves at the first event that matches. */
function startDesktopApp() {
  const child = spawn(process.execPath, [APP_PROCESS], {
    env: {
      ...process.env,
      NODE_OPTIONS: `--import=${STAND_IN_HOOKS}`,
      AIRLOCK_DATA_DIR: dataDir,
      AIRLOCK_PORT: '0',
      // As the instance the app relaunched for memory (electronRelaunch.test.ts): it runs on.
      [RELAUNCHED_ENV]: '1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  desktopApp = child;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const events: string[] = [];
  const waiting = new Set<{ matches: (event: string) => boolean; resolve: (event: string) => void; reject: (error: Error) => void }>();
  // An app that ended before an event awaited will never record it: say why it ended.
  child.on('exit', (code, signal) => {
    for (const waiter of waiting) waiter.reject(new Error(`the app ended (${code ?? signal}) first:\n${stderr}`));
    waiting.clear();
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('event ')) return;
    const event = line.slice('event '.length);
    events.push(event);
    for (const waiter of [...waiting])
      if (waiter.matches(event)) {
        waiting.delete(waiter);
        waiter.resolve(event);
      }
  });
  const recorded = (matches: (event: string) => boolean): Promise<string> =>
    new Promise((resolve, reject) => {
      const seen = events.find(matches);
      if (seen !== undefined) resolve(seen);
      else if (child.exitCode !== null || child.signalCode !== null) reject(new Error(`the app ended first:\n${stderr}`));
      else waiting.add({ matches, resolve, reject });
    });
  const click = (id: string): void => void child.stdin.write(`click ${id}\n`);
  return { child, events, recorded, click };
}

describe('the desktop app while the keychain does not answer', () => {
  it('quits with a keychain call held, and the keychain helper holding it is killed at quit', async () => {
    await seededDataDir();
    const app = startDesktopApp();
    // 'close', not 'exit': by then its stdout is read to the end, so every event it printed is in.
    const exited = once(app.child, 'close');
    await app.recorded((event) => /^window:load http:\/\/127\.0\.0\.1:\d+\/_airlock\//.test(event));

    holdKeychainCalls(keychainDir);
    app.click('copy-client-token');
    await expect.poll(() => heldKeychainCalls(keychainDir)).not.toEqual([]);
    const [holderPid = ''] = (heldKeychainCalls(keychainDir)[0] ?? '').split(' ');

    app.click('quit');
    const [code] = await exited;
    expect(code).toBe(0);
    // The call was held by the keychain helper, a utility process of the app's, not by the app's own process.
    expect(Number(holderPid)).not.toBe(app.child.pid);
    expect(app.events).toContain(`utility:spawn Airlock keychain keychainUtilityProcess.ts ${holderPid}`);
    // Killed at quit, after the drain (a helper idle before was killed then too).
    const killed = app.events.lastIndexOf('utility:kill Airlock keychain');
    expect(killed).toBeGreaterThan(app.events.indexOf('app:quit-deferred'));
    expect(killed).toBeLessThan(app.events.indexOf('app:exit'));
    await expect.poll(() => existsSync(`/proc/${holderPid}`)).toBe(false);
  });
});
