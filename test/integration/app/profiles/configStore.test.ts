import { execFile } from 'node:child_process';
import fs, { type FSWatcher, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { syncBuiltinESMExports } from 'node:module';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { addProfile, setActiveProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { ConfigBrokenError, openConfigStore, type ConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { parseConfigText } from '../../../../proxy/app/profiles/configParse.ts';

const run = promisify(execFile);
const aliasWriter = path.join(import.meta.dirname, 'fixtures', 'aliasWriter.ts');

let dataDir: string;
let stores: ConfigStore[];

function open(watch = false): ConfigStore {
  const store = openConfigStore(dataDir, { watch, pollIntervalMs: 50 });
  stores.push(store);
  return store;
}

function configPath(): string {
  return path.join(dataDir, 'airlock.json');
}

async function waitFor(condition: () => boolean): Promise<void> {
  await expect.poll(condition).toBe(true);
}

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-config-'));
  stores = [];
});

afterEach(() => {
  for (const store of stores) store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('ConfigStore', () => {
  it('starts empty when there is no file, and writes nothing until a change', () => {
    const store = open();
    expect(store.snapshot().profiles).toEqual([]);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('writes atomically: valid JSON, owner-only, no temp file left behind', async () => {
    const store = open();
    await store.update((config) => addProfile(config, { id: 'work', name: 'Work', baseUrl: 'gw.example/v1/' }));
    const text = readFileSync(configPath(), 'utf8');
    const parsed = parseConfigText(text);
    expect(parsed.ok && parsed.config.profiles[0]?.baseUrl).toBe('https://gw.example/v1');
    expect(statSync(configPath()).mode & 0o777).toBe(0o600);
    expect(readdirSync(dataDir).filter((name) => name.endsWith('.tmp') || name.endsWith('.lock'))).toEqual([]);
    expect(store.snapshot().activeProfileId).toBe('work');
  });

  it('keeps a broken file, copies it aside, and refuses to write until it is fixed', async () => {
    const broken = '{\n  "version": 1,\n  "profiles": [\n    { "id": "work", "name": "Work" }\n  ]\n}\n';
    writeFileSync(configPath(), broken);
    // Made by hand, readable by all: the copy is still the user's alone, as start narrows only airlock.json itself.
    fs.chmodSync(configPath(), 0o644);
    const store = open();
    expect(store.problem()).toContain('profiles[0].baseUrl (line 4)');
    const backups = readdirSync(dataDir).filter((name) => name.startsWith('airlock.json.broken-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(path.join(dataDir, backups[0] ?? ''), 'utf8')).toBe(broken);
    expect(statSync(path.join(dataDir, backups[0] ?? '')).mode & 0o777).toBe(0o600);

    await expect(store.update((config) => config)).rejects.toBeInstanceOf(ConfigBrokenError);
    expect(readFileSync(configPath(), 'utf8')).toBe(broken);
    // A second read of the same broken content does not pile up copies.
    open();
    expect(readdirSync(dataDir).filter((name) => name.startsWith('airlock.json.broken-'))).toHaveLength(1);

    writeFileSync(configPath(), broken.replace('"name": "Work"', '"name": "Work", "baseUrl": "https://gw.example/v1"'));
    const fixed = await store.update((config) => setActiveProfile(config, 'work'));
    expect(fixed.activeProfileId).toBe('work');
    expect(store.problem()).toBeNull();
  });

  it('reset starts over with an empty config and keeps the broken copy', async () => {
    writeFileSync(configPath(), '{ not json');
    const store = open();
    await store.reset();
    expect(store.problem()).toBeNull();
    expect(parseConfigText(readFileSync(configPath(), 'utf8')).ok).toBe(true);
    expect(readdirSync(dataDir).some((name) => name.startsWith('airlock.json.broken-'))).toBe(true);
  });

  it('a watching store sees another writer’s change without restarting', async () => {
    const proxyView = open(true);
    const cliView = open();
    await cliView.update((config) => addProfile(config, { id: 'a', name: 'A', baseUrl: 'https://a.example/v1' }));
    await cliView.update((config) => addProfile(config, { id: 'b', name: 'B', baseUrl: 'https://b.example/v1' }));
    await cliView.update((config) => setActiveProfile(config, 'b'));
    await waitFor(() => proxyView.snapshot().activeProfileId === 'b');
  });

  it('a watching store keeps its last good snapshot while the file is broken', async () => {
    const proxyView = open(true);
    await proxyView.update((config) => addProfile(config, { id: 'a', name: 'A', baseUrl: 'https://a.example/v1' }));
    writeFileSync(configPath(), '{ "version": 1, ');
    await waitFor(() => proxyView.problem() !== null);
    expect(proxyView.snapshot().activeProfileId).toBe('a');
  });

  it('loses nothing when two processes write at the same time', async () => {
    const store = open();
    await store.update((config) => addProfile(config, { id: 'p', name: 'P', baseUrl: 'https://p.example/v1' }));
    const writers = ['one', 'two'].map((prefix) => run(process.execPath, [aliasWriter, dataDir, prefix, '20'], { timeout: 60_000 }));
    await Promise.all(writers);
    store.reload();
    const aliases = Object.keys(store.snapshot().profiles[0]?.modelAliases ?? {});
    expect(aliases).toHaveLength(40);
    for (const prefix of ['one', 'two']) {
      for (let index = 0; index < 20; index += 1) expect(aliases).toContain(`${prefix}-${index}`);
    }
  }, 60_000);

  it('watched again after its watcher failed, keeps one poll, and close stops it', async () => {
    // The store's `watch` is node:fs's named export: the spy reaches it through syncBuiltinESMExports.
    const realWatch = fs.watch;
    const watchers: FSWatcher[] = [];
    const watchSpy = vi.spyOn(fs, 'watch').mockImplementation(((...args: Parameters<typeof fs.watch>) => {
      const watcher = realWatch(...args);
      watchers.push(watcher);
      return watcher;
    }) as typeof fs.watch);
    syncBuiltinESMExports();
    const started = new Set<NodeJS.Timeout>();
    const cleared = new Set<unknown>();
    const realSetInterval = globalThis.setInterval;
    const realClearInterval = globalThis.clearInterval;
    const setIntervalSpy = vi.spyOn(globalThis, 'setInterval').mockImplementation(((...args: Parameters<typeof setInterval>) => {
      const timer = realSetInterval(...args);
      started.add(timer);
      return timer;
    }) as typeof setInterval);
    const clearIntervalSpy = vi.spyOn(globalThis, 'clearInterval').mockImplementation((timer) => {
      cleared.add(timer);
      realClearInterval(timer);
    });
    try {
      const store = open(true);
      // Windows reports EPERM on a watched directory that is deleted (nodejs/node#31702); the store keeps polling.
      watchers[0]?.emit('error', Object.assign(new Error('EPERM: operation not permitted, watch'), { code: 'EPERM' }));
      store.startWatching(50);
      store.close();
      expect(started.size).toBeGreaterThan(0);
      expect([...started].filter((timer) => !cleared.has(timer))).toEqual([]);
    } finally {
      watchSpy.mockRestore();
      syncBuiltinESMExports();
      setIntervalSpy.mockRestore();
      clearIntervalSpy.mockRestore();
    }
  });
  it('opens and follows changes by its poll when no directory watcher can be made (the inotify limit)', async () => {
    // Linux refuses a new watcher at once with ENOSPC once fs.inotify.max_user_watches is used up
    // (inotify(7)); editors and file-watching dev servers often use it all.
    const watchSpy = vi.spyOn(fs, 'watch').mockImplementation(() => {
      throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached, watch'), { code: 'ENOSPC' });
    });
    syncBuiltinESMExports();
    try {
      const store = open(true);
      expect(watchSpy).toHaveBeenCalled();
      const seen = new Promise<string | null>((resolve) => store.onChange((config) => resolve(config.activeProfileId)));
      const written = openConfigStore(dataDir);
      stores.push(written);
      await written.update((config) =>
        setActiveProfile(addProfile(config, { id: 'watched', name: 'Watched', baseUrl: 'https://gateway.example/v1' }), 'watched'),
      );
      expect(await seen).toBe('watched');
    } finally {
      watchSpy.mockRestore();
      syncBuiltinESMExports();
    }
  });
});
