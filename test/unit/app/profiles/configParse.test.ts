import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../../proxy/app/profiles/configParse.ts';
import { CLI_COMMAND } from '../../../../proxy/contracts/cli.ts';
import { CONFIG_REVISION } from '../../../../proxy/contracts/config.ts';

const validProfile = { id: 'work', name: 'Work', baseUrl: 'https://gw.example/v1' };

function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

describe('parseConfigText', () => {
  it('fills defaults for a minimal file', () => {
    const result = parseConfigText(pretty({ version: 1, profiles: [validProfile] }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.activeProfileId).toBeNull();
    expect(result.config.settings).toEqual({
      requireClientToken: true,
      burstLimits: { maxRequestsPerMinute: 120, maxCreditsPerMinute: 5 },
      notifications: true,
      startAtLogin: false,
      // Traces leave only once the user gives a collector.
      traceExport: { otlpEndpoint: null, headerNames: [], headersRevision: 0 },
      memoryLimits: { logBacklogMiB: 64, bodyCaptureKiB: 1024 },
    });
    expect(result.config.profiles[0]?.timeouts.idleTimeoutMs).toBe(300_000);
    expect(result.config.profiles[0]?.maxRequestBodyMiB).toBe(64);
  });

  it.each([
    [
      'a misspelt setting',
      { version: 1, settings: { requireClientTokens: false } },
      'settings.requireClientTokens',
      '"requireClientTokens"',
    ],
    [
      'an unknown profile field',
      { version: 1, profiles: [{ ...validProfile, budgets: { dailyCredits: 5 } }] },
      'profiles[0].budgets',
      '"budgets"',
    ],
    ['an unknown top-level field', { version: 1, profile: [] }, 'profile', '"profile"'],
  ])('refuses an unknown field rather than ignoring it and dropping it at the next save: %s', (_label, value, fieldPath, key) => {
    const text = pretty(value);
    const result = parseConfigText(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = text.split('\n').findIndex((candidate) => candidate.includes(key)) + 1;
    expect(result.message).toContain(`airlock.json: ${fieldPath} (line ${line}): unknown field`);
  });

  it("takes a newer Airlock's fields (a file of a later revision) as that Airlock's settings, not as misspelt ones", () => {
    const newer = { version: 1, configRevision: CONFIG_REVISION + 1, futureSetting: true, profiles: [{ ...validProfile, futureField: 1 }] };
    const result = parseConfigText(pretty(newer));
    expect(result.ok && result.newer?.paths).toEqual([['futureSetting'], ['profiles', 0, 'futureField']]);
    // This Airlock's own revision (or none) holds no field it does not know: such a field is misspelt.
    const own = parseConfigText(pretty({ ...newer, configRevision: CONFIG_REVISION }));
    expect(own.ok).toBe(false);
    if (!own.ok) expect(own.message).toContain('airlock.json: futureSetting (line 4): unknown field');
  });

  it("refuses a key typed into a newer Airlock's file as into any other", () => {
    const typed = { version: 1, configRevision: CONFIG_REVISION + 1, futureSetting: true, apiKey: 'sk-typed-into-the-file-0123456789' };
    const result = parseConfigText(pretty(typed));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).not.toContain('sk-typed');
  });

  it("refuses a key typed inside a newer Airlock's field, which every save would keep in the file", () => {
    const typed = {
      version: 1,
      configRevision: CONFIG_REVISION + 1,
      settings: { futureCollector: { url: 'https://collector.example', headers: [{ Authorization: 'Bearer sk-typed-0123456789' }] } },
      profiles: [{ ...validProfile, futureRouting: { gatewayKey: 'sk-typed-into-the-file-0123456789' } }],
    };
    const result = parseConfigText(pretty(typed));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain('settings.futureCollector.headers');
    expect(result.message).toContain('holds no secret');
    expect(result.message).toContain('profiles[0].futureRouting.gatewayKey');
    expect(result.message).not.toContain('sk-typed');
    // A newer setting that only happens to be named like one holds no key.
    const named = { ...typed, settings: { futureSort: { key: 'date', headers: ['x-request-id'] } }, profiles: [validProfile] };
    expect(parseConfigText(pretty(named)).ok).toBe(true);
  });

  it.each([
    [
      'a profile',
      { version: 1, profiles: [{ ...validProfile, apiKey: 'sk-typed-into-the-file-0123456789' }] },
      'profiles[0].apiKey',
      `\`${CLI_COMMAND} key set work\``,
    ],
    ['the top level', { version: 1, api_key: 'sk-typed-into-the-file-0123456789' }, 'api_key', `\`${CLI_COMMAND} key set <profile>\``],
    [
      'the trace export',
      { version: 1, settings: { traceExport: { headers: { authorization: 'Bearer sk-typed-into-the-file-0123456789' } } } },
      'settings.traceExport.headers',
      `\`${CLI_COMMAND} export traces --header <name>\``,
    ],
  ])('says a secret typed into %s goes to the keychain, not the file, without repeating it', (_place, value, fieldPath, command) => {
    const result = parseConfigText(pretty(value));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain(`airlock.json: ${fieldPath} (line`);
    expect(result.message).toContain('holds no secret');
    expect(result.message).toContain(command);
    expect(result.message).not.toContain('sk-typed-into-the-file');
  });

  it('reads a file saved with a UTF-8 byte order mark (Windows editors add one), whose error would name an invisible character', () => {
    const result = parseConfigText(`\uFEFF${pretty({ version: 1, profiles: [validProfile] })}`);
    expect(result.ok && result.config.profiles[0]?.id).toBe('work');
  });

  it('keeps the names a user gives models: aliases are not fields', () => {
    const result = parseConfigText(pretty({ version: 1, profiles: [{ ...validProfile, modelAliases: { fast: 'gpt-5-mini' } }] }));
    expect(result.ok).toBe(true);
  });

  it.each([
    ['a trailing comma', '{\n  "version": 1,\n  "profiles": [],\n}\n', 'line 4'],
    ['a missing quote', '{\n  "version": 1,\n  "activeProfileId": "work\n}', 'line 3'],
    ['an empty file', '', 'line 1'],
  ])('names the line of a syntax error: %s', (_label, text, line) => {
    const result = parseConfigText(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain('not valid JSON');
    expect(result.message).toContain(line);
  });

  it.each([
    [
      'a wrong type deep in a profile',
      { version: 1, profiles: [validProfile, { ...validProfile, id: 'home', timeouts: { idleTimeoutMs: 'long' } }] },
      'profiles[1].timeouts.idleTimeoutMs',
      (text: string) => text.split('\n').findIndex((line) => line.includes('"idleTimeoutMs"')) + 1,
    ],
    [
      'a missing required field (points at its parent)',
      { version: 1, profiles: [{ id: 'work', name: 'Work' }] },
      'profiles[0].baseUrl',
      (text: string) => text.split('\n').findIndex((line) => line.includes('"id": "work"')),
    ],
    [
      'a duplicate profile id',
      { version: 1, profiles: [validProfile, validProfile] },
      'profiles[1].id',
      (text: string) => text.split('\n').findLastIndex((line) => line.includes('"id": "work"')) + 1,
    ],
    [
      'an active profile that does not exist',
      { version: 1, activeProfileId: 'gone', profiles: [validProfile] },
      'activeProfileId',
      () => 3,
    ],
    [
      'a token pinned to a missing profile',
      {
        version: 1,
        clientTokens: [{ name: 'cc', profileId: 'gone', tokenSha256: 'a'.repeat(64), lastFour: 'abcd', createdAtMs: 1 }],
      },
      'clientTokens[0].profileId',
      (text: string) => text.split('\n').findIndex((line) => line.includes('"profileId"')) + 1,
    ],
    [
      // Revoking one would leave the same token working under the other name.
      'two client tokens with the same value',
      {
        version: 1,
        clientTokens: [
          { name: 'cc', profileId: null, tokenSha256: 'a'.repeat(64), lastFour: 'abcd', createdAtMs: 1 },
          { name: 'codex', profileId: null, tokenSha256: 'a'.repeat(64), lastFour: 'abcd', createdAtMs: 2 },
        ],
      },
      'clientTokens[1].tokenSha256',
      (text: string) => text.split('\n').findLastIndex((line) => line.includes('"tokenSha256"')) + 1,
    ],
    [
      'a burst limit of zero',
      { version: 1, settings: { burstLimits: { maxRequestsPerMinute: 0 } } },
      'settings.burstLimits.maxRequestsPerMinute',
      (text: string) => text.split('\n').findIndex((line) => line.includes('"maxRequestsPerMinute"')) + 1,
    ],
    [
      'a request body limit of half a MiB',
      { version: 1, profiles: [{ ...validProfile, maxRequestBodyMiB: 0.5 }] },
      'profiles[0].maxRequestBodyMiB',
      (text: string) => text.split('\n').findIndex((line) => line.includes('"maxRequestBodyMiB"')) + 1,
    ],
    [
      'a request body limit past 1024 MiB',
      { version: 1, profiles: [{ ...validProfile, maxRequestBodyMiB: 2048 }] },
      'profiles[0].maxRequestBodyMiB',
      (text: string) => text.split('\n').findIndex((line) => line.includes('"maxRequestBodyMiB"')) + 1,
    ],
    ['a wrong version', { version: 2 }, 'version', () => 2],
  ])('names the field and line of a schema error: %s', (_label, value, fieldPath, expectedLine) => {
    const text = pretty(value);
    const result = parseConfigText(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain(`airlock.json: ${fieldPath} (line ${expectedLine(text)})`);
  });
});
