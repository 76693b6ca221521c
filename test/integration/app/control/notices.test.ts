import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES_FILE_NAME } from '../../../../proxy/app/capabilities/capabilityService.ts';
import { REASONING_EFFORT_REFUSALS_FILE_NAME } from '../../../../proxy/app/capabilities/reasoningEffortFile.ts';
import { addProfile, bumpKeysRevision, updateSettings } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { startupLines } from '../../../../proxy/app/cli/serve.ts';
import { decideNoticeNotifications } from '../../../../electron/logic/noticeNotifications.ts';
import { gatewayKeyAccount, KeychainUnavailableError, type SecretStore } from '../../../../proxy/contracts/secretStore.ts';
import type { Settings } from '../../../../proxy/contracts/config.ts';
import type { StatusResponse } from '../../../../proxy/contracts/status.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { startOtlpReceiver } from '../../../support/otlpReceiver.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

/**
 * What Airlock finds at start (a data file moved aside, the key taken from AIRLOCK_API_KEY) and
 * while running (a capability result it could not save) reaches the window through the status it
 * reads, not only `airlock serve`'s terminal; a dismissed notice stays away until it happens again.
 */
const MODEL = 'gpt-4o-mini';

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
  await airlock?.stop();
  airlock = null;
  rmSync(dataDir, { recursive: true, force: true });
});

interface StartOptions {
  env?: NodeJS.ProcessEnv;
  keychainKey?: string;
  dirPrefix?: string;
  settings?: (settings: Settings) => Partial<Settings>;
  secrets?: SecretStore;
  /** Damages the data directory's files before Airlock starts. */
  beforeStart?: (dataDir: string) => void;
}

async function start(options: StartOptions = {}): Promise<Airlock> {
  dataDir = mkdtempSync(path.join(tmpdir(), options.dirPrefix ?? 'airlock-notices-'));
  const store = openConfigStore(dataDir);
  await store.update((config) => {
    const withProfile = addProfile(config, { id: 'sim', name: 'Simulator', baseUrl: simulator.baseUrl }, { activate: true });
    return updateSettings(withProfile, options.settings?.(withProfile.settings) ?? {});
  });
  store.close();
  writeFileSync(path.join(dataDir, CAPABILITIES_FILE_NAME), '{"version": 1, "prof');
  writeFileSync(path.join(dataDir, REASONING_EFFORT_REFUSALS_FILE_NAME), '{"version": 1, "refus');
  options.beforeStart?.(dataDir);
  const secrets = options.secrets ?? memorySecretStore(options.keychainKey ? { [gatewayKeyAccount('sim')]: options.keychainKey } : {});
  airlock = await startAirlock({ dataDir, port: 0, env: options.env ?? {}, secrets });
  return airlock;
}

async function control<T>(running: Airlock, method: string, endpoint: string): Promise<{ status: number; body: T; text: string }> {
  const response = await rawRequest(`${running.proxy.url}/_airlock/api/${endpoint}`, {
    method,
    headers: { authorization: `Bearer ${running.controlToken}` },
  });
  return { status: response.status, body: JSON.parse(response.body) as T, text: response.body };
}

describe("the window's status", () => {
  it('carries the start notices, each with its time, cause and fix, and never the key', async () => {
    const running = await start({ env: { AIRLOCK_API_KEY: SENTINEL_KEY } });
    const { body: status, text } = await control<StatusResponse>(running, 'GET', 'status');

    expect(status.notices.map((notice) => notice.kind).sort()).toEqual(['capabilities_file', 'environment_key', 'reasoning_efforts_file']);
    for (const notice of status.notices) {
      expect(notice.atMs).toBeGreaterThan(0);
      expect(notice.cause).not.toBe('');
      expect(notice.fix).not.toBe('');
    }
    expect(status.notices.find((notice) => notice.kind === 'capabilities_file')?.cause).toContain(CAPABILITIES_FILE_NAME);
    expect(findSentinel(text)).toBeNull();
    // `airlock serve` still prints them.
    expect(running.notices.some((line) => line.includes(CAPABILITIES_FILE_NAME))).toBe(true);
    expect(running.notices.some((line) => line.includes('AIRLOCK_API_KEY'))).toBe(true);
  });

  it('masks a key of no known shape in the notices said before the keys were read, wherever they are shown', async () => {
    // No sk-, hex or Bearer shape: only masking by the key itself hides it.
    const plainKey = 'gw_Plain_Key_Value_42';
    const running = await start({
      keychainKey: plainKey,
      dirPrefix: `airlock-notices-${plainKey}-`,
      beforeStart: (dir) => {
        // A damaged log: its notice and alarm name the data directory, whose name holds the key.
        writeFileSync(path.join(dir, 'requests.db'), 'not a database'.repeat(100));
      },
    });
    const board = running.noticeBoard.list();
    expect(board.map((notice) => notice.kind)).toContain('log_recovered');
    expect(JSON.stringify(board)).not.toContain(plainKey);
    expect(JSON.stringify(board)).toContain('[redacted]');
    const osNotifications = decideNoticeNotifications(new Set(), board, { windowShown: false, notificationsEnabled: true });
    expect(osNotifications.notifications.length).toBeGreaterThan(0);
    expect(JSON.stringify(osNotifications)).not.toContain(plainKey);
    const serveLines = startupLines(running, { dataDirArgument: null });
    expect(serveLines.some((line) => line.includes(CAPABILITIES_FILE_NAME))).toBe(true);
    expect(serveLines.join('\n')).not.toContain(plainKey);
    const { body: status, text } = await control<StatusResponse>(running, 'GET', 'status');
    // Masked by the key itself, not by shape: the alarm still names the file it set aside.
    expect(status.alarms.find((alarm) => alarm.kind === 'log_recovered')?.message).toMatch(/requests-damaged-\d{8}T\d{6}Z\.db/);
    expect(text).not.toContain(plainKey);
  });

  it('names the files it moved aside where they are now, readable in the board and the status', async () => {
    const running = await start({ keychainKey: SENTINEL_KEY });
    const movedAside = readdirSync(dataDir)
      .filter((name) => /-damaged-\d{8}T\d{6}Z\.json$/.test(name))
      .map((name) => path.join(dataDir, name));
    expect(movedAside).toHaveLength(2);
    const { body: status, text } = await control<StatusResponse>(running, 'GET', 'status');
    for (const notices of [running.noticeBoard.list(), status.notices]) {
      const causes = notices.map((notice) => notice.cause).join('\n');
      for (const file of movedAside) expect(causes).toContain(file);
      expect(causes).not.toContain('[redacted]');
    }
    expect(findSentinel(text)).toBeNull();
  });

  it('drops a notice the window dismissed', async () => {
    const running = await start();
    const { body: status } = await control<StatusResponse>(running, 'GET', 'status');
    const setAside = status.notices.find((notice) => notice.kind === 'capabilities_file');

    const dismissed = await control<StatusResponse>(running, 'POST', `notices/${encodeURIComponent(setAside?.id ?? '')}/dismiss`);
    expect(dismissed.status).toBe(200);
    const after = await control<StatusResponse>(running, 'GET', 'status');
    expect(after.body.notices.map((notice) => notice.kind)).toEqual(['reasoning_efforts_file']);
  });

  it('carries a capability result that could not be saved while running, masked, until dismissed; it comes back when it happens again', async () => {
    // The data directory's name holds the key, so the save failure's message (it names the file) does too.
    const running = await start({ keychainKey: SENTINEL_KEY, dirPrefix: `airlock-notices-${SENTINEL_KEY}-` });
    // A directory where the file goes: the atomic write's rename fails, as on a disk that refuses it.
    mkdirSync(path.join(dataDir, CAPABILITIES_FILE_NAME));

    const check = await control<unknown>(running, 'POST', `models/${MODEL}/capabilities`);
    expect(check.status).toBe(200);
    const { body: status, text } = await control<StatusResponse>(running, 'GET', 'status');
    const saveFailure = status.notices.find((notice) => notice.kind === 'capabilities_not_saved');
    expect(saveFailure?.cause).toContain(CAPABILITIES_FILE_NAME);
    expect(saveFailure?.cause).toContain('[redacted]');
    expect(findSentinel(text)).toBeNull();

    const dismissed = await control<unknown>(running, 'POST', `notices/${encodeURIComponent(saveFailure?.id ?? '')}/dismiss`);
    expect(dismissed.status).toBe(200);
    const afterDismiss = await control<StatusResponse>(running, 'GET', 'status');
    expect(afterDismiss.body.notices.some((notice) => notice.kind === 'capabilities_not_saved')).toBe(false);

    await control<unknown>(running, 'POST', `models/${MODEL}/capabilities`);
    const again = await control<StatusResponse>(running, 'GET', 'status');
    const back = again.body.notices.find((notice) => notice.kind === 'capabilities_not_saved');
    expect(back).toBeDefined();
    expect(back?.id).not.toBe(saveFailure?.id);
  });

  it('carries a trace export that fails while running, until the collector takes spans again', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const running = await start({
        keychainKey: SENTINEL_KEY,
        settings: (settings) => ({
          requireClientToken: false,
          traceExport: { ...settings.traceExport, otlpEndpoint: receiver.url, headersRevision: 1 },
        }),
      });
      const statusNotices = async () => (await control<StatusResponse>(running, 'GET', 'status')).body.notices.map((notice) => notice.kind);
      const sendRequest = () =>
        rawRequest(`${running.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body: chatBody() });
      // 400 is not retryable in OTLP/HTTP: the exporter gives the batch up at once.
      receiver.refuseWith(400);
      expect((await sendRequest()).status).toBe(200);
      await expect.poll(statusNotices).toContain('trace_export_failed');

      receiver.refuseWith(null);
      expect((await sendRequest()).status).toBe(200);
      await expect.poll(statusNotices).not.toContain('trace_export_failed');
    } finally {
      await receiver.close();
    }
  });

  it('a keychain that stops answering while running is a notice for the desktop (the window shows its alarm), gone once it answers', async () => {
    const keychain = memorySecretStore({ [gatewayKeyAccount('sim')]: SENTINEL_KEY });
    let helperCannotStart = false;
    const secrets: SecretStore = {
      ...keychain,
      get: (account) =>
        helperCannotStart
          ? Promise.reject(new KeychainUnavailableError('its helper process could not start (EMFILE)'))
          : keychain.get(account),
    };
    const running = await start({ secrets });
    const boardKinds = () => running.noticeBoard.list().map((notice) => notice.kind);
    expect(boardKinds()).not.toContain('keychain_unavailable');

    helperCannotStart = true;
    // Another process changed a key: this run reads the keys again.
    await running.store.update(bumpKeysRevision);
    await expect.poll(boardKinds).toContain('keychain_unavailable');
    expect(running.noticeBoard.list().find((notice) => notice.kind === 'keychain_unavailable')?.cause).toMatch(/EMFILE/);
    const { body: status } = await control<StatusResponse>(running, 'GET', 'status');
    expect(status.alarms.map((alarm) => alarm.kind)).toContain('keychain_unavailable');
    expect(status.notices.map((notice) => notice.kind)).not.toContain('keychain_unavailable');

    helperCannotStart = false;
    await running.store.update(bumpKeysRevision);
    await expect.poll(boardKinds).not.toContain('keychain_unavailable');
  });

  it('refuses to dismiss a notice it does not hold', async () => {
    const running = await start();
    const answer = await control<{ error: { code: string } }>(running, 'POST', 'notices/no-such-notice/dismiss');
    expect(answer.status).toBe(404);
  });
});
