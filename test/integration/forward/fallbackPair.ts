import { afterAll, beforeAll } from 'vitest';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import { startGatewaySimulator, type GatewaySimulator, type SimulatorOptions } from '../../simulator/index.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

const BACKUP_KEY = 'sk-airlock-BACKUP-SENTINEL-6e2b9d4f1a8c07e3b5d9a2c4';
export const TOOLS = [{ name: 'shell', description: 'run', input_schema: { type: 'object' } }];
export const SHELL_CALL = { name: 'shell', arguments: '{"command":"ls"}' };

export const send = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });

export interface FallbackPair {
  harness: ControlHarness;
  /** The fallback step's gateway. */
  backup: GatewaySimulator;
  /** A Claude Code request (translated to chat) with the shell tool; its row is logged before it returns. */
  messages: (body: object) => Promise<{ status: number; json: Record<string, unknown> }>;
  /** Makes the backup profile the main one's fallback step. */
  fallBackToBackup: () => Promise<unknown>;
}

/**
 * Two translating profiles for a Claude Code tool loop that a fallback step moves partway: `main` on
 * the harness's simulator, `backup` on a gateway of its own. Started before the file's tests, closed after.
 */
export function startedFallbackPair(options: {
  main: SimulatorOptions;
  backup: SimulatorOptions;
  mainTarget: string;
  backupTarget: string;
}): FallbackPair {
  let token = '';
  const pair = { messages, fallBackToBackup } as FallbackPair;
  beforeAll(async () => {
    pair.harness = await startControlHarness({ simulator: options.main });
    pair.backup = await startGatewaySimulator({ ...options.backup, validKeys: [BACKUP_KEY] });
    const { harness, backup } = pair;
    const profile = (id: string, baseUrl: string, target: string) => ({
      id,
      name: id,
      baseUrl,
      // Translated, so no native probe reaches a gateway ahead of the requests under test.
      protocolModes: { messages: 'translate', responses: 'translate' },
      modelRoutes: [{ pattern: 'claude-*', target }],
      retry: { maxRetries: 0, maxRetryAfterMs: 8000 },
    });
    await harness.json('/profiles', send('POST', profile('main', harness.simulator.baseUrl, options.mainTarget)));
    await harness.json('/profiles/main/key', send('PUT', { key: SENTINEL_KEY }));
    await harness.json('/profiles', send('POST', profile('backup', backup.baseUrl, options.backupTarget)));
    await harness.json('/profiles/backup/key', send('PUT', { key: BACKUP_KEY }));
    await harness.json('/profiles/main/activate', send('POST', {}));
    token = (await harness.json<TokenSecretResponse>('/tokens', send('POST', { name: 'agent' }))).token;
  });
  afterAll(async () => {
    await pair.backup?.close();
    await pair.harness?.close();
  });

  async function messages(body: object): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await rawRequest(`${pair.harness.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 256, tools: TOOLS, ...body }),
    });
    await pair.harness.loggedDetail(response);
    return { status: response.status, json: JSON.parse(response.body) as Record<string, unknown> };
  }

  function fallBackToBackup(): Promise<unknown> {
    return pair.harness.json('/profiles/main', send('PUT', { fallbacks: [{ profileId: 'backup' }] }));
  }
  return pair;
}
