import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addProfile, setActiveProfile, updateProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore, type ConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { parseConfigText, serializeConfig } from '../../../../proxy/app/profiles/configParse.ts';
import type { ConfigFile } from '../../../../proxy/contracts/config.ts';

// The writers of airlock.json that do not go through Airlock's lock: a dotfiles tool that keeps
// the file as a symlink, and a text editor saving while the app writes.

let rootDir: string;
let dataDir: string;
let stores: ConfigStore[];

function open(): ConfigStore {
  const store = openConfigStore(dataDir);
  stores.push(store);
  return store;
}

function configPath(): string {
  return path.join(dataDir, 'airlock.json');
}

function fileConfig(filePath: string): ConfigFile {
  const parsed = parseConfigText(readFileSync(filePath, 'utf8'));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.config;
}

beforeEach(() => {
  rootDir = mkdtempSync(path.join(tmpdir(), 'airlock-writers-'));
  dataDir = path.join(rootDir, 'data');
  mkdirSync(dataDir);
  stores = [];
});

afterEach(() => {
  for (const store of stores) store.close();
  rmSync(rootDir, { recursive: true, force: true });
});

describe('airlock.json kept as a symlink (dotfiles)', () => {
  it('writes through the link to the tracked file and keeps the link', async () => {
    const dotfiles = path.join(rootDir, 'dotfiles');
    mkdirSync(dotfiles);
    const tracked = path.join(dotfiles, 'airlock.json');
    writeFileSync(tracked, serializeConfig(addProfile(fileConfigOfNothing(), { id: 'a', name: 'A', baseUrl: 'https://a.example/v1' })), {
      mode: 0o600,
    });
    symlinkSync(tracked, configPath());

    const store = open();
    await store.update((config) => addProfile(config, { id: 'b', name: 'B', baseUrl: 'https://b.example/v1' }));

    expect(lstatSync(configPath()).isSymbolicLink()).toBe(true);
    expect(fileConfig(tracked).profiles.map((profile) => profile.id)).toEqual(['a', 'b']);
    expect(statSync(tracked).mode & 0o777).toBe(0o600);
    // The temp file went beside the tracked file (same file system for the rename) and is gone.
    expect(readdirSync(dotfiles)).toEqual(['airlock.json']);
  });
});

describe('an editor saving while the app writes', () => {
  it('keeps the edit that landed between the app’s read and its write, and applies the app’s change on top', async () => {
    const store = open();
    await store.update((config) => addProfile(config, { id: 'p', name: 'P', baseUrl: 'https://p.example/v1' }));
    let editorSaved = false;
    // The mutator runs between the read and the write: the editor's save lands exactly there.
    await store.update((config) => {
      if (!editorSaved) {
        editorSaved = true;
        const edited = updateProfile(fileConfig(configPath()), 'p', { name: 'Renamed in the editor' });
        writeFileSync(configPath(), serializeConfig(edited));
      }
      return updateProfile(config, 'p', { maxRequestBodyMiB: 128 });
    });

    const onDisk = fileConfig(configPath()).profiles[0];
    expect(onDisk?.name).toBe('Renamed in the editor');
    expect(onDisk?.maxRequestBodyMiB).toBe(128);
    expect(store.snapshot().profiles[0]?.name).toBe('Renamed in the editor');
  });

  it('refuses, without writing, when the editor keeps saving through every try', async () => {
    const store = open();
    await store.update((config) => addProfile(config, { id: 'p', name: 'P', baseUrl: 'https://p.example/v1' }));
    let saves = 0;
    const update = store.update((config) => {
      saves += 1;
      writeFileSync(configPath(), serializeConfig(updateProfile(fileConfig(configPath()), 'p', { name: `Editor save ${saves}` })));
      return setActiveProfile(config, null);
    });
    await expect(update).rejects.toThrow(/changed by another program/);
    expect(fileConfig(configPath()).profiles[0]?.name).toBe(`Editor save ${saves}`);
    expect(fileConfig(configPath()).activeProfileId).toBe('p');
  });
});

function fileConfigOfNothing(): ConfigFile {
  const parsed = parseConfigText('{ "version": 1 }');
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.config;
}
