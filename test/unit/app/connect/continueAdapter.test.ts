import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectError } from '../../../../proxy/app/connect/toolAdapter.ts';
import { continueAdapter } from '../../../../proxy/app/connect/tools/continueDev.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';
import { connectHarness, PROXY_URL, type ConnectHarness } from './connectHarness.ts';

const TOKEN = 'alk_continue_unit_token_0123456789';
/** A config.yaml as Continue's docs show it (name, version, schema; models with provider, apiBase, apiKey). */
const CONFIG = `# my Continue setup
name: My Config
version: 1.0.0
schema: v1

models:
  - name: Gateway GPT   # the team gateway
    provider: openai
    model: gpt-4o
    apiBase: https://gw.example.com/v1
    apiKey: ${SENTINEL_KEY}
    roles:
      - chat
      - edit
  - name: Autocomplete
    provider: ollama
    model: qwen2.5-coder:1.5b
    roles: [autocomplete]
`;

interface ContinueModel {
  name: string;
  provider: string;
  model: string;
  apiBase?: string;
  apiKey?: string;
  roles?: string[];
  requestOptions?: Record<string, unknown>;
}
const modelsIn = (text: string) => (parseYaml(text) as { models: ContinueModel[] }).models;

describe('the Continue adapter', () => {
  it('adds a model sent through Airlock and leaves the user’s models, comments and layout as they were', () => {
    const written = continueAdapter.connect({ config: CONFIG, legacy: null }, { proxyUrl: PROXY_URL, token: TOKEN, model: 'gpt-5' })
      .config!;
    expect(written.startsWith(CONFIG.slice(0, CONFIG.indexOf('  - name: Autocomplete')))).toBe(true);
    expect(modelsIn(written).at(-1)).toEqual({
      name: 'gpt-5 (Airlock)',
      provider: 'openai',
      model: 'gpt-5',
      apiBase: `${PROXY_URL}/v1`,
      apiKey: TOKEN,
      requestOptions: { noProxy: ['127.0.0.1'] },
    });
    expect(continueAdapter.airlockToken({ config: written }, PROXY_URL)).toBe(TOKEN);
    expect(continueAdapter.gateway({ config: written }, PROXY_URL)).toMatchObject({
      key: SENTINEL_KEY,
      location: 'models[0] "Gateway GPT": apiKey',
    });
  });

  it('with the key imported, sends the gateway’s entries through Airlock, changing only their apiBase and apiKey in place', () => {
    const written = continueAdapter.connect({ config: CONFIG, legacy: null }, { proxyUrl: PROXY_URL, token: TOKEN, dropGatewayKey: true })
      .config!;
    expect(written).toBe(
      CONFIG.replace('https://gw.example.com/v1', `${PROXY_URL}/v1`)
        .replace(SENTINEL_KEY, TOKEN)
        .replace('      - edit\n', '      - edit\n    requestOptions: {noProxy: [127.0.0.1]}\n'),
    );
    expect(findSentinel(written)).toBeNull();
  });

  it('writes over an apiBase and apiKey held in block scalars in place too, keeping the line after them', () => {
    const config = CONFIG.replace('https://gw.example.com/v1', '>-\n      https://gw.example.com/v1').replace(
      SENTINEL_KEY,
      `|\n      ${SENTINEL_KEY}`,
    );
    const written = continueAdapter.connect({ config, legacy: null }, { proxyUrl: PROXY_URL, token: TOKEN, dropGatewayKey: true }).config!;
    expect(written).toBe(
      CONFIG.replace('https://gw.example.com/v1', `${PROXY_URL}/v1`)
        .replace(SENTINEL_KEY, TOKEN)
        .replace('      - edit\n', '      - edit\n    requestOptions: {noProxy: [127.0.0.1]}\n'),
    );
  });

  it('does not take a secret reference for a key', () => {
    const config = CONFIG.replace(SENTINEL_KEY, `$${'{{'} secrets.GATEWAY_KEY }}`);
    expect(continueAdapter.gateway({ config }, PROXY_URL)).toBeNull();
  });

  it('keeps CRLF line ends and a list written level with its key when it adds a model', () => {
    const config = 'name: Local\r\nversion: 1.0.0\r\nschema: v1\r\nmodels:\r\n- name: Mine\r\n  provider: ollama\r\n  model: llama3\r\n';
    const written = continueAdapter.connect({ config, legacy: null }, { proxyUrl: PROXY_URL, token: TOKEN, model: 'gpt-5' }).config!;
    expect(written).toBe(
      `${config}- name: gpt-5 (Airlock)\r\n  provider: openai\r\n  model: gpt-5\r\n  apiBase: ${PROXY_URL}/v1\r\n  apiKey: ${TOKEN}\r\n  requestOptions: {noProxy: [127.0.0.1]}\r\n`,
    );
  });

  it('creates a config with the fields Continue requires', () => {
    const written = continueAdapter.connect({ config: null, legacy: null }, { proxyUrl: PROXY_URL, token: TOKEN, model: 'gpt-5' }).config!;
    expect(parseYaml(written)).toMatchObject({ name: 'Local Config', version: '1.0.0', schema: 'v1', models: [{ model: 'gpt-5' }] });
  });

  it('refuses to create a config.yaml beside a config.json, which it would hide', () => {
    expect(() =>
      continueAdapter.connect({ config: null, legacy: '{ "models": [] }' }, { proxyUrl: PROXY_URL, token: TOKEN, model: 'gpt-5' }),
    ).toThrow(/config\.json.*move your config to config\.yaml/);
  });

  it('asks for a model when the config has none to go through Airlock', () => {
    const config = 'name: Local\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: Mine\n    provider: ollama\n    model: llama3\n';
    expect(() => continueAdapter.connect({ config, legacy: null }, { proxyUrl: PROXY_URL, token: TOKEN })).toThrow(ConnectError);
    expect(() => continueAdapter.connect({ config, legacy: null }, { proxyUrl: PROXY_URL, token: TOKEN })).toThrow(/choose the model/);
  });
});

let harness: ConnectHarness;
beforeEach(() => {
  harness = connectHarness();
});
afterEach(() => harness.close());

describe('Continue through the service', () => {
  it('undo takes out only Airlock’s model after the user added and removed others', async () => {
    const file = harness.writeHome('.continue/config.yaml', CONFIG);
    await harness.service.apply('continue', { model: 'gpt-5' });
    // The user removes their autocomplete model and adds another after Airlock's.
    const edited = readFileSync(file, 'utf8')
      .replace('  - name: Autocomplete\n    provider: ollama\n    model: qwen2.5-coder:1.5b\n    roles: [autocomplete]\n', '')
      .concat('  - name: Claude\n    provider: anthropic\n    model: claude-sonnet-4\n');
    writeFileSync(file, edited);

    await harness.service.undo('continue');
    const models = modelsIn(readFileSync(file, 'utf8'));
    expect(models.map((model) => model.name)).toEqual(['Gateway GPT', 'Claude']);
    expect(models[0]!.apiKey).toBe(SENTINEL_KEY);
    expect(readFileSync(file, 'utf8')).toContain('# my Continue setup');
  });

  it('undo refuses, naming the setting, when the model Airlock added was pointed elsewhere', async () => {
    const file = harness.writeHome('.continue/config.yaml', CONFIG);
    await harness.service.apply('continue', { model: 'gpt-5' });
    writeFileSync(file, readFileSync(file, 'utf8').replace(`apiBase: ${PROXY_URL}/v1`, 'apiBase: https://elsewhere.example/v1'));
    await expect(harness.service.undo('continue')).rejects.toThrow(/models\.gpt-5 \(Airlock\)\.apiBase was changed after Airlock set it/);
  });

  it('imports the key, and undo deletes a config Airlock created', async () => {
    const file = harness.writeHome('.continue/config.yaml', CONFIG);
    const applied = await harness.service.apply('continue', { importKey: true });
    expect(applied.importProfileId).toBe('gw-example-com');
    expect(findSentinel(readFileSync(file, 'utf8'))).toBeNull();
    expect((await harness.service.list()).tools.find((tool) => tool.id === 'continue')).toMatchObject({
      connected: true,
      importCandidate: null,
    });

    const created = path.join(harness.root, 'elsewhere');
    const other = new (harness.service.constructor as typeof import('../../../../proxy/app/connect/connectService.ts').ConnectService)({
      homeDir: harness.homeDir,
      env: { CONTINUE_GLOBAL_DIR: created },
      dataDir: harness.dataDir,
      config: harness.store,
      secrets: harness.secrets,
      proxyUrl: () => PROXY_URL,
      nowMs: () => Date.now(),
    });
    await other.apply('continue', { model: 'gpt-5' });
    expect(existsSync(path.join(created, 'config.yaml'))).toBe(true);
    await other.undo('continue');
    expect(existsSync(path.join(created, 'config.yaml'))).toBe(false);
  });
});

describe('adding to a list whose items start on the line after their dash', () => {
  it('still adds the model, through the printer', () => {
    const config = 'name: Local\nversion: 1.0.0\nschema: v1\nmodels:\n  -\n    name: Mine\n    provider: ollama\n    model: llama3\n';
    const written = continueAdapter.connect({ config, legacy: null }, { proxyUrl: PROXY_URL, token: TOKEN, model: 'gpt-5' }).config!;
    expect(modelsIn(written).map((model) => model.name)).toEqual(['Mine', 'gpt-5 (Airlock)']);
  });
});
