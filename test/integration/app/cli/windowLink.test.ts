import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../../../../proxy/http/clientTokens.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { startupLines } from '../../../../proxy/app/cli/serve.ts';
import { CONTROL_API_PREFIX, CONTROL_SESSION_COOKIE } from '../../../../proxy/contracts/controlApi.ts';
import { gatewayKeyAccount } from '../../../../proxy/contracts/secretStore.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { seedDataDir } from '../../../support/dataDirSeed.ts';
import { memorySecretStore, unavailableSecretStore } from '../../../support/memorySecretStore.ts';

let simulator: GatewaySimulator;
let airlock: Airlock;
let dataDir: string;
const secrets = memorySecretStore({ [gatewayKeyAccount('main')]: SENTINEL_KEY });
const clientToken = generateToken();

beforeAll(async () => {
  simulator = await startGatewaySimulator({ recordBodies: false });
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-window-link-'));
  await seedDataDir(dataDir, simulator.baseUrl, { looper: clientToken });
  airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets });
});
afterAll(async () => {
  await airlock.stop();
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** What the window's sign-in page does with a link's code: trade it for a session. */
function signInWith(link: string) {
  const code = new URL(link).hash.replace(/^#code=/, '');
  return rawRequest(`${airlock.proxy.url}${CONTROL_API_PREFIX}/session`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ code }),
  });
}

describe('airlock window', () => {
  it('prints a fresh sign-in link once the one serve printed was used or expired, without a restart', async () => {
    expect((await signInWith(airlock.control.createLoginUrl())).status).toBe(200);

    const run = await runAirlock(dataDir, secrets, ['window', '--port', String(airlock.proxy.port)]);
    expect(run.exitCode).toBe(0);
    const link = run.stdout.trim();
    expect(link.startsWith(`${airlock.proxy.url}/_airlock/login#code=`)).toBe(true);
    const signedIn = await signInWith(link);
    expect(signedIn.status).toBe(200);
    expect(String(signedIn.headers['set-cookie'])).toMatch(new RegExp(`^${CONTROL_SESSION_COOKIE}=`));
    // Like the one serve printed, it works once.
    expect((await signInWith(link)).status).toBe(401);
  });

  it('is no way in for a client token: only the control token mints links', async () => {
    const minted = await rawRequest(`${airlock.proxy.url}${CONTROL_API_PREFIX}/login-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${clientToken}` },
    });
    expect(minted.status).toBe(401);
    expect(minted.body).not.toContain('#code=');
  });

  it("is no way to stay signed in for a browser's session: its cookie mints no link", async () => {
    const signedIn = await signInWith(airlock.control.createLoginUrl());
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0] ?? '';
    expect(cookie).toMatch(new RegExp(`^${CONTROL_SESSION_COOKIE}=`));
    // The cookie opens the window's API (it is a session), but a link would trade for a fresh session past its end.
    const status = await rawRequest(`${airlock.proxy.url}${CONTROL_API_PREFIX}/status`, { headers: { cookie } });
    expect(status.status).toBe(200);
    const minted = await rawRequest(`${airlock.proxy.url}${CONTROL_API_PREFIX}/login-links`, { method: 'POST', headers: { cookie } });
    expect(minted.status).toBe(401);
    expect(minted.body).not.toContain('#code=');
  });

  it("serve's start lines send the user to `airlock window` for another link only where it can reach this run", async () => {
    const windowLine = (running: Airlock) =>
      startupLines(running, { dataDirArgument: null }).find((line) => line.includes('/_airlock/login#code=')) ?? '';
    expect(windowLine(airlock)).toContain('`npx airlock window` prints another');

    const noKeychainDir = mkdtempSync(path.join(tmpdir(), 'airlock-window-link-nokeychain-'));
    await seedDataDir(noKeychainDir, simulator.baseUrl, {});
    const noKeychain = await startAirlock({ dataDir: noKeychainDir, port: 0, env: {}, secrets: unavailableSecretStore() });
    try {
      // `airlock window` reads the control token from the keychain: without one, only this run holds it.
      expect(windowLine(noKeychain)).not.toContain('`npx airlock window` prints another');
      expect(windowLine(noKeychain)).toContain('restart `npx airlock serve` for another');
    } finally {
      await noKeychain.stop();
      rmSync(noKeychainDir, { recursive: true, force: true });
    }
  });

  it('without a keychain, says the way that is left: restart serve', async () => {
    const run = await runAirlock(dataDir, unavailableSecretStore(), ['window', '--port', String(airlock.proxy.port)]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`restart \`npx airlock serve --data-dir ${dataDir}\`, which prints a new link`);
  });
});
