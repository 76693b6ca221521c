import { expect } from 'vitest';
import type { TokenSecretResponse } from '../../../../proxy/contracts/clientTokens.ts';
import { chatBody, JSON_HEADERS, rawRequest, type RawResponse } from '../../../support/http.ts';
import type { ControlHarness } from '../../../support/controlHarness.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

const post = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body) });

/** A profile on the simulator with the sentinel key, made active, and a client token; returns the token. */
export async function setUpProfile(harness: ControlHarness, tokenName: string): Promise<string> {
  for (const [path, init] of [
    ['/profiles', post({ id: 'main', name: 'Main', baseUrl: harness.simulator.url })],
    ['/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: SENTINEL_KEY }) }],
    ['/profiles/main/activate', post({})],
  ] as const) {
    const response = await harness.api(path, init);
    expect(response.ok, `${path}: ${await response.clone().text()}`).toBe(true);
  }
  const created = await harness.api('/tokens', post({ name: tokenName }));
  return ((await created.json()) as TokenSecretResponse).token;
}

/** One chat through the proxy as a client would send it. */
export function chat(harness: ControlHarness, token: string, overrides: Record<string, unknown> = {}): Promise<RawResponse> {
  return rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: chatBody(overrides),
  });
}
