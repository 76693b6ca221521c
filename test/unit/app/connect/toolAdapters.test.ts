import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { parse as parseJsonc } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { ConnectFileError, type ToolAdapter, type ToolFiles } from '../../../../proxy/app/connect/toolAdapter.ts';
import { aiderAdapter } from '../../../../proxy/app/connect/tools/aider.ts';
import { claudeCodeAdapter } from '../../../../proxy/app/connect/tools/claudeCode.ts';
import { clineAdapter } from '../../../../proxy/app/connect/tools/cline.ts';
import { codexAdapter } from '../../../../proxy/app/connect/tools/codex.ts';
import { continueAdapter } from '../../../../proxy/app/connect/tools/continueDev.ts';
import { openCodeAdapter } from '../../../../proxy/app/connect/tools/openCode.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

const PROXY_URL = 'http://127.0.0.1:8642';
const TOKEN = 'alk_connect_unit_token_0123456789';
const GATEWAY = 'https://gw.example.com/v1';
/** Continue's reference to a secret kept elsewhere (`${{ secrets.NAME }}`): no key in the file. */
const CONTINUE_SECRET_REFERENCE = `$${'{{'} secrets.TEAM_KEY }}`;

interface AdapterCase {
  adapter: ToolAdapter;
  /** A real-looking config with comments and keys Airlock does not own. */
  commented: ToolFiles;
  /** Text from `commented` that must survive a setup byte for byte. */
  kept: string[];
  /** The same tool pointed at a gateway with the sentinel key in the file. */
  foreign: ToolFiles;
  broken: ToolFiles;
  /** Reads what the tool would use from the written files, with the format's own strict parser. */
  effective: (files: ToolFiles) => { baseUrl: unknown; token: unknown; model: unknown };
}

const cases: AdapterCase[] = [
  {
    adapter: claudeCodeAdapter,
    commented: {
      config:
        '{\n  // my statusline\n  "statusLine": { "type": "command", "command": "~/bin/status" },\n  "env": {\n    "DISABLE_TELEMETRY": "1" // keep\n  },\n  "futureKey": [1, 2]\n}\n',
    },
    kept: [
      '// my statusline',
      '"statusLine": { "type": "command", "command": "~/bin/status" }',
      '"DISABLE_TELEMETRY": "1"',
      '// keep',
      '"futureKey": [1, 2]',
    ],
    foreign: {
      config: JSON.stringify({ env: { ANTHROPIC_BASE_URL: 'https://gw.example.com', ANTHROPIC_API_KEY: SENTINEL_KEY } }, null, 2),
    },
    broken: { config: '{ "env": { ' },
    effective: (files) => {
      const env = (parseJsonc(files.config!) as { env: Record<string, string> }).env;
      return { baseUrl: env.ANTHROPIC_BASE_URL, token: env.ANTHROPIC_AUTH_TOKEN ?? env.ANTHROPIC_API_KEY, model: env.ANTHROPIC_MODEL };
    },
  },
  {
    adapter: codexAdapter,
    commented: {
      config:
        '# Codex settings\nmodel = "o3" # my model\napproval_policy = "on-request"\n\n[mcp_servers.docs]\ncommand = "npx" # docs server\nargs = ["-y", "docs"]\n\n# another provider\n[model_providers.other]\nname = "Other"\nbase_url = "https://other.example/v1"\n',
      env: '# secrets for Codex\nOTHER_VAR=keep-me\n',
    },
    kept: [
      '# Codex settings',
      'approval_policy = "on-request"',
      'command = "npx" # docs server',
      '# another provider',
      'base_url = "https://other.example/v1"',
      '# secrets for Codex',
      'OTHER_VAR=keep-me',
    ],
    foreign: {
      config: `model_provider = "gw"\n\n[model_providers.gw]\nname = "Gateway"\nbase_url = "${GATEWAY}"\nenv_key = "GW_KEY"\nwire_api = "responses"\n`,
      env: `GW_KEY=${SENTINEL_KEY}\n`,
    },
    broken: { config: 'model = "o3\n', env: null },
    effective: (files) => {
      const config = parseToml(files.config!) as {
        model_provider: string;
        model?: string;
        model_providers: Record<string, Record<string, string>>;
      };
      const provider = config.model_providers[config.model_provider]!;
      const envLine = files.env!.split('\n').find((line) => line.startsWith(`${provider.env_key}=`));
      expect(provider.wire_api).toBe('responses');
      return { baseUrl: provider.base_url, token: envLine?.slice(`${provider.env_key}=`.length), model: config.model };
    },
  },
  {
    adapter: openCodeAdapter,
    commented: {
      config:
        '{\n  "$schema": "https://opencode.ai/config.json",\n  // theme first\n  "theme": "tokyonight",\n  "provider": {\n    // local models\n    "ollama": {\n      "npm": "@ai-sdk/openai-compatible",\n      "options": { "baseURL": "http://localhost:11434/v1" }\n    },\n  },\n}\n',
    },
    kept: ['// theme first', '"theme": "tokyonight"', '// local models', '"options": { "baseURL": "http://localhost:11434/v1" }'],
    foreign: {
      config: JSON.stringify(
        {
          model: 'gw/deepseek-chat',
          provider: { gw: { npm: '@ai-sdk/openai-compatible', options: { baseURL: GATEWAY, apiKey: SENTINEL_KEY } } },
        },
        null,
        2,
      ),
    },
    broken: { config: '{ "provider": [ }' },
    effective: (files) => {
      const config = parseJsonc(files.config!) as { model?: string; provider: Record<string, { options: Record<string, string> }> };
      const providerId = config.model?.split('/')[0] ?? 'airlock';
      const options = config.provider[providerId]!.options;
      return { baseUrl: options.baseURL, token: options.apiKey, model: config.model?.slice(providerId.length + 1) };
    },
  },
  {
    adapter: aiderAdapter,
    commented: {
      config: '##########\n# my aider options\n#model: xxx\ndark-mode: true # eyes\nread:\n  - CONVENTIONS.md\n',
    },
    kept: ['# my aider options', '#model: xxx', 'dark-mode: true # eyes', '  - CONVENTIONS.md'],
    foreign: { config: `openai-api-base: ${GATEWAY}\nopenai-api-key: ${SENTINEL_KEY}\nmodel: openai/deepseek-chat\n` },
    broken: { config: 'read: [a, b\n' },
    effective: (files) => {
      const config = parseYaml(files.config!) as Record<string, string>;
      return { baseUrl: config['openai-api-base'], token: config['openai-api-key'], model: config.model?.replace(/^openai\//, '') };
    },
  },
  {
    adapter: continueAdapter,
    commented: {
      config: `# Continue\nname: My Config\nversion: 1.0.0\nschema: v1\n\nmodels:\n  # the team gateway\n  - name: Team GPT\n    provider: openai\n    model: gpt-4o\n    apiBase: https://other.example/v1\n    apiKey: ${CONTINUE_SECRET_REFERENCE}  # from the hub\n  - name: Autocomplete\n    provider: ollama\n    model: qwen2.5-coder:1.5b\n    roles: [autocomplete]\ncontext:\n  - provider: code\n`,
      legacy: null,
    },
    kept: ['# Continue', '  # the team gateway', `apiKey: ${CONTINUE_SECRET_REFERENCE}`, '    roles: [autocomplete]', '  - provider: code'],
    foreign: {
      config: `name: Local\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: Gateway\n    provider: openai\n    model: deepseek-chat\n    apiBase: ${GATEWAY}\n    apiKey: ${SENTINEL_KEY}\n`,
      legacy: null,
    },
    broken: { config: 'models: [a, b\n', legacy: null },
    effective: (files) => {
      const config = parseYaml(files.config!) as { schema: string; models: Record<string, string>[] };
      expect(config.schema).toBe('v1');
      const entry = config.models.find((candidate) => candidate.apiBase?.startsWith(PROXY_URL));
      expect(entry?.provider).toBe('openai');
      return { baseUrl: entry?.apiBase, token: entry?.apiKey, model: entry?.model };
    },
  },
  {
    adapter: clineAdapter,
    // As Cline 3.0.65 saves it (JSON.stringify, two spaces): a signed-in Cline account and another provider's key.
    commented: {
      config: `${JSON.stringify(
        {
          version: 1,
          lastUsedProvider: 'cline',
          modes: { voiceInput: { providerId: 'cline', modelId: 'voice-1' } },
          providers: {
            cline: {
              settings: { provider: 'cline', model: 'cline/auto', auth: { accessToken: 'cline-access-0123' } },
              updatedAt: '2026-11-20T10:00:00.000Z',
              tokenSource: 'oauth',
            },
            anthropic: {
              settings: { provider: 'anthropic', apiKey: 'sk-ant-own-0123456789', model: 'claude-sonnet-4-5' },
              updatedAt: '2026-11-21T10:00:00.000Z',
              tokenSource: 'manual',
            },
          },
        },
        null,
        2,
      )}\n`,
    },
    kept: [
      '"voiceInput": {',
      '"accessToken": "cline-access-0123"',
      '"apiKey": "sk-ant-own-0123456789"',
      '"updatedAt": "2026-11-21T10:00:00.000Z"',
    ],
    foreign: {
      config: JSON.stringify({
        version: 1,
        lastUsedProvider: 'openai-compatible',
        providers: {
          'openai-compatible': {
            settings: { provider: 'openai-compatible', apiKey: SENTINEL_KEY, model: 'deepseek-chat', baseUrl: GATEWAY },
            updatedAt: '2026-11-21T10:00:00.000Z',
            tokenSource: 'manual',
          },
        },
      }),
    },
    broken: { config: '{ "version": 1, "providers": ' },
    effective: (files) => {
      // Cline's own reading: JSON.parse, version 1, the last-used provider's settings, a time stamp on each entry.
      const config = JSON.parse(files.config!) as {
        version: number;
        lastUsedProvider: string;
        providers: Record<string, { settings: Record<string, string>; updatedAt: string }>;
      };
      expect(config.version).toBe(1);
      for (const entry of Object.values(config.providers)) expect(Number.isNaN(Date.parse(entry.updatedAt))).toBe(false);
      const settings = config.providers[config.lastUsedProvider]!.settings;
      expect(settings.provider).toBe('openai-compatible');
      return { baseUrl: settings.baseUrl, token: settings.apiKey, model: settings.model };
    },
  },
];

const expectedBase = (adapter: ToolAdapter) => (adapter.id === 'claude-code' ? PROXY_URL : `${PROXY_URL}/v1`);
const merged = (before: ToolFiles, after: ToolFiles): ToolFiles => ({ ...before, ...after });
const absent = (adapter: ToolAdapter): ToolFiles =>
  Object.fromEntries(Object.keys(adapter.paths({ homeDir: '/home/u', env: {}, exists: () => false })).map((role) => [role, null]));

describe.each(cases)('$adapter.title adapter', ({ adapter, commented, kept, foreign, broken, effective }) => {
  it('creates a config from nothing that sends the tool to Airlock with the token and model', () => {
    const written = adapter.connect(absent(adapter), { proxyUrl: PROXY_URL, token: TOKEN, model: 'deepseek-chat' });
    expect(effective(written)).toEqual({ baseUrl: expectedBase(adapter), token: TOKEN, model: 'deepseek-chat' });
    expect(adapter.airlockToken(written, PROXY_URL)).toBe(TOKEN);
    expect(adapter.gateway(written, PROXY_URL)).toBeNull();
  });

  it('keeps comments and keys it does not own, and a second run changes nothing', () => {
    expect(adapter.airlockToken(commented, PROXY_URL)).toBeNull();
    const once = merged(commented, adapter.connect(commented, { proxyUrl: PROXY_URL, token: TOKEN }));
    for (const text of kept) expect(Object.values(once).join('\n')).toContain(text);
    expect(effective(once)).toMatchObject({ baseUrl: expectedBase(adapter), token: TOKEN });
    const twice = merged(once, adapter.connect(once, { proxyUrl: PROXY_URL, token: TOKEN }));
    expect(twice).toEqual(once);
  });

  it('finds a gateway key in the file, and removes it from every file when it was imported', () => {
    const found = adapter.gateway(foreign, PROXY_URL);
    expect(found).toMatchObject({ key: SENTINEL_KEY });
    expect(found?.baseUrl.replace(/\/v1$/, '')).toBe('https://gw.example.com');
    const written = merged(foreign, adapter.connect(foreign, { proxyUrl: PROXY_URL, token: TOKEN, dropGatewayKey: true }));
    expect(Object.values(written).map((text) => findSentinel(text ?? ''))).toEqual(Object.values(written).map(() => null));
    expect(adapter.airlockToken(written, PROXY_URL)).toBe(TOKEN);
    expect(adapter.secretValues(foreign)).toContain(SENTINEL_KEY);
  });

  it('refuses a file that does not parse instead of overwriting it', () => {
    expect(() => adapter.connect(broken, { proxyUrl: PROXY_URL, token: TOKEN })).toThrow(ConnectFileError);
    expect(() => adapter.gateway(broken, PROXY_URL)).toThrow(/fix or move the file/);
  });
});

describe('OpenCode without a model asked for', () => {
  it('keeps the model id it used and sends it through Airlock', () => {
    const files = { config: JSON.stringify({ model: 'gw/deepseek-chat', provider: { gw: { options: { baseURL: GATEWAY } } } }) };
    const written = parseJsonc(openCodeAdapter.connect(files, { proxyUrl: PROXY_URL, token: TOKEN }).config!) as {
      model: string;
      provider: Record<string, { models?: Record<string, unknown> }>;
    };
    expect(written.model).toBe('airlock/deepseek-chat');
    expect(Object.keys(written.provider.airlock!.models!)).toEqual(['deepseek-chat']);
  });
});

describe('a JSON file whose section Airlock edits is not an object', () => {
  it.each([
    ['Claude Code', claudeCodeAdapter, '{ "env": "ANTHROPIC_BASE_URL=https://gw.example.com" }', /settings\.json: "env" holds a string/],
    ['Claude Code', claudeCodeAdapter, '{ "env": null }', /settings\.json: "env" holds null/],
    ['OpenCode', openCodeAdapter, '{ "provider": [] }', /opencode\.json: "provider" holds an array/],
    ['OpenCode', openCodeAdapter, '{ "provider": { "airlock": { "options": true } } }', /"provider\.airlock\.options" holds a boolean/],
  ] as const)('%s refuses %s, naming the field and the fix', (_title, adapter, text, message) => {
    const connect = () => adapter.connect({ config: text }, { proxyUrl: PROXY_URL, token: TOKEN });
    expect(connect).toThrow(ConnectFileError);
    expect(connect).toThrow(message);
    expect(connect).toThrow(/fix or move the file/);
  });
});

describe('adapter paths follow the variables that move each tool', () => {
  it.each([
    [claudeCodeAdapter, {}, '/home/u/.claude/settings.json'],
    [claudeCodeAdapter, { CLAUDE_CONFIG_DIR: '/cfg/claude' }, '/cfg/claude/settings.json'],
    [codexAdapter, {}, '/home/u/.codex/config.toml'],
    [codexAdapter, { CODEX_HOME: '/cfg/codex' }, '/cfg/codex/config.toml'],
    [openCodeAdapter, {}, '/home/u/.config/opencode/opencode.json'],
    [openCodeAdapter, { XDG_CONFIG_HOME: '/xdg' }, '/xdg/opencode/opencode.json'],
    [aiderAdapter, {}, '/home/u/.aider.conf.yml'],
    [continueAdapter, {}, '/home/u/.continue/config.yaml'],
    [continueAdapter, { CONTINUE_GLOBAL_DIR: '/cfg/continue' }, '/cfg/continue/config.yaml'],
    [clineAdapter, {}, '/home/u/.cline/data/settings/providers.json'],
    [clineAdapter, { CLINE_DIR: '/cfg/cline' }, '/cfg/cline/data/settings/providers.json'],
    [clineAdapter, { CLINE_DIR: '/cfg/cline', CLINE_DATA_DIR: '/data/cline' }, '/data/cline/settings/providers.json'],
    [clineAdapter, { CLINE_DATA_DIR: '/data/cline', CLINE_PROVIDER_SETTINGS_PATH: '/p/providers.json' }, '/p/providers.json'],
  ] as const)('%s with %o', (adapter, env, expected) => {
    expect(Object.values(adapter.paths({ homeDir: '/home/u', env, exists: () => false }))[0]).toBe(expected);
  });

  it('OpenCode uses opencode.jsonc when only that exists', () => {
    const paths = openCodeAdapter.paths({ homeDir: '/home/u', env: {}, exists: (file) => file.endsWith('.jsonc') });
    expect(paths.config).toBe('/home/u/.config/opencode/opencode.jsonc');
  });
});
