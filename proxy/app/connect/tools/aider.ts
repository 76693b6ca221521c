import path from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { ConnectFileError, isAirlockUrl, openAiBase, plainKey, secretsInTree, type ToolAdapter, type ToolFiles } from '../toolAdapter.ts';

/**
 * aider reads `.aider.conf.yml` from the home directory (then the git root and the current
 * directory, later ones winning); `openai-api-base` and `openai-api-key` set its OpenAI-compatible
 * endpoint and key, and a model named `openai/<id>` uses that endpoint. Edited with the `yaml`
 * package's document model, which keeps comments (aider's sample file is mostly comments).
 * Sources: https://aider.chat/docs/config/aider_conf.html, https://aider.chat/docs/config/api-keys.html,
 * https://aider.chat/docs/llms/openai-compat.html.
 */
const CONFIG = 'config';
const API_BASE = 'openai-api-base';
const API_KEY = 'openai-api-key';

function documentOf(text: string | null) {
  const document = parseDocument(text ?? '');
  const problem = document.errors[0];
  if (problem)
    throw new ConnectFileError(`.aider.conf.yml is not valid YAML (${problem.message}): fix or move the file, then connect again`);
  if (document.contents !== null && !isMap(document.contents)) {
    throw new ConnectFileError('.aider.conf.yml does not hold a YAML mapping of options: fix or move the file, then connect again');
  }
  return document;
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
    const document = documentOf(files[CONFIG] ?? null);
    document.set(API_BASE, openAiBase(settings.proxyUrl));
    document.set(API_KEY, settings.token);
    if (settings.model) document.set('model', `openai/${settings.model}`);
    return { [CONFIG]: document.toString() };
  },
  airlockToken(files, proxyUrl) {
    const config = values(files);
    return isAirlockUrl(config[API_BASE], proxyUrl) ? plainKey(config[API_KEY]) : null;
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
