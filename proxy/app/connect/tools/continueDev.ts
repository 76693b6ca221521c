import path from 'node:path';
import type { SettingsFormat } from '../settingsUndo.ts';
import {
  asRecord,
  ConnectError,
  ConnectFileError,
  isAirlockUrl,
  modelId,
  openAiBase,
  plainKey,
  secretsInTree,
  type ToolAdapter,
  type ToolFiles,
} from '../toolAdapter.ts';
import { AIRLOCK_HOST, namesAirlock } from '../toolsProxyBypass.ts';
import { appendYamlItem, setYamlValue, yamlMappingDocument } from '../yamlFile.ts';

/**
 * Continue (continue.dev, VS Code and JetBrains) reads `~/.continue/config.yaml`
 * (`$CONTINUE_GLOBAL_DIR` moves the folder). `name`, `version` and `schema: v1` are required; each
 * of `models` has a `name`, a `provider` and a `model`, and `provider: openai` with `apiBase` and
 * `apiKey` talks to any OpenAI-compatible endpoint (a `uses:` entry is a hub block, `${{ secrets.X }}`
 * a reference). A config.yaml is loaded instead of the older config.json, so one is never created
 * beside a config.json: that would hide the user's whole config. Sources:
 * https://docs.continue.dev/reference (config.yaml), https://docs.continue.dev/customize/model-providers/top-level/openai,
 * https://docs.continue.dev/yaml-migration, continuedev/continue packages/config-yaml/src/schemas
 * (models.ts, index.ts) and core/util/paths.ts (CONTINUE_GLOBAL_DIR).
 */
const CONFIG = 'config';
/** The deprecated config.json: read to refuse a setup that would hide it, never written. */
const LEGACY = 'legacy';
const FILE_NAME = 'config.yaml';
const NEW_CONFIG = 'name: Local Config\nversion: 1.0.0\nschema: v1\n';

interface ModelEntry {
  index: number;
  fields: Record<string, unknown>;
}

function values(text: string | null): Record<string, unknown> {
  return asRecord(yamlMappingDocument(text, FILE_NAME).toJS()) ?? {};
}

function modelEntries(text: string | null): ModelEntry[] {
  const models = values(text).models;
  if (models === undefined || models === null) return [];
  if (!Array.isArray(models)) {
    throw new ConnectFileError(
      `${FILE_NAME}: "models" is not a list, where Airlock adds a model: fix or move the file, then connect again`,
    );
  }
  return models.flatMap((item, index) => {
    const fields = asRecord(item);
    return fields ? [{ index, fields }] : [];
  });
}

const pointsAtAirlock = (entry: ModelEntry, proxyUrl: string) => isAirlockUrl(entry.fields.apiBase, proxyUrl);

/** An OpenAI-compatible model entry sent somewhere other than Airlock. */
const isOtherOpenAi = (entry: ModelEntry, proxyUrl: string) =>
  entry.fields.provider === 'openai' && typeof entry.fields.apiBase === 'string' && !pointsAtAirlock(entry, proxyUrl);

function foundGateway(files: ToolFiles, proxyUrl: string): { entry: ModelEntry; key: string } | null {
  for (const entry of modelEntries(files[CONFIG] ?? null)) {
    const key = plainKey(entry.fields.apiKey);
    if (key && isOtherOpenAi(entry, proxyUrl)) return { entry, key };
  }
  return null;
}

/**
 * Every model sent through Airlock gets `requestOptions.noProxy` naming 127.0.0.1, merged into a list
 * it has: cn sends its requests for Airlock to an HTTP_PROXY of the environment unless it or NO_PROXY
 * names that address (probed with cn 1.5.47, report T of session 29). Written whether or not a proxy
 * is set where connect runs, since the tool may start elsewhere: it covers only Airlock's entries.
 * Source: continuedev/continue packages/fetch/src/util.ts (shouldBypassProxy reads requestOptions.noProxy).
 */
function withProxyBypass(text: string, proxyUrl: string): string {
  let edited = text;
  for (const entry of modelEntries(text).filter((candidate) => pointsAtAirlock(candidate, proxyUrl))) {
    const at = ['models', entry.index, 'requestOptions'];
    const options = entry.fields.requestOptions;
    const noProxy = asRecord(options)?.noProxy;
    if (options === undefined) edited = setYamlValue(edited, FILE_NAME, at, { noProxy: [AIRLOCK_HOST] });
    else if (asRecord(options) === null || (noProxy !== undefined && !Array.isArray(noProxy))) {
      throw new ConnectFileError(
        `${FILE_NAME}: "requestOptions" of model "${String(entry.fields.name)}" is not a mapping with a "noProxy" list, where Airlock adds ${AIRLOCK_HOST}: fix or move the file, then connect again`,
      );
    } else if (noProxy === undefined) edited = setYamlValue(edited, FILE_NAME, [...at, 'noProxy'], [AIRLOCK_HOST]);
    else if (!noProxy.some((host) => typeof host === 'string' && namesAirlock(host))) {
      edited = setYamlValue(edited, FILE_NAME, [...at, 'noProxy'], [...noProxy, AIRLOCK_HOST]);
    }
  }
  return edited;
}

function uniqueName(entries: readonly ModelEntry[], wanted: string): string {
  const taken = new Set(entries.map((entry) => entry.fields.name));
  let name = wanted;
  for (let suffix = 2; taken.has(name); suffix += 1) name = `${wanted} ${suffix}`;
  return name;
}

export const continueAdapter: ToolAdapter = {
  id: 'continue',
  title: 'Continue',
  paths({ homeDir, env }) {
    const dir = env.CONTINUE_GLOBAL_DIR?.trim() || path.join(homeDir, '.continue');
    return { [CONFIG]: path.join(dir, FILE_NAME), [LEGACY]: path.join(dir, 'config.json') };
  },
  connect(files, settings) {
    const current = files[CONFIG] ?? null;
    if ((current === null || current.trim() === '') && files[LEGACY] != null) {
      throw new ConnectFileError(
        'Continue reads ~/.continue/config.json here, and a config.yaml would be loaded instead of all of it: move your config to config.yaml (https://docs.continue.dev/yaml-migration), then connect again',
      );
    }
    const apiBase = openAiBase(settings.proxyUrl);
    let text = current === null || current.trim() === '' ? NEW_CONFIG : current;
    const imported = settings.dropGatewayKey ? foundGateway(files, settings.proxyUrl)?.key : undefined;
    // Airlock's own entries get this token; an imported key's entries are sent through Airlock, keeping their names and options.
    for (const entry of modelEntries(text)) {
      const own = pointsAtAirlock(entry, settings.proxyUrl);
      if (!own && !(imported && plainKey(entry.fields.apiKey) === imported && isOtherOpenAi(entry, settings.proxyUrl))) continue;
      if (entry.fields.apiBase !== apiBase) text = setYamlValue(text, FILE_NAME, ['models', entry.index, 'apiBase'], apiBase);
      if (entry.fields.apiKey !== settings.token) text = setYamlValue(text, FILE_NAME, ['models', entry.index, 'apiKey'], settings.token);
    }
    const entries = modelEntries(text);
    const viaAirlock = entries.filter((entry) => pointsAtAirlock(entry, settings.proxyUrl));
    // Without a model asked for, the OpenAI-compatible model the user has keeps its id and goes through Airlock.
    const model =
      settings.model ??
      (viaAirlock.length === 0 ? entries.find((entry) => isOtherOpenAi(entry, settings.proxyUrl))?.fields.model : undefined);
    if (typeof model === 'string' && !viaAirlock.some((entry) => entry.fields.model === model)) {
      const name = uniqueName(entries, `${model} (Airlock)`);
      text = appendYamlItem(text, FILE_NAME, ['models'], { name, provider: 'openai', model, apiBase, apiKey: settings.token });
    } else if (viaAirlock.length === 0) {
      throw new ConnectError(
        'invalid',
        'Continue lists each model by name: choose the model Continue should ask Airlock for, then connect again.',
      );
    }
    return { [CONFIG]: withProxyBypass(text, settings.proxyUrl) };
  },
  airlockToken(files, proxyUrl) {
    const entry = modelEntries(files[CONFIG] ?? null).find((candidate) => pointsAtAirlock(candidate, proxyUrl));
    return entry ? plainKey(entry.fields.apiKey) : null;
  },
  model(files, proxyUrl) {
    // The model of an entry through Airlock, else the OpenAI-compatible one connecting sends through it.
    const entries = modelEntries(files[CONFIG] ?? null);
    const entry =
      entries.find((candidate) => pointsAtAirlock(candidate, proxyUrl)) ?? entries.find((candidate) => isOtherOpenAi(candidate, proxyUrl));
    return modelId(entry?.fields.model);
  },
  gateway(files, proxyUrl) {
    const found = foundGateway(files, proxyUrl);
    if (!found) return null;
    const name = typeof found.entry.fields.name === 'string' ? ` "${found.entry.fields.name}"` : '';
    return { baseUrl: String(found.entry.fields.apiBase), key: found.key, location: `models[${found.entry.index}]${name}: apiKey` };
  },
  secretValues(files) {
    return secretsInTree(values(files[CONFIG] ?? null));
  },
  proxyBypass(files) {
    return modelEntries(files[CONFIG] ?? null).flatMap(({ index, fields }) => {
      const noProxy = asRecord(fields.requestOptions)?.noProxy;
      return Array.isArray(noProxy) ? [`models[${index}].requestOptions.noProxy=${noProxy.join(',')}`] : [];
    });
  },
  settingsFormats: { [CONFIG]: modelsByName() },
};

/**
 * config.yaml as settings for undo, with `models` keyed by each entry's name (the rest of an entry
 * its settings): an entry Airlock added or changed is found again after the user or Continue added,
 * removed or reordered others.
 */
function modelsByName(): SettingsFormat {
  const keyed = (text: string | null) => {
    const names = new Map<string, number>();
    for (const entry of modelEntries(text)) {
      const base = typeof entry.fields.name === 'string' ? entry.fields.name : `#${entry.index}`;
      let key = base;
      for (let suffix = 2; names.has(key); suffix += 1) key = `${base} #${suffix}`;
      names.set(key, entry.index);
    }
    return names;
  };
  return {
    parse(text) {
      const settings = values(text);
      if (!Array.isArray(settings.models)) return settings;
      const models: Record<string, unknown> = {};
      for (const [key, index] of keyed(text)) {
        const { name: _name, ...fields } = asRecord(settings.models[index])!;
        models[key] = fields;
      }
      return { ...settings, models };
    },
    edit(text, settingPath, value) {
      if (settingPath[0] !== 'models' || settingPath.length < 2) return setYamlValue(text, FILE_NAME, settingPath, value);
      const index = keyed(text).get(settingPath[1]!);
      if (index === undefined) {
        return value === undefined ? text : appendYamlItem(text, FILE_NAME, ['models'], { name: settingPath[1], ...asRecord(value) });
      }
      if (settingPath.length === 2 && value !== undefined) {
        return setYamlValue(text, FILE_NAME, ['models', index], { name: settingPath[1], ...asRecord(value) });
      }
      return setYamlValue(text, FILE_NAME, ['models', index, ...settingPath.slice(2)], value);
    },
  };
}
