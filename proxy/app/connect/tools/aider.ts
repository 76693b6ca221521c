import path from 'node:path';
import { isMap, isScalar, stringify } from 'yaml';
import {
  ConnectFileError,
  isAirlockUrl,
  modelId,
  openAiBase,
  plainKey,
  secretsInTree,
  type ToolAdapter,
  type ToolFiles,
} from '../toolAdapter.ts';
import { NO_PROXY_WRITTEN, noProxyForTool } from '../toolsProxyBypass.ts';
import { appendYamlItem, setYamlValue, withScalarReplaced, yamlMappingDocument } from '../yamlFile.ts';

/**
 * aider reads `.aider.conf.yml` from the home directory (then the git root and the current
 * directory, later ones winning); `openai-api-base` and `openai-api-key` set its OpenAI-compatible
 * endpoint and key, and a model named `openai/<id>` uses that endpoint. Read with the `yaml` package;
 * written by replacing only the value of each option Airlock sets (at the range the parser found it)
 * or appending a line for one that is missing, since re-printing the document would re-wrap long
 * lines, drop alignment, a byte order mark and CRLF line ends (aider's sample file is mostly comments).
 * Sources: https://aider.chat/docs/config/aider_conf.html, https://aider.chat/docs/config/api-keys.html,
 * https://aider.chat/docs/llms/openai-compat.html.
 */
const CONFIG = 'config';
const FILE_NAME = '.aider.conf.yml';
const API_BASE = 'openai-api-base';
const API_KEY = 'openai-api-key';
/**
 * aider's requests go litellm -> openai SDK -> httpx, which sends those for http://127.0.0.1:<port>
 * to the environment's proxy unless NO_PROXY names the host (httpx in probe T of session 29; from
 * this file to httpx by hand in session 30, report A). `set-env` entries (`NAME=value`, a list here)
 * go into aider's own environment in main() after its .env files are loaded (with override) and
 * before litellm is imported or a model client made, so they win over the shell and .env for aider
 * and the commands it runs, and nothing else. Both names: httpx reads urllib's getproxies(), where a
 * lower-case no_proxy that is set beats NO_PROXY. Sources: https://github.com/Aider-AI/aider
 * aider/main.py (main: load_dotenv_files, `args.set_env` into os.environ, then check_and_load_imports
 * and models.Model) and aider/args.py (`--set-env`, append); https://aider.chat/docs/config/aider_conf.html
 * (set-env as a YAML list); BerriAI/litellm litellm/llms/openai/openai.py and common_utils.py (the
 * httpx.Client is made with the first OpenAI client, at the first request); encode/httpx
 * httpx/_utils.py (get_environment_proxies). Limits: configargparse drops a config key already given
 * (bw2/ConfigArgParse configargparse.py), so a `set-env` in the project's .aider.conf.yml,
 * `--set-env` or AIDER_SET_ENV replaces this list; `--no-verify-ssl` makes litellm's httpx client
 * before set-env is applied, so it still uses the proxy. A ~/.env would act earlier, but other
 * programs read it too.
 */
const SET_ENV = 'set-env';

function documentOf(text: string | null) {
  return yamlMappingDocument(text, FILE_NAME);
}

/** The text with the top-level option `key` set to `value` (a list in flow style, on one line), every other byte kept. */
function setOption(text: string, key: string, value: string | readonly unknown[]): string {
  const document = documentOf(text);
  const options = document.contents;
  const scalar = stringify(value, { collectionStyle: 'flow', flowCollectionPadding: false, lineWidth: 0 }).trimEnd();
  // A flow mapping (`{a: 1}`) has no line to append to; the parser's printer writes that rare file.
  if (options !== null && (!isMap(options) || options.flow)) {
    document.set(key, value);
    return document.toString();
  }
  const pair = options?.items.find((item) => isScalar(item.key) && item.key.value === key);
  const range = (pair?.value as { range?: [number, number, number] } | null | undefined)?.range;
  if (isScalar(pair?.value) && range) {
    // `key:` with nothing after it has an empty range just past the colon.
    return withScalarReplaced(text, pair.value, `${range[0] === range[1] ? ' ' : ''}${scalar}`);
  }
  if (range) return `${text.slice(0, range[0])}${scalar}${text.slice(range[1])}`;
  if (pair) {
    document.set(key, value);
    return document.toString();
  }
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  // Before a `...` document end marker, if any, where the mapping itself ends.
  const at = options?.range[2] ?? text.length;
  const before = text.slice(0, at);
  const lineStart = before === '' || before.endsWith('\n') ? '' : eol;
  return `${before}${lineStart}${key}: ${scalar}${eol}${text.slice(at)}`;
}

function values(files: ToolFiles): Record<string, unknown> {
  return (documentOf(files[CONFIG] ?? null).toJS() as Record<string, unknown> | null) ?? {};
}

/**
 * `set-env` as aider reads it: one entry or a list of them (configargparse passes each as
 * `--set-env`); null for any other shape, which holds no entry aider sets.
 */
function setEnvList(config: Record<string, unknown>): unknown[] | null {
  const setEnv = config[SET_ENV];
  if (setEnv === undefined || setEnv === null) return [];
  if (typeof setEnv === 'string') return [setEnv];
  return Array.isArray(setEnv) ? setEnv : null;
}

/** Each entry's variable as aider sets it: split at the first `=`, both sides trimmed. */
function setEnvEntries(config: Record<string, unknown>): { index: number; name: string; value: string }[] {
  return (setEnvList(config) ?? []).flatMap((entry, index) => {
    if (typeof entry !== 'string' || !entry.includes('=')) return [];
    const at = entry.indexOf('=');
    return [{ index, name: entry.slice(0, at).trim(), value: entry.slice(at + 1).trim() }];
  });
}

/** aider applies the entries in order: the last of a name is the one it runs with. */
function lastEntry(config: Record<string, unknown>, name: string) {
  return setEnvEntries(config).findLast((entry) => entry.name === name);
}

/** The text with NO_PROXY and no_proxy entries naming 127.0.0.1 when `env` sets a proxy (noProxyForTool's rule and merge). */
function withProxyBypass(text: string, env: NodeJS.ProcessEnv): string {
  const config = values({ [CONFIG]: text });
  const list = setEnvList(config);
  const written = NO_PROXY_WRITTEN.flatMap((name) => {
    const own = lastEntry(config, name);
    const noProxy = noProxyForTool(name, own?.value, env);
    return noProxy === null ? [] : [{ index: own?.index, entry: `${name}=${noProxy}` }];
  });
  if (written.length === 0) return text;
  // Refused only when an entry is to be written: a file aider may not read is not Airlock's to judge otherwise.
  if (list === null) {
    throw new ConnectFileError(
      `${FILE_NAME}: "${SET_ENV}" is not a NAME=value entry or a list of them, where Airlock adds NO_PROXY: fix or move the file, then connect again`,
    );
  }
  const setEnv = config[SET_ENV];
  if (typeof setEnv === 'string' && setEnv.trim().includes('\n')) {
    // Likely meant as one entry a line (`set-env: |`), but aider sets only the first name, to all the rest.
    // Only a variable's name is said: the refusal reaches the window, and a line may be a key.
    const name = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(setEnv)?.[1];
    const effect = name === undefined ? 'one variable at most' : `${name} set to everything after its "="`;
    throw new ConnectFileError(
      `${FILE_NAME}: "${SET_ENV}" is one text of several lines, which aider reads as a single entry (${effect}), where Airlock adds NO_PROXY: write each NAME=value as an item of a list ("${SET_ENV}:" then one "  - NAME=value" line each), then connect again`,
    );
  }
  if (!Array.isArray(setEnv)) {
    // Absent, empty or one string: the whole list as one value, written where the option is or as a line after the last.
    // A one-line block scalar (`set-env: >-`) holds its entry with line breaks around it, which aider strips.
    const updated = list.map((entry) => (typeof entry === 'string' ? entry.trim() : entry));
    for (const { index, entry } of written) updated[index ?? updated.length] = entry;
    return setOption(text, SET_ENV, updated);
  }
  let edited = text;
  for (const { index, entry } of written) {
    edited =
      index === undefined ? appendYamlItem(edited, FILE_NAME, [SET_ENV], entry) : setYamlValue(edited, FILE_NAME, [SET_ENV, index], entry);
  }
  return edited;
}

export const aiderAdapter: ToolAdapter = {
  id: 'aider',
  title: 'aider',
  paths({ homeDir }) {
    return { [CONFIG]: path.join(homeDir, '.aider.conf.yml') };
  },
  connect(files, settings) {
    let text = files[CONFIG] ?? '';
    text = setOption(text, API_BASE, openAiBase(settings.proxyUrl));
    text = setOption(text, API_KEY, settings.token);
    if (settings.model) text = setOption(text, 'model', `openai/${settings.model}`);
    return { [CONFIG]: withProxyBypass(text, settings.env ?? {}) };
  },
  airlockToken(files, proxyUrl) {
    const config = values(files);
    return isAirlockUrl(config[API_BASE], proxyUrl) ? plainKey(config[API_KEY]) : null;
  },
  model(files) {
    // `openai/<id>` sends <id> to the OpenAI-compatible endpoint; without `model` aider picks its own default.
    const model = modelId(values(files).model);
    return model?.startsWith('openai/') ? modelId(model.slice('openai/'.length)) : model;
  },
  gateway(files, proxyUrl) {
    const config = values(files);
    const baseUrl = config[API_BASE];
    const key = plainKey(config[API_KEY]);
    if (typeof baseUrl !== 'string' || !key || isAirlockUrl(baseUrl, proxyUrl)) return null;
    return { baseUrl, key, location: API_KEY };
  },
  secretValues(files) {
    // A set-env entry's name says whether its value is a secret (`AZURE_API_KEY=…`), as a key's would.
    const config = values(files);
    const setEnv = Object.fromEntries(setEnvEntries(config).map(({ name, value }) => [name, value]));
    return [...secretsInTree(config), ...secretsInTree(setEnv)];
  },
  proxyBypass(files) {
    const config = values(files);
    return NO_PROXY_WRITTEN.flatMap((name) => {
      const entry = lastEntry(config, name);
      return entry ? [`${SET_ENV} ${name}=${entry.value}`] : [];
    });
  },
};
