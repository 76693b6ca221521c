import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDesktopRuntime } from '../../../electron/desktopRuntime.ts';
import { addClientToken, addProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../proxy/app/profiles/configStore.ts';
import { secretStoreForDataDir } from '../../../proxy/app/secrets/dataDirSecrets.ts';
import { gatewayKeyAccount } from '../../../proxy/contracts/secretStore.ts';
import { generateToken, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { GATEWAY_HOST, startTinyproxy, type Tinyproxy } from '../../support/tinyproxy.ts';

/**
 * The desktop app, started without a shell, has no HTTPS_PROXY: it asks the OS settings through
 * Chromium (`session.resolveProxy`, stood in for here by a function answering in PAC's form).
 */
const clientToken = generateToken();
let gateway: GatewaySimulator;
let proxy: Tinyproxy;
let dataDir: string;
/** The gateway under a name only the network beyond the proxy resolves (test/support/tinyproxy.ts). */
let gatewayUrl: string;

beforeAll(async () => {
  gateway = await startGatewaySimulator({ validKeys: [SENTINEL_KEY] });
  proxy = await startTinyproxy();
  gatewayUrl = gateway.baseUrl.replace('127.0.0.1', GATEWAY_HOST);
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-system-proxy-'));
  const store = openConfigStore(dataDir);
  await store.update((config) => addProfile(config, { id: 'work', name: 'Work', baseUrl: gatewayUrl }, { activate: true }));
  await store.update((config) => addClientToken(config, tokenRecord('tool', clientToken, null, Date.now())));
  store.close();
});
afterAll(async () => {
  await proxy.stop();
  await gateway.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the desktop app behind the proxy the OS settings name', () => {
  it("asks the OS settings for each gateway's proxy and sends through it", async () => {
    const keychain = memorySecretStore({});
    await secretStoreForDataDir(keychain, dataDir, { env: process.env, platform: process.platform, homedir: homedir() }).set(
      gatewayKeyAccount('work'),
      SENTINEL_KEY,
    );
    const asked: string[] = [];
    const runtime = await startDesktopRuntime({
      dataDir,
      port: 0,
      keychain,
      resolveProxy: async (url) => {
        asked.push(url);
        return `SOCKS5 127.0.0.1:1; PROXY 127.0.0.1:${proxy.port}; DIRECT`;
      },
    });
    try {
      // The answer came at once: the proxy is set before the request's turn comes.
      await expect.poll(() => asked).toEqual([gatewayUrl]);
      const answer = await rawRequest(`${runtime.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
        body: chatBody(),
      });

      expect(answer.status).toBe(200);
      expect(proxy.connects()).toEqual([new URL(gatewayUrl).host]);
    } finally {
      await runtime.stop(0);
    }
  });
});
