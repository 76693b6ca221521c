import path from 'node:path';
import { isRecord } from '../../../core/isRecord.ts';
import { editJsonc, parseJsonc, type JsonEdit } from '../jsoncFile.ts';
import type { SettingsFormat } from '../settingsUndo.ts';
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
 * Cline's CLI (npm `cline`, 3.x) keeps its providers in `~/.cline/data/settings/providers.json`
 * (`$CLINE_PROVIDER_SETTINGS_PATH` names the file; else `$CLINE_DATA_DIR/settings/`, else
 * `$CLINE_DIR/data/settings/`), mode 0600, key in the file: `{ version: 1, lastUsedProvider,
 * modes, providers: { <id>: { settings: { provider, apiKey, model, baseUrl }, updatedAt, tokenSource } } }`.
 * `cline auth -p openai -k … -b … -m …` writes the `openai-compatible` entry (the AI SDK's
 * OpenAI-compatible client) and makes it `lastUsedProvider`, which `cline "<prompt>"` uses. Cline reads
 * the file with JSON.parse and a schema (`updatedAt` an ISO time, required); a file that fails either
 * is read as holding no providers and is replaced whole at its next save, so Airlock refuses such a
 * file rather than edit one Cline ignores. Cline re-saves the file on each run (a new `updatedAt`).
 * Sources: https://docs.cline.bot/cline-cli/installation (cline auth), cline/cline
 * sdk/packages/core/src/storage/provider-settings-manager.ts (read, write, schema) and
 * sdk/packages/shared/src/storage/paths.ts (locations); checked against cline 3.0.65, whose run
 * through Airlock with a file written this way reached the gateway with the token's client name.
 */
const CONFIG = 'config';
const FILE_NAME = 'providers.json';
const PROVIDER_ID = 'openai-compatible';
const SCHEMA_VERSION = 1;

/** The file as Cline reads it: strict JSON with the shape its schema requires, else ConnectFileError. */
function parsed(files: ToolFiles): Record<string, unknown> {
  return parseProviders(files[CONFIG] ?? null);
}

function parseProviders(text: string | null): Record<string, unknown> {
  // jsonc-parser names the place of a syntax error; JSON.parse then refuses what Cline cannot read.
  const tree = parseJsonc(text, FILE_NAME);
  if (text === null || text.trim() === '') return tree;
  try {
    JSON.parse(text);
  } catch {
    throw refusal('holds a comment, a trailing comma or a byte order mark, so Cline cannot read it');
  }
  if (tree.version !== SCHEMA_VERSION) throw refusal(`has version ${JSON.stringify(tree.version)}, where Cline reads version 1`);
  const providers = tree.providers;
  if (!isRecord(providers)) throw refusal('has no "providers" object');
  for (const [id, entry] of Object.entries(providers)) {
    const fields = asRecord(entry);
    if (!isRecord(fields?.settings) || typeof fields.updatedAt !== 'string') {
      throw refusal(`has a provider "${id}" without "settings" and "updatedAt"`);
    }
  }
  return tree;
}

function refusal(cause: string): ConnectFileError {
  return new ConnectFileError(
    `${FILE_NAME} ${cause}; Cline reads such a file as holding no providers: fix or move the file (or run \`cline auth\` once), then connect again`,
  );
}

function ownSettings(config: Record<string, unknown>): Record<string, unknown> | null {
  return asRecord(asRecord(asRecord(config.providers)?.[PROVIDER_ID])?.settings);
}

export const clineAdapter: ToolAdapter = {
  id: 'cline',
  title: 'Cline CLI',
  paths({ homeDir, env }) {
    const explicit = env.CLINE_PROVIDER_SETTINGS_PATH?.trim();
    if (explicit) return { [CONFIG]: explicit };
    const dataDir = env.CLINE_DATA_DIR?.trim() || path.join(env.CLINE_DIR?.trim() || path.join(homeDir, '.cline'), 'data');
    return { [CONFIG]: path.join(dataDir, 'settings', FILE_NAME) };
  },
  connect(files, settings) {
    const text = files[CONFIG] ?? null;
    const config = parsed(files);
    const current = ownSettings(config);
    // Without a model asked for, the one the OpenAI-compatible entry has keeps its id and goes through Airlock.
    const model = settings.model ?? modelId(current?.model);
    const base = ['providers', PROVIDER_ID];
    const edits: JsonEdit[] = [];
    if (config.version === undefined) edits.push({ path: ['version'], value: SCHEMA_VERSION });
    if (current === null) {
      // A new entry carries the time stamp Cline's schema requires; an existing one keeps its own.
      const entrySettings = {
        provider: PROVIDER_ID,
        apiKey: settings.token,
        ...(model ? { model } : {}),
        baseUrl: openAiBase(settings.proxyUrl),
      };
      const updatedAt = new Date(settings.nowMs ?? Date.now()).toISOString();
      edits.push({ path: base, value: { settings: entrySettings, updatedAt, tokenSource: 'manual' } });
    } else {
      // The imported key sits in this entry's apiKey, which the token replaces: nothing else holds it.
      edits.push(
        { path: [...base, 'settings', 'apiKey'], value: settings.token },
        { path: [...base, 'settings', 'baseUrl'], value: openAiBase(settings.proxyUrl) },
      );
      if (model) edits.push({ path: [...base, 'settings', 'model'], value: model });
    }
    edits.push({ path: ['lastUsedProvider'], value: PROVIDER_ID });
    return { [CONFIG]: editJsonc(text, edits, FILE_NAME) };
  },
  airlockToken(files, proxyUrl) {
    // Only the provider Cline uses by default counts: another last-used provider means Cline goes elsewhere.
    const config = parsed(files);
    const own = ownSettings(config);
    return config.lastUsedProvider === PROVIDER_ID && own && isAirlockUrl(own.baseUrl, proxyUrl) ? plainKey(own.apiKey) : null;
  },
  model(files) {
    return modelId(ownSettings(parsed(files))?.model);
  },
  gateway(files, proxyUrl) {
    const own = ownSettings(parsed(files));
    const baseUrl = own?.baseUrl;
    const key = plainKey(own?.apiKey);
    if (typeof baseUrl !== 'string' || !key || isAirlockUrl(baseUrl, proxyUrl)) return null;
    return { baseUrl, key, location: `providers["${PROVIDER_ID}"].settings.apiKey` };
  },
  secretValues(files) {
    return secretsInTree(parsed(files));
  },
  settingsFormats: { [CONFIG]: withoutClineBookkeeping() },
  // Cline's CLI runs on Bun, whose fetch, given no `proxy` option, takes the proxy and its exceptions from
  // the environment (https://bun.sh/guides/http/proxy); no file of Cline's sets either (its provider
  // settings have no proxy field). The hub daemon an earlier run left up sends a later run's requests with
  // the environment it started in: probed with 3.0.65 (2026-11-29), a run with NO_PROXY=127.0.0.1 went
  // through the proxy while a hub started without it was up, and directly after `cline hub stop`.
  proxyBypassInShellOnly: { afterwards: 'run `cline hub stop` there, since its hub daemon keeps the environment it started in' },
};

/**
 * providers.json as settings for undo, without what Cline itself rewrites on each run: an entry's
 * `updatedAt` and an empty `modes` (its schema's default, added at its first save). Those changing
 * is no change of the user's to protect, and a file Airlock created goes again once only they are left.
 */
function withoutClineBookkeeping(): SettingsFormat {
  return {
    // Only the syntax is checked: undo passes through texts Cline's schema would not take (an entry
    // half taken out), and the shape was checked when Airlock wrote the file.
    parse(text) {
      const { modes, providers, ...rest } = parseJsonc(text, FILE_NAME);
      const settings: Record<string, unknown> = { ...rest };
      if (modes !== undefined && !(isRecord(modes) && Object.keys(modes).length === 0)) settings.modes = modes;
      if (providers !== undefined) {
        settings.providers = Object.fromEntries(
          Object.entries(asRecord(providers) ?? {}).map(([id, entry]) => {
            const { updatedAt: _updatedAt, ...fields } = asRecord(entry) ?? {};
            return [id, fields];
          }),
        );
      }
      return settings;
    },
    // Undo's edits can leave an entry half taken out (only its `updatedAt`); the pass that removes
    // emptied sections then takes the entry out whole, so the file never stays so between undos.
    edit: (text, settingPath, value) => editJsonc(text, [{ path: [...settingPath], value }], FILE_NAME),
  };
}
