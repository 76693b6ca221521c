import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateToken, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import { addClientToken, addProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../proxy/app/startAirlock.ts';
import { gatewayKeyAccount } from '../../../proxy/contracts/secretStore.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';

let simulator: GatewaySimulator;
let previousUmask: number;
const dirs: string[] = [];
const token = generateToken();

beforeAll(async () => {
  // The usual umask, under which files are created readable by everyone unless made otherwise.
  previousUmask = process.umask(0o022);
  simulator = await startGatewaySimulator();
});
afterAll(async () => {
  process.umask(previousUmask);
  await simulator.close();
});
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const modeOf = (file: string): string => (statSync(file).mode & 0o777).toString(8);

/** Every entry of the data directory (recursively) with its permissions, the directory itself first. */
function modesUnder(dir: string): Record<string, string> {
  const modes: Record<string, string> = { '.': modeOf(dir) };
  const walk = (current: string): void => {
    for (const name of readdirSync(current)) {
      const full = path.join(current, name);
      if (statSync(full).isDirectory()) walk(full);
      else modes[path.relative(dir, full)] = modeOf(full);
    }
  };
  walk(dir);
  return modes;
}

async function configure(dataDir: string): Promise<void> {
  const store = openConfigStore(dataDir);
  await store.update((config) => addProfile(config, { id: 'main', name: 'Main', baseUrl: simulator.baseUrl }, { activate: true }));
  await store.update((config) => addClientToken(config, tokenRecord('perm', token, null, Date.now())));
  store.close();
}

/** Starts Airlock, logs one request so the log's WAL and shared memory exist, and reads the modes while it runs. */
async function modesWhileRunning(dataDir: string): Promise<{ modes: Record<string, string>; airlock: Airlock }> {
  const airlock = await startAirlock({
    dataDir,
    port: 0,
    env: {},
    secrets: memorySecretStore({ [gatewayKeyAccount('main')]: SENTINEL_KEY }),
  });
  const answer = await rawRequest(`${airlock.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: chatBody(),
  });
  expect(answer.status).toBe(200);
  await airlock.log.flush();
  return { modes: modesUnder(dataDir), airlock };
}

// POSIX modes: on Windows the data directory's privacy would rest on ACLs, which Airlock does not set yet.
describe("the data directory and the files Airlock writes in it are the user's alone", () => {
  it('a new data directory: 0700, and the log, its WAL and shared memory 0600 like the rest', async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'airlock-perm-')), 'Airlock');
    dirs.push(path.dirname(dataDir));
    await configure(dataDir);
    const { modes, airlock } = await modesWhileRunning(dataDir);
    await airlock.stop();
    expect(Object.keys(modes)).toEqual(
      expect.arrayContaining(['requests.db', 'requests.db-wal', 'requests.db-shm', 'airlock.json', 'airlock.lock']),
    );
    expect(modes).toEqual(Object.fromEntries(Object.keys(modes).map((name) => [name, name === '.' ? '700' : '600'])));
  });

  it('a data directory that already existed with wider permissions is made private at start, files and all', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-perm-old-'));
    dirs.push(dataDir);
    chmodSync(dataDir, 0o755);
    await configure(dataDir);
    // As an older Airlock (or a hand-made setup) left them: readable by every user.
    const old = new DatabaseSync(path.join(dataDir, 'requests.db'));
    old.exec('PRAGMA journal_mode = WAL; CREATE TABLE leftover (x); INSERT INTO leftover VALUES (1);');
    old.close();
    writeFileSync(path.join(dataDir, 'capabilities.json'), '{"version": 1, "profiles": {}}\n', { mode: 0o644 });
    chmodSync(path.join(dataDir, 'airlock.json'), 0o644);
    expect(modeOf(path.join(dataDir, 'requests.db'))).toBe('644');

    const { modes, airlock } = await modesWhileRunning(dataDir);
    await airlock.stop();
    expect(modes).toMatchObject({
      '.': '700',
      'requests.db': '600',
      'requests.db-wal': '600',
      'requests.db-shm': '600',
      'airlock.json': '600',
      'capabilities.json': '600',
    });
    expect(Object.values(modes).every((mode) => (Number.parseInt(mode, 8) & 0o077) === 0)).toBe(true);
  });

  // O_CREAT|O_EXCL refuses any link, even one to nothing (open(2)), and SQLite then follows it and
  // creates the target itself, 0644 under this umask.
  it('a request log that is a link to a missing file: the target is created 0600, its WAL and shared memory beside it', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'airlock-perm-link-'));
    dirs.push(root);
    const dataDir = path.join(root, 'Airlock');
    const elsewhere = path.join(root, 'big-disk');
    mkdirSync(elsewhere);
    await configure(dataDir);
    // A link to a link to nothing, the last one relative, as `ln -s` makes them.
    symlinkSync(path.join(dataDir, 'log-link'), path.join(dataDir, 'requests.db'));
    symlinkSync(path.join('..', 'big-disk', 'requests.db'), path.join(dataDir, 'log-link'));

    const { airlock } = await modesWhileRunning(dataDir);
    const modes = modesUnder(elsewhere);
    await airlock.stop();
    expect(lstatSync(path.join(dataDir, 'requests.db')).isSymbolicLink()).toBe(true);
    expect(modes).toEqual({ '.': '755', 'requests.db': '600', 'requests.db-wal': '600', 'requests.db-shm': '600' });
  });

  it('a request log that is a link into a missing folder: start refuses, naming the link and its target', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'airlock-perm-unmounted-'));
    dirs.push(root);
    const dataDir = path.join(root, 'Airlock');
    await configure(dataDir);
    const target = path.join(root, 'unmounted', 'requests.db');
    symlinkSync(target, path.join(dataDir, 'requests.db'));
    await expect(
      startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({ [gatewayKeyAccount('main')]: SENTINEL_KEY }) }),
    ).rejects.toThrow(`${path.join(dataDir, 'requests.db')} is a link to ${target}`);
  });

  it("takes only other users' access away: a file the user made read-only stays so (an admin's fixed settings)", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-perm-readonly-'));
    dirs.push(dataDir);
    chmodSync(dataDir, 0o755);
    await configure(dataDir);
    chmodSync(path.join(dataDir, 'airlock.json'), 0o444);

    const { modes, airlock } = await modesWhileRunning(dataDir);
    await airlock.stop();
    // It was made 0600 before: writable again, under the user who had locked it.
    expect(modes).toMatchObject({ '.': '700', 'airlock.json': '400' });
  });
});
