import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiErrorBody } from '../../../../proxy/contracts/controlApi.ts';
import { startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

let harness: ControlHarness;
const send = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });
const configText = (): string => readFileSync(path.join(harness.dataDir, 'airlock.json'), 'utf8');

async function refusal(pathAndQuery: string, init: RequestInit): Promise<{ status: number; text: string; message: string }> {
  const response = await harness.api(pathAndQuery, init);
  const text = await response.text();
  return { status: response.status, text, message: (JSON.parse(text) as ApiErrorBody).error.message };
}

beforeAll(async () => {
  harness = await startControlHarness();
  await harness.json('/profiles', send('POST', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl }));
});
afterAll(async () => {
  await harness?.close();
});

describe("the window's key field", () => {
  const tenKilobytes = `sk-${'a1B2'.repeat(2500)}`;
  it.each([
    ['PUT', '/profiles/main/key', { key: tenKilobytes }],
    ['POST', '/profiles/main/keys', { key: tenKilobytes, label: 'spare' }],
  ])('%s %s refuses a 10 KB key with the length taken, saving nothing', async (method, route, body) => {
    const refused = await refusal(route, send(method, body));
    expect(refused.status).toBe(400);
    expect(refused.message).toBe(
      'The key is 10003 characters long, and a gateway key is at most 4096: paste only the key from the gateway console.',
    );
    expect(harness.keys.keyStatus('main').set).toBe(false);
    expect(configText()).not.toContain('spare');
  });
});

describe("the window's model id fields", () => {
  it.each([
    ['PUT', '/profiles/main', { modelAliases: { fast: SENTINEL_KEY } }],
    ['PUT', '/profiles/main', { modelRoutes: [{ pattern: 'gpt-*', target: SENTINEL_KEY }] }],
    ['PUT', '/profiles/main', { fallbacks: [{ model: SENTINEL_KEY }] }],
    ['PUT', '/profiles/main/prices', { prices: [{ model: SENTINEL_KEY, inputPer1M: 1 }] }],
    ['POST', '/connect/aider/apply', { model: SENTINEL_KEY }],
  ])('%s %s refuses a gateway key as a model id, unrepeated and unsaved (%#)', async (method, route, body) => {
    const refused = await refusal(route, send(method, body));
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.message).toContain('the model id looks like a gateway key');
    expect(findSentinel(refused.text)).toBeNull();
    expect(findSentinel(configText())).toBeNull();
  });

  it.each([
    [
      'PUT',
      '/profiles/main',
      { modelAliases: { 'fast\u2028': 'gpt-4o' } },
      'modelAliases: a model id',
      'U+2028 (a line separator) at character 5',
    ],
    [
      'PUT',
      '/profiles/main/prices',
      { prices: [{ model: 'gpt\u2029x' }] },
      'prices: a model id',
      'U+2029 (a paragraph separator) at character 4',
    ],
    ['PUT', '/profiles/main', { name: 'Main\u001b[2J' }, 'the name', 'U+001B (an escape character) at character 5'],
    ['POST', '/connect/aider/apply', { model: 'gpt\u2028x' }, 'model: a model id', 'U+2028 (a line separator) at character 4'],
  ])('%s %s refuses a line separator or control character, naming it (%#)', async (method, route, body, what, named) => {
    const refused = await refusal(route, send(method, body));
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.message).toContain(what);
    expect(refused.message).toContain(named);
    expect(configText()).not.toMatch(/\\u20(28|29)|\\u001b/);
  });
});
