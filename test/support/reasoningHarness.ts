import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startHarness, type Harness } from './proxyHarness.ts';

/** The gateway's one reasoning model: its thinking is "Thinking about: <the last user text>". */
export const REASONING_MODEL = 'deepseek-chat';

/** A harness whose gateway thinks, with Claude Code's and Codex's model names routed to that model. */
export function startReasoningHarness(): Promise<Harness> {
  return startHarness({
    simulator: { modelCapabilities: { [REASONING_MODEL]: { reasoning: true } } },
    profile: {
      modelRoutes: [
        { pattern: 'claude-*', target: REASONING_MODEL },
        { pattern: 'gpt-5*', target: REASONING_MODEL },
      ],
    },
  });
}

/** The Anthropic and OpenAI SDKs pointed at the proxy of the harness `current` gives (started in a beforeAll), with retries off. */
export function sdkClients(current: () => Harness): { anthropic: () => Anthropic; openai: () => OpenAI } {
  return {
    anthropic: () => new Anthropic({ baseURL: current().proxy.url, apiKey: 'alk_client', maxRetries: 0 }),
    openai: () => new OpenAI({ baseURL: `${current().proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 }),
  };
}
