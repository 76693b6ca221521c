import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { addProfile, updateSettings } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import type { NoticeKind } from '../../../../proxy/contracts/notices.ts';
import { gatewayKeyAccount } from '../../../../proxy/contracts/secretStore.ts';
import type { StatusResponse } from '../../../../proxy/contracts/status.ts';
import { TranslationThread, TranslationUnavailableError } from '../../../../proxy/forward/translation/translationThreadClient.ts';
import { byteEstimateTokens } from '../../../../proxy/spend/estimate.ts';
import { TokenEstimator } from '../../../../proxy/spend/tokenEstimator.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { findSentinel, TRACE_HEADER_SENTINEL } from '../../../support/sentinel.ts';
import { issueServerCertificate, makeCertificateAuthority } from '../../../support/tlsCertificates.ts';

/**
 * What went only to stderr while running reaches the desktop window (no terminal there) as a
 * notice: the tokenizer and translation threads failing, the OS certificate store unreadable, and an
 * error a request handler or the control API did not expect. The gateway key is one of no known
 * shape, quoted by each failure: only the board's knowing it masks it.
 */
const GATEWAY_KEY = TRACE_HEADER_SENTINEL;
const THREAD_QUOTING_KEY = new URL('./fixtures/threadQuotingKey.ts', import.meta.url);

let simulator: GatewaySimulator;
let airlock: Airlock | null = null;
let dataDir: string;

beforeAll(async () => {
  simulator = await startGatewaySimulator();
});
afterAll(async () => {
  await simulator.close();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await airlock?.stop();
  airlock = null;
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(baseUrl = simulator.baseUrl): Promise<Airlock> {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-problem-notices-'));
  const store = openConfigStore(dataDir);
  await store.update((config) =>
    updateSettings(addProfile(config, { id: 'sim', name: 'Simulator', baseUrl }, { activate: true }), { requireClientToken: false }),
  );
  store.close();
  const secrets = memorySecretStore({ [gatewayKeyAccount('sim')]: GATEWAY_KEY });
  airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets });
  return airlock;
}

async function status(running: Airlock): Promise<{ body: StatusResponse; text: string }> {
  const response = await rawRequest(`${running.proxy.url}/_airlock/api/status`, {
    headers: { authorization: `Bearer ${running.controlToken}` },
  });
  return { body: JSON.parse(response.body) as StatusResponse, text: response.body };
}

/** The notice of this kind in the window's status, once it is there; the whole status must hold no form of the key. */
async function shownNotice(running: Airlock, kind: NoticeKind): Promise<string> {
  await expect.poll(async () => (await status(running)).body.notices.map((notice) => notice.kind)).toContain(kind);
  const { body, text } = await status(running);
  expect(findSentinel(text, GATEWAY_KEY)).toBeNull();
  return body.notices.find((notice) => notice.kind === kind)?.cause ?? '';
}

function chat(running: Airlock) {
  return rawRequest(`${running.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body: chatBody() });
}

describe('problems of the threads and stores a process holds', () => {
  it('a tokenizer thread that dies is a notice, its cause masked', async () => {
    const running = await start();
    // Estimators report to the process's problems, as the one every request uses does.
    const estimator = new TokenEstimator({ threadUrl: THREAD_QUOTING_KEY });
    expect(await estimator.textTokens('count me')).toBe(byteEstimateTokens(Buffer.byteLength('count me')));

    const cause = await shownNotice(running, 'token_estimates_failed');
    expect(cause).toMatch(/tokenizer thread failed.*\[redacted\].*byte counts stand in/);
  });

  it('a translation thread that dies is a notice, its cause masked', async () => {
    const running = await start();
    const translation = new TranslationThread({ threadUrl: THREAD_QUOTING_KEY });
    const body = Buffer.from(JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }));
    await expect(translation.translate('messages', [body], body.length, 'gpt-4o-mini')).rejects.toBeInstanceOf(TranslationUnavailableError);

    const cause = await shownNotice(running, 'translation_failed');
    expect(cause).toMatch(/translation thread failed.*\[redacted\]/);
  });

  it("an OS certificate store that cannot be read is a notice, after a gateway's certificate needed it", async () => {
    const certificates = mkdtempSync(path.join(tmpdir(), 'airlock-problem-notices-ca-'));
    const unknownCa = makeCertificateAuthority(certificates, 'Airlock Test Unknown CA');
    const tlsGateway = await startGatewaySimulator({ tls: issueServerCertificate(certificates, unknownCa, 'unknown-gateway') });
    try {
      const readCertificates = tls.getCACertificates;
      // Node reads the store when asked (Keychain, the Windows store, OpenSSL's files): here it fails as a store that cannot be read would.
      vi.spyOn(tls, 'getCACertificates').mockImplementation((type) => {
        if (type === 'system') throw new Error('the certificate store could not be opened');
        return readCertificates(type);
      });
      const running = await start(tlsGateway.baseUrl);
      expect((await chat(running)).status).toBe(502);

      const cause = await shownNotice(running, 'os_certificates_unreadable');
      expect(cause).toContain(tlsGateway.url);
      expect(cause).toContain('the certificate store could not be opened');
      expect(tlsGateway.received).toHaveLength(0);
    } finally {
      await tlsGateway.close();
      rmSync(certificates, { recursive: true, force: true });
    }
  });
});

describe("errors Airlock's own handlers did not expect", () => {
  it('in a request: the client gets a 500 and the window a notice, its cause masked', async () => {
    const running = await start();
    vi.spyOn(running.spendGate, 'needsInputEstimate').mockImplementation(() => {
      throw new Error(`the budget table broke near ${GATEWAY_KEY}`);
    });
    const answer = await chat(running);
    expect(answer.status).toBe(500);
    expect(findSentinel(answer.body, GATEWAY_KEY)).toBeNull();

    const cause = await shownNotice(running, 'unexpected_error');
    expect(cause).toBe('a request failed unexpectedly: the budget table broke near [redacted]');
  });

  it('in the control API: the window gets its 500 and a notice, its cause masked', async () => {
    const running = await start();
    vi.spyOn(running.log, 'flush').mockRejectedValue(new Error(`the log broke near ${GATEWAY_KEY}`));
    const answer = await rawRequest(`${running.proxy.url}/_airlock/api/agent-sessions`, {
      headers: { authorization: `Bearer ${running.controlToken}` },
    });
    expect(answer.status).toBe(500);
    expect(findSentinel(answer.body, GATEWAY_KEY)).toBeNull();

    const cause = await shownNotice(running, 'unexpected_error');
    expect(cause).toBe('the control API failed unexpectedly: the log broke near [redacted]');
  });
});
