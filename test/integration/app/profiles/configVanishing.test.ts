import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addProfile, updateProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { MISSING_GRACE_MS, openConfigStore, type ConfigStore, type StoreClock } from '../../../../proxy/app/profiles/configStore.ts';
import { parseConfigText, serializeConfig } from '../../../../proxy/app/profiles/configParse.ts';
import type { ConfigFile } from '../../../../proxy/contracts/config.ts';

// airlock.json that is, for a moment or for good, not there: an editor's save that renames the
// file away before the new one lands, a file deleted to start over, a symlink (dotfiles) whose
// target is gone or switched. The clock is the test's: nothing waits for time.

let rootDir: string;
let dataDir: string;
let stores: ConfigStore[];
let nowMs: number;
/** What a save waiting for the file does when it pauses: the test's next step, then time moves on. */
let onPause: () => void;

const clock: StoreClock = {
  nowMs: () => nowMs,
  pause: async (ms) => {
    onPause();
    nowMs += ms;
  },
};

function open(): ConfigStore {
  const store = openConfigStore(dataDir, { clock });
  stores.push(store);
  return store;
}

const configPath = (): string => path.join(dataDir, 'airlock.json');
const profileIds = (config: ConfigFile): string[] => config.profiles.map((profile) => profile.id);

function fileConfig(filePath: string): ConfigFile {
  const parsed = parseConfigText(readFileSync(filePath, 'utf8'));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.config;
}

function withProfiles(...ids: string[]): string {
  let config = fileConfigOf('{ "version": 1 }');
  for (const id of ids) config = addProfile(config, { id, name: id.toUpperCase(), baseUrl: `https://${id}.example/v1` });
  return serializeConfig(config);
}

function fileConfigOf(text: string): ConfigFile {
  const parsed = parseConfigText(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.config;
}

beforeEach(() => {
  rootDir = mkdtempSync(path.join(tmpdir(), 'airlock-vanishing-'));
  dataDir = path.join(rootDir, 'data');
  mkdirSync(dataDir);
  stores = [];
  nowMs = 1_000_000;
  onPause = () => {};
});

afterEach(() => {
  for (const store of stores) store.close();
  rmSync(rootDir, { recursive: true, force: true });
});

describe('airlock.json renamed away by an editor’s save', () => {
  it('keeps serving the settings it read until the new file lands, then reads that', () => {
    writeFileSync(configPath(), withProfiles('work'));
    const store = open();
    const published: string[][] = [];
    store.onChange((config) => published.push(profileIds(config)));

    renameSync(configPath(), `${configPath()}~`);
    store.reload();
    // Emptied, the running proxy had no profile and no client token: every request was refused.
    expect(profileIds(store.snapshot())).toEqual(['work']);
    expect(store.problem()).toBeNull();

    writeFileSync(configPath(), withProfiles('work', 'home'));
    store.reload();
    expect(profileIds(store.snapshot())).toEqual(['work', 'home']);
    expect(published).toEqual([['work', 'home']]);
  });

  it('a save made in the gap waits for the editor’s file and makes its change on top of it', async () => {
    writeFileSync(configPath(), withProfiles('work'));
    const store = open();
    renameSync(configPath(), `${configPath()}~`);
    onPause = () =>
      writeFileSync(configPath(), serializeConfig(updateProfile(fileConfigOf(withProfiles('work')), 'work', { name: 'Edited' })));

    await store.update((config) => addProfile(config, { id: 'home', name: 'Home', baseUrl: 'https://home.example/v1' }));

    const onDisk = fileConfig(configPath());
    expect(profileIds(onDisk)).toEqual(['work', 'home']);
    expect(onDisk.profiles[0]?.name).toBe('Edited');
  });
});

// VS Code saves a file in place: truncated to 0 bytes, then written (microsoft/vscode#98063), and a
// watcher can read it empty in between (microsoft/vscode#4727).
describe('airlock.json saved in place by an editor (truncated, then written)', () => {
  it('keeps the settings through the empty moment: no alarm, no copy of an empty "broken" file', () => {
    writeFileSync(configPath(), withProfiles('work'));
    const store = open();
    writeFileSync(configPath(), '');
    store.reload();
    expect(profileIds(store.snapshot())).toEqual(['work']);
    expect(store.problem()).toBeNull();
    expect(readdirSync(dataDir).filter((name) => name.startsWith('airlock.json.broken-'))).toEqual([]);

    writeFileSync(configPath(), withProfiles('work', 'home'));
    store.reload();
    expect(profileIds(store.snapshot())).toEqual(['work', 'home']);
  });

  it('a save made while it is empty waits for the editor’s content and makes its change on top of it', async () => {
    writeFileSync(configPath(), withProfiles('work'));
    const store = open();
    writeFileSync(configPath(), '');
    onPause = () => writeFileSync(configPath(), withProfiles('work', 'lab'));

    await store.update((config) => addProfile(config, { id: 'home', name: 'Home', baseUrl: 'https://home.example/v1' }));

    expect(profileIds(fileConfig(configPath()))).toEqual(['work', 'lab', 'home']);
  });
});

describe('airlock.json deleted for good', () => {
  it('starts over once it has stayed away past the grace, as the broken-file message tells the user', async () => {
    writeFileSync(configPath(), withProfiles('work'));
    const store = open();
    unlinkSync(configPath());
    store.reload();
    expect(profileIds(store.snapshot())).toEqual(['work']);
    nowMs += MISSING_GRACE_MS;
    store.reload();
    expect(profileIds(store.snapshot())).toEqual([]);
    expect(store.problem()).toBeNull();
  });

  it('a save after the deletion waits out the grace, then starts the new file over with its change', async () => {
    writeFileSync(configPath(), withProfiles('work'));
    const store = open();
    unlinkSync(configPath());
    await store.update((config) => addProfile(config, { id: 'home', name: 'Home', baseUrl: 'https://home.example/v1' }));
    expect(profileIds(fileConfig(configPath()))).toEqual(['home']);
  });
});

describe('airlock.json kept as a symlink whose target is gone or switched', () => {
  let dotfiles: string;
  let tracked: string;

  beforeEach(() => {
    dotfiles = path.join(rootDir, 'dotfiles');
    mkdirSync(dotfiles);
    tracked = path.join(dotfiles, 'airlock.json');
  });

  it('keeps the settings it read when the target goes, says so, writes nothing, and reads the target once it is back', async () => {
    writeFileSync(tracked, withProfiles('work'));
    symlinkSync(tracked, configPath());
    const store = open();
    expect(store.startNotice()).toBeNull();
    renameSync(tracked, `${tracked}.moved`);
    store.reload();
    expect(store.problem()).toBeNull();
    nowMs += MISSING_GRACE_MS;
    store.reload();
    expect(profileIds(store.snapshot())).toEqual(['work']);
    expect(store.problem()).toBe(
      `airlock.json is a link to ${tracked}, which is gone: Airlock keeps the settings it last read and saves nothing until it is back, or the link is replaced.`,
    );

    const save = store.update((config) => addProfile(config, { id: 'home', name: 'Home', baseUrl: 'https://home.example/v1' }));
    await expect(save).rejects.toThrow(`airlock.json is a link to ${tracked}, which is gone`);
    expect(existsSync(tracked)).toBe(false);

    renameSync(`${tracked}.moved`, tracked);
    store.reload();
    expect(store.problem()).toBeNull();
    expect(profileIds(store.snapshot())).toEqual(['work']);
  });

  it('refuses a save through a link into a folder that does not exist, naming the link and the folder', async () => {
    const unmounted = path.join(rootDir, 'unmounted', 'airlock.json');
    symlinkSync(unmounted, configPath());
    const store = open();
    expect(profileIds(store.snapshot())).toEqual([]);
    const save = store.update((config) => addProfile(config, { id: 'home', name: 'Home', baseUrl: 'https://home.example/v1' }));
    await expect(save).rejects.toThrow(
      `airlock.json is a link to ${unmounted}, whose folder ${path.dirname(unmounted)} does not exist: create or mount it, or replace the link.`,
    );
  });

  it('creates the tracked file through a link made before it, as a dotfiles tool may, and says so at start', async () => {
    symlinkSync(tracked, configPath());
    const store = open();
    expect(store.startNotice()).toBe(
      `airlock.json is a link to ${tracked}, which does not exist yet: Airlock starts with no settings, and the first save creates it.`,
    );
    await store.update((config) => addProfile(config, { id: 'home', name: 'Home', baseUrl: 'https://home.example/v1' }));
    expect(profileIds(fileConfig(tracked))).toEqual(['home']);
  });

  it('follows a link switched to another file, and saves to that file, leaving the first as it was', async () => {
    const other = path.join(dotfiles, 'other.json');
    writeFileSync(tracked, withProfiles('work'));
    writeFileSync(other, withProfiles('home'));
    symlinkSync(tracked, configPath());
    const store = open();
    const switched = path.join(dataDir, 'airlock.json.new-link');
    symlinkSync(other, switched);
    renameSync(switched, configPath());
    store.reload();
    expect(profileIds(store.snapshot())).toEqual(['home']);

    await store.update((config) => addProfile(config, { id: 'lab', name: 'Lab', baseUrl: 'https://lab.example/v1' }));
    expect(profileIds(fileConfig(other))).toEqual(['home', 'lab']);
    expect(profileIds(fileConfig(tracked))).toEqual(['work']);
  });
});
