import path from 'node:path';
import { parse, patch } from '@decimalturn/toml-patch';
import { parseDotenv, setDotenv } from '../dotenvFile.ts';
import { noProxyForTool } from '../toolsProxyBypass.ts';
import {
  asRecord,
  ConnectFileError,
  isAirlockUrl,
  modelId,
  openAiBase,
  plainKey,
  secretsInTree,
  type ToolAdapter,
  type ToolFiles,
} from '../toolAdapter.ts';

/**
 * Codex CLI reads `~/.codex/config.toml` (`$CODEX_HOME` moves the folder). A custom provider under
 * `[model_providers.<id>]` has `base_url`, `wire_api = "responses"` and `env_key`, the variable
 * holding its key; `model_provider` picks it. Codex also loads `$CODEX_HOME/.env` into its
 * environment at start (names starting with CODEX_ excepted), so the token goes there and the TOML
 * holds none. Sources: https://github.com/openai/codex/blob/main/docs/config.md (model_providers,
 * env_key, wire_api, experimental_bearer_token) and codex-rs/arg0 `load_dotenv` (the .env file).
 *
 * TOML is edited with @decimalturn/toml-patch: it patches the parsed document back into the
 * original text, keeping comments, order and formatting, and is pure JavaScript (no WebAssembly
 * to load in the Electron bundle), maintained and run against the toml-test suite. smol-toml,
 * already a dependency, parses and writes TOML but drops every comment.
 */
const CONFIG = 'config';
const ENV = 'env';
const PROVIDER_ID = 'airlock';
/** Not CODEX_-prefixed: Codex ignores such names in its .env file. */
export const CODEX_TOKEN_VARIABLE = 'AIRLOCK_API_KEY';
/**
 * Codex's HTTP client (reqwest) reads NO_PROXY before no_proxy, and .env values are set over the
 * shell's, so this one name makes Codex reach Airlock directly (probed with 0.169.0, report T of
 * session 29; https://docs.rs/reqwest/latest/reqwest/struct.NoProxy.html).
 */
const NO_PROXY = 'NO_PROXY';
/** New tables as `[model_providers.airlock]` sections, not inline tables. */
const FORMAT = { inlineTableStart: 3 };

function parsed(files: ToolFiles): Record<string, unknown> {
  return parsedToml(files[CONFIG] ?? null);
}

function parsedToml(text: string | null): Record<string, unknown> {
  if (text === null || text.trim() === '') return {};
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    // The place only: the parser's message quotes the line, which may hold a key.
    const { line, column } = error as { line?: unknown; column?: unknown };
    const place = typeof line === 'number' && typeof column === 'number' ? `at line ${line}, column ${column + 1}` : 'it does not parse';
    throw new ConnectFileError(`config.toml is not valid TOML (${place}): fix or move the file, then connect again`);
  }
}

function provider(config: Record<string, unknown>, id: unknown): Record<string, unknown> | null {
  return typeof id === 'string' ? asRecord(asRecord(config.model_providers)?.[id]) : null;
}

/** The key a provider table leads to: its bearer token, or its env_key's value in .env. */
function providerKey(table: Record<string, unknown>, files: ToolFiles): { key: string; location: string } | null {
  const bearer = plainKey(table.experimental_bearer_token);
  if (bearer) return { key: bearer, location: 'experimental_bearer_token' };
  const envKey = table.env_key;
  if (typeof envKey !== 'string') return null;
  const value = plainKey(parseDotenv(files[ENV] ?? null).get(envKey));
  return value ? { key: value, location: `${envKey} in .env` } : null;
}

export const codexAdapter: ToolAdapter = {
  id: 'codex',
  title: 'Codex CLI',
  paths({ homeDir, env }) {
    const codexHome = env.CODEX_HOME?.trim() || path.join(homeDir, '.codex');
    return { [CONFIG]: path.join(codexHome, 'config.toml'), [ENV]: path.join(codexHome, '.env') };
  },
  connect(files, settings) {
    const config = parsed(files);
    const updated = structuredClone(config);
    const providers = asRecord(updated.model_providers) ?? {};
    const previousId = updated.model_provider;
    const previous = provider(config, previousId);
    const found = settings.dropGatewayKey && previous && previousId !== PROVIDER_ID ? providerKey(previous, files) : null;
    let envText = files[ENV] ?? null;
    if (found?.location === 'experimental_bearer_token') delete asRecord(providers[previousId as string])!.experimental_bearer_token;
    else if (found) envText = setDotenv(envText, String(previous!.env_key), undefined);
    const own = { ...(asRecord(providers[PROVIDER_ID]) ?? {}) };
    delete own.experimental_bearer_token;
    providers[PROVIDER_ID] = {
      ...own,
      name: 'Airlock',
      base_url: openAiBase(settings.proxyUrl),
      wire_api: 'responses',
      env_key: CODEX_TOKEN_VARIABLE,
    };
    updated.model_providers = providers;
    updated.model_provider = PROVIDER_ID;
    if (settings.model) updated.model = settings.model;
    const noProxy = noProxyForTool(NO_PROXY, parseDotenv(envText).get(NO_PROXY), settings.env ?? {});
    if (noProxy !== null) envText = setDotenv(envText, NO_PROXY, noProxy);
    const text = files[CONFIG] ?? '';
    return {
      [CONFIG]: patch(text, updated, FORMAT),
      [ENV]: setDotenv(envText, CODEX_TOKEN_VARIABLE, settings.token),
    };
  },
  airlockToken(files, proxyUrl) {
    const config = parsed(files);
    const table = provider(config, config.model_provider);
    if (!table || !isAirlockUrl(table.base_url, proxyUrl)) return null;
    return providerKey(table, files)?.key ?? null;
  },
  model(files) {
    // Without `model`, Codex asks for its built-in OpenAI model id, whatever the provider.
    return modelId(parsed(files).model);
  },
  gateway(files, proxyUrl) {
    const config = parsed(files);
    const table = provider(config, config.model_provider);
    const baseUrl = table?.base_url;
    if (!table || typeof baseUrl !== 'string' || isAirlockUrl(baseUrl, proxyUrl)) return null;
    const found = providerKey(table, files);
    return found ? { baseUrl, key: found.key, location: `model_providers.${String(config.model_provider)}: ${found.location}` } : null;
  },
  secretValues(files) {
    // Every .env value but the proxy bypass, a host list the preview must show (masking 127.0.0.1 would hide the base URL too).
    const dotenvValues = [...parseDotenv(files[ENV] ?? null)].filter(([name]) => name.toUpperCase() !== NO_PROXY).map(([, value]) => value);
    return [...secretsInTree(parsed(files)), ...dotenvValues].filter((value) => value.length >= 8);
  },
  proxyBypass(files) {
    const noProxy = parseDotenv(files[ENV] ?? null).get(NO_PROXY);
    return noProxy === undefined ? [] : [`${NO_PROXY}=${noProxy} in .env`];
  },
  settingsFormats: {
    // Codex saves its own settings into config.toml with toml_edit (a /model choice, a trusted directory).
    [CONFIG]: {
      parse: parsedToml,
      edit(text, settingPath, value) {
        const updated = structuredClone(parsedToml(text));
        setAt(updated, settingPath, value);
        return patch(text, updated, FORMAT);
      },
    },
    [ENV]: {
      parse: (text) => Object.fromEntries(parseDotenv(text)),
      edit: (text, [name], value) => setDotenv(text, name!, value === undefined ? undefined : String(value)),
    },
  },
};

/** Sets (undefined: removes) the value at a path of a parsed document, making the tables on the way. */
function setAt(root: Record<string, unknown>, settingPath: readonly string[], value: unknown): void {
  let table = root;
  for (const name of settingPath.slice(0, -1)) {
    const next = asRecord(table[name]) ?? {};
    table[name] = next;
    table = next;
  }
  const last = settingPath.at(-1)!;
  if (value === undefined) delete table[last];
  else table[last] = value;
}
