import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startupLines } from '../../../../proxy/app/cli/serve.ts';
import { addProfile, updateSettings } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { type Airlock, startAirlock } from '../../../../proxy/app/startAirlock.ts';
import { memorySecretStore, unavailableSecretStore } from '../../../support/memorySecretStore.ts';

let airlock: Airlock | null = null;
let parentDir = '';

afterEach(async () => {
  await airlock?.stop();
  airlock = null;
  rmSync(parentDir, { recursive: true, force: true });
});

/** Every command the lines suggest, as the user would copy it from between backticks. */
function suggestedCommands(lines: string[]): string[] {
  return lines.flatMap((line) => [...line.matchAll(/`(npx airlock [^`]*)`/g)].map((match) => match[1] ?? ''));
}

describe("serve's start lines for a data directory given on the command line", () => {
  it.each([
    ['with a profile that has no key, and a keychain', false, true],
    ['with no profile, client tokens required and no keychain', true, false],
  ])('carry --data-dir, quoted for a POSIX shell, in every command they suggest (%s)', async (_case, bare, keychain) => {
    parentDir = mkdtempSync(path.join(tmpdir(), 'airlock-serve-hints-'));
    // A space and a quote: the path must come back whole when pasted into sh.
    const dataDir = path.join(parentDir, "it's my dir");
    const store = openConfigStore(dataDir);
    if (bare) await store.update((config) => updateSettings(config, { requireClientToken: true }));
    else
      await store.update((config) =>
        addProfile(config, { id: 'main', name: 'Main', baseUrl: 'http://127.0.0.1:9/v1' }, { activate: true }),
      );
    store.close();
    airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: keychain ? memorySecretStore() : unavailableSecretStore() });

    const commands = suggestedCommands(startupLines(airlock, { dataDirArgument: dataDir }));
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(command).toMatch(/ --data-dir '[^']*it'\\''s my dir'$/);
  });

  it('leave the commands as they are for the default data directory', async () => {
    parentDir = mkdtempSync(path.join(tmpdir(), 'airlock-serve-hints-'));
    airlock = await startAirlock({ dataDir: parentDir, port: 0, env: {}, secrets: memorySecretStore() });
    const commands = suggestedCommands(startupLines(airlock, { dataDirArgument: null }));
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(command).not.toContain('--data-dir');
  });

  it("name the data directory in a note about airlock.json's own problems (a key typed into the file)", async () => {
    parentDir = mkdtempSync(path.join(tmpdir(), 'airlock-serve-hints-'));
    const dataDir = path.join(parentDir, 'second dir');
    mkdirSync(dataDir);
    const profile = { id: 'main', name: 'Main', baseUrl: 'http://127.0.0.1:9/v1', api_key: 'typed-into-the-file' };
    writeFileSync(path.join(dataDir, 'airlock.json'), JSON.stringify({ version: 1, profiles: [profile], activeProfileId: 'main' }));
    airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore(), dataDirArgument: dataDir });
    const commands = suggestedCommands(startupLines(airlock, { dataDirArgument: dataDir }));
    expect(commands).toContain(`npx airlock key set main --data-dir '${dataDir}'`);
    for (const command of commands) expect(command).toMatch(/ --data-dir '[^']*second dir'$/);
  });
});
