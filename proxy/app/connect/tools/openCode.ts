import path from 'node:path';
import { editJsonc, jsoncSettings, parseJsonc, type JsonEdit } from '../jsoncFile.ts';
import { asRecord, isAirlockUrl, modelId, openAiBase, plainKey, secretsInTree, type ToolAdapter, type ToolFiles } from '../toolAdapter.ts';

/**
 * OpenCode's global config is `~/.config/opencode/opencode.json` (`$XDG_CONFIG_HOME` moves it; an
 * `opencode.jsonc` there is read too, JSON with comments). A custom provider uses the AI SDK's
 * OpenAI-compatible package with `options.baseURL` and `options.apiKey`, lists its `models`, and
 * the top-level `model` is `provider/model`. Source: https://opencode.ai/docs/config/ and
 * https://opencode.ai/docs/providers/ (custom provider).
 */
const CONFIG = 'config';
const PROVIDER_ID = 'airlock';

function parsed(files: ToolFiles): Record<string, unknown> {
  return parseJsonc(files[CONFIG] ?? null, 'opencode.json');
}

function providerOf(config: Record<string, unknown>, id: string): Record<string, unknown> | null {
  return asRecord(asRecord(config.provider)?.[id]);
}

/** The provider the top-level `model` names, else the only provider with a base URL. */
function activeProviderId(config: Record<string, unknown>): string | null {
  const model = config.model;
  if (typeof model === 'string' && model.includes('/')) return model.slice(0, model.indexOf('/'));
  const withBase = Object.entries(asRecord(config.provider) ?? {}).filter(([, value]) => asRecord(asRecord(value)?.options)?.baseURL);
  return withBase.length === 1 ? withBase[0]![0] : null;
}

export const openCodeAdapter: ToolAdapter = {
  id: 'opencode',
  title: 'OpenCode',
  paths({ homeDir, env, exists }) {
    const dir = path.join(env.XDG_CONFIG_HOME?.trim() || path.join(homeDir, '.config'), 'opencode');
    const json = path.join(dir, 'opencode.json');
    const jsonc = path.join(dir, 'opencode.jsonc');
    return { [CONFIG]: !exists(json) && exists(jsonc) ? jsonc : json };
  },
  connect(files, settings) {
    const text = files[CONFIG] ?? null;
    const config = parsed(files);
    const edits: JsonEdit[] = [];
    if (text === null || text.trim() === '') edits.push({ path: ['$schema'], value: 'https://opencode.ai/config.json' });
    const base = ['provider', PROVIDER_ID];
    edits.push(
      { path: [...base, 'npm'], value: '@ai-sdk/openai-compatible' },
      { path: [...base, 'name'], value: 'Airlock' },
      { path: [...base, 'options', 'baseURL'], value: openAiBase(settings.proxyUrl) },
      { path: [...base, 'options', 'apiKey'], value: settings.token },
    );
    // Without a model asked for, the one the tool uses now keeps its id and goes through Airlock.
    const current =
      typeof config.model === 'string' && config.model.includes('/') ? config.model.slice(config.model.indexOf('/') + 1) : null;
    const model = settings.model ?? current;
    if (model) {
      if (!asRecord(providerOf(config, PROVIDER_ID)?.models)?.[model]) {
        edits.push({ path: [...base, 'models', model], value: { name: model } });
      }
      edits.push({ path: ['model'], value: `${PROVIDER_ID}/${model}` });
    }
    const found = settings.dropGatewayKey ? activeProviderId(config) : null;
    if (found && found !== PROVIDER_ID) edits.push({ path: ['provider', found, 'options', 'apiKey'], value: undefined });
    return { [CONFIG]: editJsonc(text, edits, 'opencode.json') };
  },
  airlockToken(files, proxyUrl) {
    const options = asRecord(providerOf(parsed(files), PROVIDER_ID)?.options);
    return options && isAirlockUrl(options.baseURL, proxyUrl) ? plainKey(options.apiKey) : null;
  },
  model(files) {
    // `provider/model`: the gateway gets the part after the provider.
    const model = modelId(parsed(files).model);
    return model?.includes('/') ? modelId(model.slice(model.indexOf('/') + 1)) : model;
  },
  gateway(files, proxyUrl) {
    const config = parsed(files);
    const id = activeProviderId(config);
    const options = id ? asRecord(providerOf(config, id)?.options) : null;
    const baseUrl = options?.baseURL;
    const key = plainKey(options?.apiKey);
    if (!id || typeof baseUrl !== 'string' || !key || isAirlockUrl(baseUrl, proxyUrl)) return null;
    return { baseUrl, key, location: `provider.${id}.options.apiKey` };
  },
  secretValues(files) {
    return secretsInTree(parsed(files));
  },
  settingsFormats: { [CONFIG]: jsoncSettings('opencode.json') },
  // OpenCode runs on Bun, whose fetch, given no `proxy` option, takes the proxy and its exceptions from the
  // environment (https://bun.sh/guides/http/proxy); no setting of OpenCode's passes one: a provider's
  // `options` go to the AI SDK's provider, whose fetch OpenCode wraps for timeouts only (1.18.33's bundle,
  // probed 2026-11-29).
  proxyBypassInShellOnly: { afterwards: null },
};
