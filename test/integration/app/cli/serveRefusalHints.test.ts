import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addProfile, updateSettings } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { type Airlock, startAirlock } from '../../../../proxy/app/startAirlock.ts';
import { CONTROL_TOKEN_ACCOUNT, gatewayKeyAccount } from '../../../../proxy/contracts/secretStore.ts';
import { CONTROL_API_PREFIX } from '../../../../proxy/contracts/controlApi.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

/**
 * What the proxy and its control API say to the user names commands too: run by `serve` on a data
 * directory (and a port) other than the default, each must carry them, or the pasted command acts
 * on another Airlock.
 */
const CONTROL_TOKEN = 'alkc_control-token-for-hint-tests-0123456789';
let parentDir: string;
let dataDir: string;
let port: number;
let airlock: Airlock;

/** A port on 127.0.0.1 nothing listens on: one the system just gave out and took back. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: given } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return given;
}

beforeAll(async () => {
  parentDir = mkdtempSync(path.join(tmpdir(), 'airlock-refusal-hints-'));
  dataDir = path.join(parentDir, 'second airlock');
  port = await freePort();
  const secrets = memorySecretStore({ [CONTROL_TOKEN_ACCOUNT]: CONTROL_TOKEN, [gatewayKeyAccount('keyed')]: SENTINEL_KEY });
  airlock = await startAirlock({ dataDir, port, env: {}, secrets, dataDirArgument: dataDir });
});
afterAll(async () => {
  await airlock.stop();
  rmSync(parentDir, { recursive: true, force: true });
});

/** Every command a message names, as written between backticks. */
function hintedCommands(text: string): string[] {
  return [...text.matchAll(/`(npx airlock [^`]*)`/g)].map((match) => match[1] as string);
}

function messageOf(body: string): string {
  const parsed = JSON.parse(body) as { error: { message: string } };
  return parsed.error.message;
}

const DATA_DIR_OPTION = / --data-dir '[^']*second airlock'$/;

function expectNamesThisAirlock(message: string, reachesTheRun: boolean): void {
  const commands = hintedCommands(message);
  expect(commands.length, message).toBeGreaterThan(0);
  for (const command of commands) {
    expect(command).toMatch(DATA_DIR_OPTION);
    if (reachesTheRun) expect(command).toContain(` --port ${port} `);
  }
}

const control = (pathAndQuery: string, init: { method: string; body?: unknown; controlToken?: boolean }) =>
  rawRequest(`${airlock.proxy.url}${CONTROL_API_PREFIX}${pathAndQuery}`, {
    method: init.method,
    headers: {
      ...(init.controlToken === false ? {} : { authorization: `Bearer ${CONTROL_TOKEN}` }),
      ...(init.body === undefined ? {} : JSON_HEADERS),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

describe('refusals of a run on a data directory and port other than the default', () => {
  it('a client without a client token, then one sent while no profile exists, are told what to run on this data directory', async () => {
    const unauthorized = await rawRequest(`${airlock.proxy.url}/v1/models`);
    expect(unauthorized.status).toBe(401);
    expectNamesThisAirlock(messageOf(unauthorized.body), false);

    await airlock.store.update((config) => updateSettings(config, { requireClientToken: false }));
    const noProfile = await rawRequest(`${airlock.proxy.url}/v1/models`);
    expect(noProfile.status).toBe(403);
    expectNamesThisAirlock(messageOf(noProfile.body), false);
  });

  it("the control API's config edit errors name this data directory", async () => {
    const answer = await control('/tokens/nobody', { method: 'DELETE' });
    expect(answer.status).toBe(404);
    expectNamesThisAirlock(messageOf(answer.body), false);
  });

  it('a used sign-in link, and a call without the control token, name this port and data directory', async () => {
    const used = await control('/session', { method: 'POST', body: { code: 'not-a-code' }, controlToken: false });
    expect(used.status).toBe(401);
    expectNamesThisAirlock(messageOf(used.body), true);
    const unminted = await control('/login-links', { method: 'POST', controlToken: false });
    expect(unminted.status).toBe(401);
    expectNamesThisAirlock(messageOf(unminted.body), true);
  });

  it('a profile with no key and a body over the limit name this data directory', async () => {
    await airlock.store.update((config) =>
      addProfile(config, { id: 'keyless', name: 'Keyless', baseUrl: 'http://127.0.0.1:9/v1' }, { activate: true }),
    );
    const keyless = await rawRequest(`${airlock.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody(),
    });
    expect(keyless.status).toBe(403);
    expectNamesThisAirlock(messageOf(keyless.body), false);

    await airlock.store.update((config) =>
      addProfile(config, { id: 'keyed', name: 'Keyed', baseUrl: 'http://127.0.0.1:9/v1', maxRequestBodyMiB: 1 }, { activate: true }),
    );
    const tooLarge = await rawRequest(`${airlock.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ padding: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(tooLarge.status).toBe(413);
    expectNamesThisAirlock(messageOf(tooLarge.body), false);
  });
});

describe('a run whose data directory is named with a gateway key', () => {
  let keyedParent: string;
  let keyedRun: Airlock;

  beforeAll(async () => {
    keyedParent = mkdtempSync(path.join(tmpdir(), 'airlock-keyed-hints-'));
    const keyedDir = path.join(keyedParent, SENTINEL_KEY);
    // The profile whose key names the directory: the run knows the key to mask once it reads it.
    const store = openConfigStore(keyedDir);
    await store.update((config) =>
      addProfile(config, { id: 'keyed', name: 'Keyed', baseUrl: 'http://127.0.0.1:9/v1' }, { activate: true }),
    );
    store.close();
    const secrets = memorySecretStore({ [CONTROL_TOKEN_ACCOUNT]: CONTROL_TOKEN, [gatewayKeyAccount('keyed')]: SENTINEL_KEY });
    keyedRun = await startAirlock({ dataDir: keyedDir, port: 0, env: {}, secrets, dataDirArgument: keyedDir });
  });
  afterAll(async () => {
    await keyedRun.stop();
    rmSync(keyedParent, { recursive: true, force: true });
  });

  it('names the directory masked to a client without a token, and in a refusal of a profile with no key', async () => {
    const unauthorized = await rawRequest(`${keyedRun.proxy.url}/v1/models`);
    expect(unauthorized.status).toBe(401);
    expect(hintedCommands(messageOf(unauthorized.body)).length).toBeGreaterThan(0);
    expect(findSentinel(unauthorized.body)).toBeNull();
    expect(messageOf(unauthorized.body)).toContain('--data-dir ');

    await keyedRun.store.update((config) =>
      addProfile(
        updateSettings(config, { requireClientToken: false }),
        { id: 'keyless', name: 'Keyless', baseUrl: 'http://127.0.0.1:9/v1' },
        { activate: true },
      ),
    );
    const keyless = await rawRequest(`${keyedRun.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody(),
    });
    expect(keyless.status).toBe(403);
    expect(hintedCommands(messageOf(keyless.body)).length).toBeGreaterThan(0);
    expect(findSentinel(keyless.body)).toBeNull();
  });
});
