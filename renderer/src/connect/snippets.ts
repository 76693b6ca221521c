import { shellQuote } from '../common/shell.ts';

export type ConnectClientId =
  | 'claude-code'
  | 'codex'
  | 'cline'
  | 'continue'
  | 'roo-code'
  | 'aider'
  | 'openai-python'
  | 'openai-node'
  | 'anthropic-sdk'
  | 'curl';

export interface SnippetBlock {
  /** Where it goes: "Shell", "~/.codex/config.toml", "hello.mjs"… */
  label: string;
  code: string;
}

export interface ConnectSnippet {
  id: ConnectClientId;
  title: string;
  /** The base URL in the form this client expects (with or without /v1). */
  baseUrl: string;
  blocks: SnippetBlock[];
  note: string;
}

export interface SnippetInput {
  /** e.g. http://127.0.0.1:8642 (no trailing slash). */
  proxyUrl: string;
  /** A client token, or null to show a placeholder. */
  token: string | null;
  /** A model id from the gateway's list, or null to show a placeholder. */
  model: string | null;
}

export const TOKEN_PLACEHOLDER = '<your Airlock client token>';
export const MODEL_PLACEHOLDER = '<model id from the Models page>';

/** Setup for every supported client. OpenAI-style clients want `/v1`; Anthropic-style ones add it themselves. */
export function buildSnippets(input: SnippetInput): ConnectSnippet[] {
  const root = input.proxyUrl.replace(/\/+$/, '');
  const v1 = `${root}/v1`;
  const token = input.token ?? TOKEN_PLACEHOLDER;
  const model = input.model ?? MODEL_PLACEHOLDER;
  const js = (value: string) => JSON.stringify(value);
  const sh = shellQuote;

  return [
    {
      id: 'claude-code',
      title: 'Claude Code',
      baseUrl: root,
      note: "ANTHROPIC_AUTH_TOKEN makes Claude Code send the token as Bearer. Map its claude-* model names to gateway ids with the profile's routes, or pin one model here.",
      blocks: [
        {
          label: 'Shell',
          code: [
            `export ANTHROPIC_BASE_URL=${sh(root)}`,
            `export ANTHROPIC_AUTH_TOKEN=${sh(token)}`,
            `export ANTHROPIC_MODEL=${sh(model)}`,
            'claude',
          ].join('\n'),
        },
      ],
    },
    {
      id: 'codex',
      title: 'Codex CLI',
      baseUrl: v1,
      note: 'Codex speaks the Responses API; Airlock translates it when the gateway only has Chat Completions.',
      blocks: [
        {
          label: '~/.codex/config.toml',
          code: [
            `model = ${js(model)}`,
            'model_provider = "airlock"',
            '',
            '[model_providers.airlock]',
            'name = "Airlock"',
            `base_url = ${js(v1)}`,
            'env_key = "AIRLOCK_TOKEN"',
            'wire_api = "responses"',
          ].join('\n'),
        },
        { label: 'Shell', code: [`export AIRLOCK_TOKEN=${sh(token)}`, 'codex'].join('\n') },
      ],
    },
    {
      id: 'cline',
      title: 'Cline',
      baseUrl: v1,
      // Cline keeps its provider settings in VS Code's global state and its key in VS Code's secret
      // storage (cline/cline#3056), which another program cannot write safely while VS Code runs; its
      // Plan and Act modes can each have a provider (OmniRoute#4280 lists act/planMode keys).
      // Cline's CLI keeps them in a file of its own instead, which Connect writes (proxy/app/connect/tools/cline.ts).
      note: "Cline keeps these in VS Code's own storage, which Airlock cannot write safely, so set them by hand: VS Code side bar → Cline → gear. If Plan and Act modes use different models, set both. Cline's CLI is set up in one click above (Cline CLI).",
      blocks: [
        {
          label: 'Settings',
          code: ['API Provider: OpenAI Compatible', `Base URL: ${v1}`, `API Key: ${token}`, `Model ID: ${model}`].join('\n'),
        },
      ],
    },
    {
      id: 'continue',
      title: 'Continue',
      baseUrl: v1,
      note: "Set up in one click above, or add the model to Continue's config file by hand and pick it in the model menu.",
      blocks: [
        {
          label: '~/.continue/config.yaml',
          // name, version and schema are required of a config.yaml (https://docs.continue.dev/reference).
          code: [
            'name: Local Config',
            'version: 1.0.0',
            'schema: v1',
            'models:',
            '  - name: Airlock',
            '    provider: openai',
            `    model: ${js(model)}`,
            `    apiBase: ${js(v1)}`,
            `    apiKey: ${js(token)}`,
          ].join('\n'),
        },
      ],
    },
    {
      id: 'roo-code',
      title: 'Roo Code',
      baseUrl: v1,
      note: "In Roo Code's settings → Providers.",
      blocks: [
        {
          label: 'Settings',
          code: ['API Provider: OpenAI Compatible', `Base URL: ${v1}`, `API Key: ${token}`, `Model: ${model}`].join('\n'),
        },
      ],
    },
    {
      id: 'aider',
      title: 'aider',
      baseUrl: v1,
      note: 'The openai/ prefix tells aider to use the OpenAI-compatible API at OPENAI_API_BASE.',
      blocks: [
        {
          label: 'Shell',
          code: [`export OPENAI_API_BASE=${sh(v1)}`, `export OPENAI_API_KEY=${sh(token)}`, `aider --model ${sh(`openai/${model}`)}`].join(
            '\n',
          ),
        },
      ],
    },
    {
      id: 'openai-python',
      title: 'OpenAI SDK (Python)',
      baseUrl: v1,
      note: 'pip install openai, then run the file.',
      blocks: [
        {
          label: 'hello.py',
          code: [
            'from openai import OpenAI',
            '',
            `client = OpenAI(base_url=${js(v1)}, api_key=${js(token)})`,
            'stream = client.chat.completions.create(',
            `    model=${js(model)},`,
            '    messages=[{"role": "user", "content": "Say hello"}],',
            '    stream=True,',
            ')',
            'for chunk in stream:',
            '    if chunk.choices:',
            '        print(chunk.choices[0].delta.content or "", end="", flush=True)',
            'print()',
          ].join('\n'),
        },
      ],
    },
    {
      id: 'openai-node',
      title: 'OpenAI SDK (JavaScript)',
      baseUrl: v1,
      note: 'npm install openai, then run: node hello.mjs',
      blocks: [
        {
          label: 'hello.mjs',
          code: [
            "import OpenAI from 'openai';",
            '',
            `const client = new OpenAI({ baseURL: ${js(v1)}, apiKey: ${js(token)} });`,
            'const stream = await client.chat.completions.create({',
            `  model: ${js(model)},`,
            "  messages: [{ role: 'user', content: 'Say hello' }],",
            '  stream: true,',
            '});',
            "for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');",
            "process.stdout.write('\\n');",
          ].join('\n'),
        },
      ],
    },
    {
      id: 'anthropic-sdk',
      title: 'Anthropic SDK (JavaScript)',
      baseUrl: root,
      note: 'npm install @anthropic-ai/sdk, then run: node hello-anthropic.mjs. The SDK adds /v1 itself.',
      blocks: [
        {
          label: 'hello-anthropic.mjs',
          code: [
            "import Anthropic from '@anthropic-ai/sdk';",
            '',
            `const client = new Anthropic({ baseURL: ${js(root)}, apiKey: ${js(token)} });`,
            'const message = await client.messages.create({',
            `  model: ${js(model)},`,
            '  max_tokens: 256,',
            "  messages: [{ role: 'user', content: 'Say hello' }],",
            '});',
            "console.log(message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));",
          ].join('\n'),
        },
      ],
    },
    {
      id: 'curl',
      title: 'curl',
      baseUrl: v1,
      note: "-N turns off curl's output buffering so the stream shows as it arrives.",
      blocks: [
        {
          label: 'Shell',
          code: [
            `curl -N ${sh(`${v1}/chat/completions`)} \\`,
            `  -H ${sh(`Authorization: Bearer ${token}`)} \\`,
            `  -H 'Content-Type: application/json' \\`,
            `  -d ${sh(JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'Say hello' }] }))}`,
          ].join('\n'),
        },
      ],
    },
  ];
}

/** A token name for a client that does not clash with existing ones: `aider`, then `aider-2`, … */
export function uniqueTokenName(base: string, existing: readonly string[]): string {
  const taken = new Set(existing);
  if (!taken.has(base)) return base;
  for (let suffix = 2; ; suffix += 1) {
    const candidate = `${base}-${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
