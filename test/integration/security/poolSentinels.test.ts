import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestDetail } from '../../../proxy/contracts/requests.ts';
import { buildSupportInfo } from '../../../renderer/src/detail/copyText.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { chatBody, rawRequest } from '../../support/http.ts';
import { startPooledAirlock, type PooledAirlock } from '../../support/pooledAirlock.ts';
import { findSentinel, findSentinelInStream, SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * Both keys of a pool stay out of everything a client, the window or a file gets: answers sent
 * with either key, a gateway echoing whichever key it got, a prompt holding both, a key pasted as
 * a label by mistake, and a request that moved from one key to the other.
 */
let simulator: GatewaySimulator;
let pooled: PooledAirlock;
const seen: Array<{ where: string; text: string }> = [];

beforeAll(async () => {
  simulator = await startGatewaySimulator({ validKeys: [SENTINEL_KEY, SECOND_SENTINEL_KEY] });
  pooled = await startPooledAirlock({
    baseUrl: simulator.baseUrl,
    keys: [
      { id: 'main', label: 'first', secret: SENTINEL_KEY },
      { id: 'b2', label: 'spare', secret: SECOND_SENTINEL_KEY },
    ],
  });
});
afterAll(async () => {
  await pooled.stop();
  await simulator.close();
});

const leaks = (text: string): boolean =>
  findSentinel(text) !== null ||
  findSentinel(text, SECOND_SENTINEL_KEY) !== null ||
  findSentinelInStream(text) !== null ||
  findSentinelInStream(text, SECOND_SENTINEL_KEY) !== null;

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

async function call(pathName: string, body: string): Promise<string> {
  const response = await pooled.call(pathName, body);
  seen.push({ where: `client ${pathName} headers`, text: JSON.stringify(response.headers) });
  seen.push({ where: `client ${pathName} body`, text: response.body });
  return String(response.headers['x-airlock-request-id']);
}

describe('every key of a pool is masked', () => {
  it('in answers, errors, the log, the window and the files', async () => {
    const pasted = `keys: ${SENTINEL_KEY} ${encodeURIComponent(SECOND_SENTINEL_KEY)} ${Buffer.from(SECOND_SENTINEL_KEY).toString('base64')}`;
    await call('/v1/chat/completions', chatBody({ messages: [{ role: 'user', content: pasted }] }));
    await call('/v1/chat/completions', chatBody({ stream: true, messages: [{ role: 'user', content: pasted }] }));
    // The gateway echoes whichever key it got: the first request goes with one key, the next with the other.
    simulator.script({ kind: 'echoKey' }, { kind: 'echoKey', deltaChars: [2, 3] }, { kind: 'echoKey' });
    await call('/v1/chat/completions', chatBody());
    await call('/v1/chat/completions', chatBody({ stream: true }));
    await call('/v1/messages', JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 16, messages: [{ role: 'user', content: pasted }] }));
    // A 429 on one key moves the request to the other, which echoes it: the answer masks both.
    simulator.script({ kind: 'status', status: 429, retryAfterS: 5 }, { kind: 'echoKey' });
    await call('/v1/chat/completions', chatBody());
    // The gateway's error quoting the key it got.
    simulator.script({ kind: 'status', status: 400, body: { error: { message: `bad key ${SECOND_SENTINEL_KEY}`, type: 'x', code: 'x' } } });
    await call('/v1/chat/completions', chatBody());
    await pooled.airlock.log.flush();

    const control = { authorization: `Bearer ${pooled.airlock.controlToken}` };
    const url = (endpoint: string): string => `${pooled.airlock.proxy.url}/_airlock/api/${endpoint}`;
    const page = (await rawRequest(url('requests?limit=100'), { headers: control })).body;
    seen.push({ where: 'request list', text: page });
    const items = (JSON.parse(page) as { items: { id: string }[] }).items;
    expect(items.length).toBe(7);
    let pooledAttempts = 0;
    for (const item of items) {
      const detail = (await rawRequest(url(`requests/${item.id}`), { headers: control })).body;
      seen.push({ where: `detail ${item.id}`, text: detail });
      const parsed = JSON.parse(detail) as RequestDetail;
      pooledAttempts += parsed.gatewayKeys?.length ?? 0;
      seen.push({ where: `support info ${item.id}`, text: buildSupportInfo(parsed) });
      for (const part of ['request', 'response', 'stream-events']) {
        seen.push({
          where: `${part} ${item.id}`,
          text: (await rawRequest(url(`requests/${item.id}/body/${part}`), { headers: control })).body,
        });
      }
    }
    // Every attempt's key is named (the request that moved after its 429 names two).
    expect(pooledAttempts).toBe(8);
    // A key pasted into the label field as well is refused, and not written anywhere.
    const labelled = await rawRequest(url('profiles/pool/keys'), {
      method: 'POST',
      headers: { ...control, 'content-type': 'application/json' },
      body: JSON.stringify({
        key: SENTINEL_KEY.replace('SENTINEL', 'SENTINEX'),
        label: `mine ${SENTINEL_KEY.replace('SENTINEL', 'SENTINEX')}`,
      }),
    });
    expect(labelled.status).toBe(400);
    expect(labelled.body).toContain('the label holds a gateway key');
    const relabelled = await rawRequest(url('profiles/pool/keys/b2'), {
      method: 'PUT',
      headers: { ...control, 'content-type': 'application/json' },
      body: JSON.stringify({ label: `spare ${encodeURIComponent(SECOND_SENTINEL_KEY)}` }),
    });
    expect(relabelled.status).toBe(400);
    for (const endpoint of ['status', 'profiles', 'spend'])
      seen.push({ where: endpoint, text: (await rawRequest(url(endpoint), { headers: control })).body });

    expect(seen.filter(({ text }) => leaks(text)).map(({ where }) => where)).toEqual([]);
    expect(seen.some(({ text }) => text.includes('[redacted]'))).toBe(true);
    const leakingFiles = filesUnder(pooled.dataDir).filter((file) => leaks(readFileSync(file).toString('latin1')));
    expect(leakingFiles.map((file) => path.relative(pooled.dataDir, file))).toEqual([]);
    // Both keys did reach the gateway, in its Authorization header.
    const lastFours = new Set(simulator.received.map((received) => String(received.headers.authorization).slice(-4)));
    expect(lastFours).toEqual(new Set([SENTINEL_KEY.slice(-4), SECOND_SENTINEL_KEY.slice(-4)]));
  });
});
