import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileTestResult } from '../../../proxy/contracts/profileViews.ts';
import { generateToken } from '../../../proxy/http/clientTokens.ts';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { type AirlockChild, CHILD_CONTROL_TOKEN, startAirlockChild } from '../../support/airlockChild.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { issueServerCertificate, makeCertificateAuthority } from '../../support/tlsCertificates.ts';

/**
 * A gateway whose certificate comes from a private CA that the OS certificate store holds and Node's
 * bundled Mozilla list does not (a corporate LiteLLM, say). Airlock runs in a child process whose OS
 * store is a file holding that CA: on Linux Node reads the system store from OpenSSL's default file
 * and directory, and SSL_CERT_FILE names that file (nodejs/node#57009, the `--use-system-ca` docs).
 */
const OS_STORE_LOADED = /loaded this computer's certificate store/g;

let dir: string;
let osStoreFile: string;
/** Its CA is in the OS store only. */
let privateCaGateway: GatewaySimulator;
/** Its CA is in no store at all. */
let unknownCaGateway: GatewaySimulator;
let child: AirlockChild | null = null;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'airlock-os-ca-'));
  const privateCa = makeCertificateAuthority(dir, 'Airlock Test Private CA');
  const unknownCa = makeCertificateAuthority(dir, 'Airlock Test Unknown CA');
  osStoreFile = path.join(dir, 'os-store.pem');
  writeFileSync(osStoreFile, privateCa.certPem);
  privateCaGateway = await startGatewaySimulator({ tls: issueServerCertificate(dir, privateCa, 'private-gateway') });
  unknownCaGateway = await startGatewaySimulator({ tls: issueServerCertificate(dir, unknownCa, 'unknown-gateway') });
});
afterEach(async () => {
  if (child !== null) process.kill(child.pid, 'SIGTERM');
  await child?.exited;
  child = null;
  privateCaGateway.reset();
  unknownCaGateway.reset();
});
afterAll(async () => {
  await privateCaGateway.close();
  await unknownCaGateway.close();
  rmSync(dir, { recursive: true, force: true });
});

let dataDir: string;

async function startChild(gateway: GatewaySimulator, clientToken: string): Promise<AirlockChild> {
  dataDir = mkdtempSync(path.join(dir, 'data-'));
  child = await startAirlockChild({ dataDir, upstreamBaseUrl: gateway.baseUrl, clientToken, env: { SSL_CERT_FILE: osStoreFile } });
  return child;
}

/** The rows the last child wrote, read once it has exited. */
function loggedRows(): Array<Record<string, unknown>> {
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE_NAME), { readOnly: true });
  try {
    return db.prepare('SELECT error_class, retries FROM requests').all();
  } finally {
    db.close();
  }
}

function chat(port: number, clientToken: string) {
  return rawRequest(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
    body: chatBody(),
  });
}

function testProfile(port: number): Promise<ProfileTestResult> {
  return fetch(`http://127.0.0.1:${port}/_airlock/api/profiles/main/test`, {
    method: 'POST',
    headers: { authorization: `Bearer ${CHILD_CONTROL_TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
  }).then((response) => response.json() as Promise<ProfileTestResult>);
}

/** Its whole stderr: read once the process has exited and its pipes closed. */
async function stderrAfterExit(running: AirlockChild): Promise<string> {
  process.kill(running.pid, 'SIGTERM');
  await running.exited;
  child = null;
  return running.stderr();
}

describe('a gateway certificate from a CA in the OS store only', () => {
  it('loads the OS store on the first failed handshake, sends the request once, and never loads it again', async () => {
    const token = generateToken();
    const running = await startChild(privateCaGateway, token);

    const first = await chat(running.port, token);
    expect(first.status, first.body).toBe(200);
    expect(JSON.parse(first.body).choices[0].message.content).toEqual(expect.any(String));
    // The failed handshake carried no request: the gateway saw exactly one.
    expect(privateCaGateway.received).toHaveLength(1);

    const second = await chat(running.port, token);
    expect(second.status, second.body).toBe(200);
    expect(privateCaGateway.received).toHaveLength(2);

    const stderr = await stderrAfterExit(running);
    expect(stderr.match(OS_STORE_LOADED)).toHaveLength(1);
    // Why it was loaded: which gateway, and Node's verdict on its certificate.
    expect(stderr).toContain(privateCaGateway.url);
    expect(stderr).toContain('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('gives the Test button (a one-off call) the same on-demand load', async () => {
    const running = await startChild(privateCaGateway, generateToken());

    const result = await testProfile(running.port);
    expect(result.steps[0]).toMatchObject({ name: 'models', ok: true, status: 200 });
    expect(privateCaGateway.received.map((request) => request.path)).toEqual(['/v1/models']);

    expect((await stderrAfterExit(running)).match(OS_STORE_LOADED)).toHaveLength(1);
  });
});

describe('a gateway certificate from a CA in no store', () => {
  it('still gets the certificate error, now saying the OS store was tried, and the gateway is sent nothing', async () => {
    const token = generateToken();
    const running = await startChild(unknownCaGateway, token);

    for (let round = 0; round < 2; round += 1) {
      const answer = await chat(running.port, token);
      expect(answer.status).toBe(502);
      // Nor would the client's own retries: the SDKs read x-should-retry.
      expect(answer.headers['x-should-retry']).toBe('false');
      const { error } = JSON.parse(answer.body) as { error: { type: string; code: string; message: string } };
      expect(error).toMatchObject({ type: 'network', code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
      expect(error.message).toMatch(/certificate authority/);
      expect(error.message).toMatch(/this computer's certificate store/);
    }

    const test = await testProfile(running.port);
    expect(test.steps[0]).toMatchObject({ name: 'models', ok: false, errorClass: 'network' });
    expect(test.steps[0]!.fix).toMatch(/this computer's certificate store/);

    expect(unknownCaGateway.received).toHaveLength(0);
    expect((await stderrAfterExit(running)).match(OS_STORE_LOADED)).toHaveLength(1);
    // Trying again later cannot change which CAs are trusted: the client got the error at once.
    expect(loggedRows()).toEqual([
      { error_class: 'network', retries: 0 },
      { error_class: 'network', retries: 0 },
    ]);
  });
});
