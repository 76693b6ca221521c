import { describe, expect, it } from 'vitest';
import {
  buildSnippets,
  MODEL_PLACEHOLDER,
  TOKEN_PLACEHOLDER,
  uniqueTokenName,
  type ConnectClientId,
} from '../../../renderer/src/connect/snippets.ts';

const proxyUrl = 'http://127.0.0.1:8642';
const snippets = buildSnippets({ proxyUrl, token: 'alk_TOKEN', model: 'qwen-plus' });
const byId = (id: ConnectClientId) => {
  const snippet = snippets.find((candidate) => candidate.id === id);
  if (!snippet) throw new Error(`no snippet ${id}`);
  return { ...snippet, code: snippet.blocks.map((block) => block.code).join('\n') };
};

describe('connect snippets', () => {
  it.each<[ConnectClientId, string, string[]]>([
    ['claude-code', proxyUrl, ["ANTHROPIC_BASE_URL='http://127.0.0.1:8642'", "ANTHROPIC_AUTH_TOKEN='alk_TOKEN'"]],
    ['codex', `${proxyUrl}/v1`, ['base_url = "http://127.0.0.1:8642/v1"', 'wire_api = "responses"', "AIRLOCK_TOKEN='alk_TOKEN'"]],
    ['cline', `${proxyUrl}/v1`, ['OpenAI Compatible', 'Base URL: http://127.0.0.1:8642/v1']],
    ['continue', `${proxyUrl}/v1`, ['provider: openai', 'apiBase: "http://127.0.0.1:8642/v1"']],
    ['roo-code', `${proxyUrl}/v1`, ['OpenAI Compatible']],
    ['aider', `${proxyUrl}/v1`, ["OPENAI_API_BASE='http://127.0.0.1:8642/v1'", "--model 'openai/qwen-plus'"]],
    ['openai-python', `${proxyUrl}/v1`, ['OpenAI(base_url="http://127.0.0.1:8642/v1", api_key="alk_TOKEN")']],
    ['openai-node', `${proxyUrl}/v1`, ['baseURL: "http://127.0.0.1:8642/v1"', 'stream: true']],
    ['anthropic-sdk', proxyUrl, ['baseURL: "http://127.0.0.1:8642"']],
    ['curl', `${proxyUrl}/v1`, ["curl -N 'http://127.0.0.1:8642/v1/chat/completions'", "'Authorization: Bearer alk_TOKEN'"]],
  ])('%s uses %s', (id, baseUrl, fragments) => {
    const snippet = byId(id);
    expect(snippet.baseUrl).toBe(baseUrl);
    for (const fragment of fragments) expect(snippet.code).toContain(fragment);
    expect(snippet.code).not.toContain('/v1/v1');
  });

  it('says why Cline is set up by hand, and where, Plan and Act modes included', () => {
    const note = byId('cline').note;
    expect(note).toMatch(/VS Code's own storage/);
    expect(note).toMatch(/by hand/);
    expect(note).toMatch(/Plan and Act/);
  });

  it('gives Continue a config.yaml it can load on its own (name, version, schema)', () => {
    const code = byId('continue').code;
    for (const field of ['name: ', 'version: ', 'schema: v1']) expect(code).toContain(field);
  });

  it('shows placeholders until a token and a model are chosen', () => {
    const placeholders = buildSnippets({ proxyUrl: `${proxyUrl}/`, token: null, model: null });
    for (const snippet of placeholders) {
      const code = snippet.blocks.map((block) => block.code).join('\n');
      expect(code).toContain(TOKEN_PLACEHOLDER);
      expect(code).not.toContain('8642//');
    }
    expect(placeholders.find((snippet) => snippet.id === 'openai-node')?.blocks[0]?.code).toContain(MODEL_PLACEHOLDER);
  });

  it.each([
    ['aider', [], 'aider'],
    ['aider', ['aider'], 'aider-2'],
    ['aider', ['aider', 'aider-2', 'aider-3'], 'aider-4'],
  ])('uniqueTokenName(%s, %j) = %s', (base, existing, expected) => {
    expect(uniqueTokenName(base, existing)).toBe(expected);
  });
});
