import path from 'node:path';
import { editJsonc, jsoncSettings, parseJsonc, type JsonEdit } from '../jsoncFile.ts';
import { NO_PROXY_WRITTEN, noProxyForTool } from '../toolsProxyBypass.ts';
import { asRecord, isAirlockUrl, modelId, plainKey, secretsInTree, type ToolAdapter, type ToolFiles } from '../toolAdapter.ts';

/**
 * Claude Code reads `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR/settings.json`) and applies
 * its `env` block to every run; ANTHROPIC_AUTH_TOKEN goes out as `Authorization: Bearer`,
 * ANTHROPIC_API_KEY as `x-api-key`, and with both set both headers go out, so the key one is
 * removed. Sources: https://code.claude.com/docs/en/settings and /env-vars (the `env` setting,
 * ANTHROPIC_BASE_URL / ANTHROPIC_AUTH_TOKEN / ANTHROPIC_API_KEY / ANTHROPIC_MODEL, and the `model`
 * setting, which ANTHROPIC_MODEL overrides; without either it asks for its default claude-* model).
 */
const CONFIG = 'config';
const BASE_URL = 'ANTHROPIC_BASE_URL';
const AUTH_TOKEN = 'ANTHROPIC_AUTH_TOKEN';
const API_KEY = 'ANTHROPIC_API_KEY';
const MODEL = 'ANTHROPIC_MODEL';
/**
 * Claude Code picks its API provider from these before it reads ANTHROPIC_BASE_URL: any of them on
 * sends every request to Bedrock, Vertex, Foundry, Anthropic on AWS, Mantle or a cloud gateway
 * session, past Airlock (the 2.1 binary's getAPIProvider; "1", "true", "yes" and "on" count as on).
 */
const PROVIDER_SWITCHES = [
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
  'CLAUDE_CODE_USE_ANTHROPIC_AWS',
  'CLAUDE_CODE_USE_MANTLE',
  'CLAUDE_CODE_USE_GATEWAY',
];

function switchedOn(value: unknown): boolean {
  return typeof value === 'string' && ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase());
}

function envBlock(files: ToolFiles, filePath: string): Record<string, unknown> {
  return asRecord(parseJsonc(files[CONFIG] ?? null, filePath).env) ?? {};
}

export const claudeCodeAdapter: ToolAdapter = {
  id: 'claude-code',
  title: 'Claude Code',
  paths({ homeDir, env }) {
    const configDir = env.CLAUDE_CONFIG_DIR?.trim() || path.join(homeDir, '.claude');
    return { [CONFIG]: path.join(configDir, 'settings.json') };
  },
  connect(files, settings) {
    const edits: JsonEdit[] = [
      { path: ['env', BASE_URL], value: settings.proxyUrl },
      { path: ['env', AUTH_TOKEN], value: settings.token },
      { path: ['env', API_KEY], value: undefined },
      ...PROVIDER_SWITCHES.map((name) => ({ path: ['env', name], value: undefined })),
    ];
    if (settings.model) edits.push({ path: ['env', MODEL], value: settings.model });
    const env = envBlock(files, 'settings.json');
    // Both cases: Claude Code reads `NO_PROXY || no_proxy` on one path and `no_proxy || NO_PROXY` on another,
    // and the settings env replaces only the name it sets (probed with 2.1.197, report T of session 29).
    for (const name of NO_PROXY_WRITTEN) {
      const noProxy = noProxyForTool(name, env[name], settings.env ?? {});
      if (noProxy !== null) edits.push({ path: ['env', name], value: noProxy });
    }
    return { [CONFIG]: editJsonc(files[CONFIG] ?? null, edits, 'settings.json') };
  },
  airlockToken(files, proxyUrl) {
    const env = envBlock(files, 'settings.json');
    if (!isAirlockUrl(env[BASE_URL], proxyUrl) || PROVIDER_SWITCHES.some((name) => switchedOn(env[name]))) return null;
    return plainKey(env[AUTH_TOKEN]) ?? plainKey(env[API_KEY]);
  },
  model(files) {
    return modelId(envBlock(files, 'settings.json')[MODEL]) ?? modelId(parseJsonc(files[CONFIG] ?? null, 'settings.json').model);
  },
  gateway(files, proxyUrl) {
    const env = envBlock(files, 'settings.json');
    const baseUrl = env[BASE_URL];
    if (typeof baseUrl !== 'string' || baseUrl.trim() === '' || isAirlockUrl(baseUrl, proxyUrl)) return null;
    const tokenKey = plainKey(env[AUTH_TOKEN]);
    const key = tokenKey ?? plainKey(env[API_KEY]);
    if (!key) return null;
    return { baseUrl, key, location: `env.${tokenKey ? AUTH_TOKEN : API_KEY}` };
  },
  secretValues(files) {
    return secretsInTree(parseJsonc(files[CONFIG] ?? null, 'settings.json'));
  },
  proxyBypass(files) {
    const env = envBlock(files, 'settings.json');
    return NO_PROXY_WRITTEN.filter((name) => typeof env[name] === 'string').map((name) => `env.${name}=${String(env[name])}`);
  },
  settingsFormats: { [CONFIG]: jsoncSettings('settings.json') },
};
