import path from 'node:path';
import { isMap, isScalar, stringify } from 'yaml';
import { isAirlockUrl, modelId, openAiBase, plainKey, secretsInTree, type ToolAdapter, type ToolFiles } from '../toolAdapter.ts';
import { yamlMappingDocument } from '../yamlFile.ts';

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
const API_BASE = 'openai-api-base';
const API_KEY = 'openai-api-key';

function documentOf(text: string | null) {
  return yamlMappingDocument(text, '.aider.conf.yml');
}

/** The text with the top-level option `key` set to `value`, every other byte kept. */
function setOption(text: string, key: string, value: string): string {
  const document = documentOf(text);
  const options = document.contents;
  const scalar = stringify(value).trimEnd();
  // A flow mapping (`{a: 1}`) has no line to append to; the parser's printer writes that rare file.
  if (options !== null && (!isMap(options) || options.flow)) {
    document.set(key, value);
    return document.toString();
  }
  const pair = options?.items.find((item) => isScalar(item.key) && item.key.value === key);
  const range = (pair?.value as { range?: [number, number, number] } | null | undefined)?.range;
  if (range) {
    const [start, end] = range;
    // `key:` with nothing after it has an empty range just past the colon.
    return `${text.slice(0, start)}${start === end ? ' ' : ''}${scalar}${text.slice(end)}`;
  }
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
    return { [CONFIG]: text };
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
    return secretsInTree(values(files));
  },
};
