import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectFileError } from '../../../../proxy/app/connect/toolAdapter.ts';
import { clineAdapter } from '../../../../proxy/app/connect/tools/cline.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';
import { connectHarness, PROXY_URL, type ConnectHarness } from './connectHarness.ts';

const TOKEN = 'alk_cline_unit_token_0123456789';
const FILE = '.cline/data/settings/providers.json';
const GATEWAY = 'https://gw.example.com/v1';

interface ClineEntry {
  settings: Record<string, unknown>;
  updatedAt: string;
  tokenSource?: string;
}
interface ClineProviders {
  version: number;
  lastUsedProvider?: string;
  modes?: Record<string, unknown>;
  providers: Record<string, ClineEntry>;
}

const entry = (settings: Record<string, unknown>, updatedAt = '2026-11-20T10:00:00.000Z'): ClineEntry => ({
  settings,
  updatedAt,
  tokenSource: 'manual',
});
const fileText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * What Cline 3.0.65 did to the file on each run in the probe: saved it whole again through its schema,
 * a new `updatedAt` on the entries, `modes: {}` added, keys in its own order.
 */
function clineResaves(text: string, at: string): string {
  const config = JSON.parse(text) as ClineProviders;
  const providers = Object.fromEntries(Object.entries(config.providers).map(([id, value]) => [id, { ...value, updatedAt: at }]));
  return fileText({ version: config.version, lastUsedProvider: config.lastUsedProvider, modes: config.modes ?? {}, providers });
}

describe('Cline CLI adapter', () => {
  it.each([
    ['a comment', '{\n  // mine\n  "version": 1,\n  "providers": {}\n}\n'],
    ['a trailing comma', '{ "version": 1, "providers": {}, }'],
    ['a byte order mark', '\uFEFF{ "version": 1, "providers": {} }'],
    ['another version', '{ "version": 2, "providers": {} }'],
    ['no providers object', '{ "version": 1, "lastUsedProvider": "cline" }'],
    ['an entry without updatedAt', '{ "version": 1, "providers": { "cline": { "settings": { "provider": "cline" } } } }'],
  ])('refuses a file with %s, which Cline would read as holding no providers', (_case, config) => {
    const connect = () => clineAdapter.connect({ config }, { proxyUrl: PROXY_URL, token: TOKEN, model: 'gpt-5' });
    expect(connect).toThrow(ConnectFileError);
    expect(connect).toThrow(/Cline reads such a file as holding no providers: fix or move the file/);
  });

  it('stamps a new entry with the setup time and makes it the provider Cline uses', () => {
    const written = clineAdapter.connect(
      { config: null },
      { proxyUrl: PROXY_URL, token: TOKEN, model: 'gpt-5', nowMs: Date.UTC(2026, 10, 29, 6, 0, 0) },
    );
    expect(JSON.parse(written.config!)).toEqual({
      version: 1,
      providers: {
        'openai-compatible': {
          settings: { provider: 'openai-compatible', apiKey: TOKEN, model: 'gpt-5', baseUrl: `${PROXY_URL}/v1` },
          updatedAt: '2026-11-29T06:00:00.000Z',
          tokenSource: 'manual',
        },
      },
      lastUsedProvider: 'openai-compatible',
    });
  });

  it("edits an existing OpenAI-compatible entry in place, keeping its time stamp and the user's other settings", () => {
    const config = fileText({
      version: 1,
      lastUsedProvider: 'cline',
      providers: {
        'openai-compatible': entry({
          provider: 'openai-compatible',
          baseUrl: GATEWAY,
          apiKey: SENTINEL_KEY,
          model: 'gpt-4o',
          timeout: 60000,
        }),
      },
    });
    const written = JSON.parse(clineAdapter.connect({ config }, { proxyUrl: PROXY_URL, token: TOKEN, nowMs: 0 }).config!) as ClineProviders;
    expect(written.lastUsedProvider).toBe('openai-compatible');
    expect(written.providers['openai-compatible']).toEqual(
      entry({ provider: 'openai-compatible', baseUrl: `${PROXY_URL}/v1`, apiKey: TOKEN, model: 'gpt-4o', timeout: 60000 }),
    );
  });

  it('is not connected while Cline uses another provider, though the OpenAI-compatible entry points at Airlock', () => {
    const own = entry({ provider: 'openai-compatible', baseUrl: `${PROXY_URL}/v1`, apiKey: TOKEN, model: 'gpt-5' });
    const files = (lastUsedProvider: string) => ({
      config: fileText({ version: 1, lastUsedProvider, providers: { 'openai-compatible': own } }),
    });
    expect(clineAdapter.airlockToken(files('openai-compatible'), PROXY_URL)).toBe(TOKEN);
    expect(clineAdapter.airlockToken(files('anthropic'), PROXY_URL)).toBeNull();
  });
});

let harness: ConnectHarness;
beforeEach(() => {
  harness = connectHarness();
});
afterEach(() => harness.close());

describe('Cline CLI through the service', () => {
  it('shows why a file Cline cannot read is not edited', async () => {
    harness.writeHome(FILE, '{ "version": 1, "providers": {}, }');
    const status = (await harness.service.list()).tools.find((tool) => tool.id === 'cline');
    expect(status).toMatchObject({ detected: true, connected: false, problem: expect.stringMatching(/trailing comma/) });
  });

  it('undo deletes a file Airlock created after Cline saved it again on a run', async () => {
    const file = path.join(harness.homeDir, FILE);
    await harness.service.apply('cline', { model: 'gpt-5' });
    expect((await harness.service.list()).tools.find((tool) => tool.id === 'cline')).toMatchObject({ connected: true, tokenName: 'cline' });
    // Stamped by the service's clock (the harness starts it at 2026-11-26T01:02:03Z).
    expect((JSON.parse(readFileSync(file, 'utf8')) as ClineProviders).providers['openai-compatible']!.updatedAt).toMatch(
      /^2026-11-26T01:02:/,
    );
    writeFileSync(file, clineResaves(readFileSync(file, 'utf8'), '2026-11-29T07:00:00.000Z'));

    await harness.service.undo('cline');
    expect(existsSync(file)).toBe(false);
  });

  it("imports the gateway key, and undo after Cline's save puts back the user's provider and entry", async () => {
    const before = {
      version: 1,
      lastUsedProvider: 'anthropic',
      modes: {},
      providers: {
        anthropic: entry({ provider: 'anthropic', apiKey: 'sk-ant-own-0123456789', model: 'claude-sonnet-4-5' }),
        'openai-compatible': entry({ provider: 'openai-compatible', baseUrl: GATEWAY, apiKey: SENTINEL_KEY, model: 'deepseek-chat' }),
      },
    };
    const file = harness.writeHome(FILE, fileText(before));
    const candidate = (await harness.service.list()).tools.find((tool) => tool.id === 'cline')?.importCandidate;
    expect(candidate).toMatchObject({ baseUrl: GATEWAY, keyLastFour: SENTINEL_KEY.slice(-4) });

    const applied = await harness.service.apply('cline', { importKey: true });
    expect(applied.importProfileId).toBe('gw-example-com');
    expect(findSentinel(readFileSync(file, 'utf8'))).toBeNull();
    writeFileSync(file, clineResaves(readFileSync(file, 'utf8'), '2026-11-29T07:00:00.000Z'));

    await harness.service.undo('cline');
    const undone = JSON.parse(readFileSync(file, 'utf8')) as ClineProviders;
    expect(undone.lastUsedProvider).toBe('anthropic');
    expect(undone.providers.anthropic!.settings).toEqual(before.providers.anthropic.settings);
    expect(undone.providers['openai-compatible']!.settings).toMatchObject({ baseUrl: GATEWAY, model: 'deepseek-chat' });
    // The key went to the keychain; the file names where, as for the other tools.
    expect(undone.providers['openai-compatible']!.settings.apiKey).toMatch(/^moved-to-airlock-keychain-profile-gw-example-com$/);
  });

  it('undo refuses, naming the setting, when the entry was pointed elsewhere after the setup', async () => {
    const file = harness.writeHome(FILE, '');
    await harness.service.apply('cline', { model: 'gpt-5' });
    writeFileSync(file, readFileSync(file, 'utf8').replace(`${PROXY_URL}/v1`, 'https://elsewhere.example/v1'));
    await expect(harness.service.undo('cline')).rejects.toThrow(
      /providers\.openai-compatible\.settings\.baseUrl was changed after Airlock set it/,
    );
  });
});
