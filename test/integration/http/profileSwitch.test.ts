import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientAuthenticator } from '../../../proxy/http/clientAuthenticator.ts';
import { generateToken, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import { createTargetResolver } from '../../../proxy/app/targetResolver.ts';
import { addClientToken, addProfile, setActiveProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore, type ConfigStore } from '../../../proxy/app/profiles/configStore.ts';
import { KeyCache } from '../../../proxy/app/secrets/keyCache.ts';
import { startServer, type ProxyHandle } from '../../../proxy/http/startServer.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { chatBody, rawRequest, sseData } from '../../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

const KEY_A = SENTINEL_KEY;
const KEY_B = 'sk-airlock-second-profile-key-000000000000000b';

let dataDir: string;
let gatewayA: GatewaySimulator;
let gatewayB: GatewaySimulator;
/** The proxy's view of the file: watched, like the app's and `airlock serve`'s. */
let proxyConfig: ConfigStore;
/** Another process's view (the CLI or the window) that makes the switch. */
let cliConfig: ConfigStore;
let proxy: ProxyHandle;
let followingToken: string;
let pinnedToken: string;

beforeAll(async () => {
  // A's chunks are spaced so its streams are still in flight while the profile switches.
  gatewayA = await startGatewaySimulator({ validKeys: [KEY_A], streamChunkCount: 6, streamChunkIntervalMs: 100 });
  gatewayB = await startGatewaySimulator({ validKeys: [KEY_B] });
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-switch-'));
  cliConfig = openConfigStore(dataDir);
  followingToken = generateToken();
  pinnedToken = generateToken();
  await cliConfig.update((current) => {
    let next = addProfile(current, { id: 'a', name: 'A', baseUrl: gatewayA.baseUrl });
    next = addProfile(next, { id: 'b', name: 'B', baseUrl: gatewayB.baseUrl });
    next = addClientToken(next, tokenRecord('cursor', followingToken, null, Date.now()));
    return addClientToken(next, tokenRecord('claude', pinnedToken, 'a', Date.now()));
  });
  proxyConfig = openConfigStore(dataDir, { watch: true, pollIntervalMs: 100 });
  const keys = new KeyCache(memorySecretStore({ a: KEY_A, b: KEY_B }));
  await keys.loadAll(['a', 'b']);
  proxy = await startServer({
    commandHint: PLAIN_HINT,
    port: 0,
    services: { authenticator: createClientAuthenticator(proxyConfig), targets: createTargetResolver(proxyConfig, keys) },
  });
});

afterAll(async () => {
  await proxy?.stop();
  await gatewayA?.close();
  await gatewayB?.close();
  proxyConfig?.close();
  cliConfig?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function chat(token: string, stream: boolean) {
  return rawRequest(`${proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: chatBody({ stream }),
  });
}

async function waitFor(condition: () => boolean): Promise<void> {
  await expect.poll(condition).toBe(true);
}

describe('switching the active profile under load', () => {
  it('later requests go to the new profile with its key; streams in flight finish on the old one', async () => {
    const before = await Promise.all(Array.from({ length: 5 }, () => chat(followingToken, false)));
    expect(before.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    expect(gatewayA.received).toHaveLength(5);

    const inFlight = Array.from({ length: 4 }, () => chat(followingToken, true));
    await waitFor(() => gatewayA.received.length === 9);

    await cliConfig.update((current) => setActiveProfile(current, 'b'));
    await waitFor(() => proxyConfig.snapshot().activeProfileId === 'b');

    const after = await Promise.all(Array.from({ length: 8 }, (_, index) => chat(index % 2 === 0 ? followingToken : pinnedToken, false)));
    expect(after.map((response) => response.status)).toEqual(Array(8).fill(200));

    const streams = await Promise.all(inFlight);
    for (const stream of streams) {
      expect(stream.status).toBe(200);
      const events = sseData(stream.body);
      expect(events.at(-1)).toBe('[DONE]');
      expect(events.some((event) => event.includes('"error"'))).toBe(false);
    }

    // The following token moved to B; the token pinned to A stayed there.
    expect(gatewayB.received).toHaveLength(4);
    expect(gatewayA.received).toHaveLength(13);
    for (const received of [...gatewayA.received, ...gatewayB.received]) expect(received.authOk).toBe(true);
    for (const response of [...before, ...after, ...streams]) expect(findSentinel(JSON.stringify(response))).toBeNull();
  });
});
