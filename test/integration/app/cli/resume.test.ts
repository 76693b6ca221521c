import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../../../../proxy/http/clientTokens.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { gatewayKeyAccount } from '../../../../proxy/contracts/secretStore.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { rawRequest } from '../../../support/http.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { seedDataDir } from '../../../support/dataDirSeed.ts';
import { headlessResumeWay } from '../../../../proxy/app/cli/serve.ts';
import { memorySecretStore, unavailableSecretStore } from '../../../support/memorySecretStore.ts';

let simulator: GatewaySimulator;
let airlock: Airlock;
let dataDir: string;
const secrets = memorySecretStore({ [gatewayKeyAccount('main')]: SENTINEL_KEY });
const token = generateToken();

beforeAll(async () => {
  simulator = await startGatewaySimulator({ recordBodies: false });
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-resume-'));
  await seedDataDir(dataDir, simulator.baseUrl, { looper: token, quiet: generateToken() });
  // As `airlock serve` starts it, on a data directory other than the default: no tray, no window of its own.
  airlock = await startAirlock({
    dataDir,
    port: 0,
    env: {},
    secrets,
    resumeWay: headlessResumeWay,
    dataDirArgument: dataDir,
  });
});
afterAll(async () => {
  await airlock.stop();
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const listModels = () => rawRequest(`${airlock.proxy.url}/v1/models`, { headers: { authorization: `Bearer ${token}` } });

describe('airlock resume <client>', () => {
  it("lifts the burst guard pause of a runaway client in the running proxy, with the command its refusal names (this run's port and data directory)", async () => {
    let status = 200;
    for (let sent = 0; sent < 200 && status === 200; sent += 1) status = (await listModels()).status;
    expect(status).toBe(403);
    const refusal = JSON.parse((await listModels()).body) as { error: { type: string; message: string } };
    expect(refusal.error.type).toBe('client_paused');
    const resumeCommand = `npx airlock resume looper --port ${airlock.proxy.port} --data-dir ${dataDir}`;
    expect(refusal.error.message).toContain(`\`${resumeCommand}\``);

    // The command as pasted (the harness gives --data-dir itself).
    const run = await runAirlock(dataDir, secrets, resumeCommand.split(' ').slice(2, -2));
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('may send requests again');
    expect((await listModels()).status).toBe(200);
  });

  it('says so when the client was not paused, and when Airlock is not running', async () => {
    const notPaused = await runAirlock(dataDir, secrets, ['resume', 'quiet', '--port', String(airlock.proxy.port)]);
    expect(notPaused.exitCode).toBe(0);
    expect(notPaused.stdout).toContain('Client "quiet" was not paused.');
    // A port nothing listens on any more: the connection is refused. (Port 9 is one fetch will not even try.)
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const notRunning = await runAirlock(dataDir, secrets, ['resume', 'looper', '--port', String(freedPort)]);
    expect(notRunning.exitCode).toBe(1);
    expect(notRunning.stderr).toContain(`Airlock is not running on port ${freedPort} (start it with`);
  });

  it('refuses a client that does not exist, naming the known ones, and exits 1', async () => {
    const run = await runAirlock(dataDir, secrets, ['resume', 'nope', '--port', String(airlock.proxy.port)]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('airlock: No client named "nope" (clients: looper, quiet).\n');
  });

  it('without a keychain, points at the window, not at AIRLOCK_API_KEY (which gives no control token)', async () => {
    const run = await runAirlock(dataDir, unavailableSecretStore(), ['resume', 'looper', '--port', String(airlock.proxy.port)]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      'airlock: no OS keychain (Secret Service) is available: no D-Bus session. Start a keyring (e.g. gnome-keyring) in this session, ' +
        'or resume the client in the window instead (without a keychain, only the running Airlock and its window have the control token).\n',
    );
  });
});

describe('airlock resume on a port where another program listens', () => {
  async function listening(onConnection: (socket: Socket) => void): Promise<{ port: number; close: () => Promise<void> }> {
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      onConnection(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: (server.address() as AddressInfo).port,
      close: async () => {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  }

  it('that drops the connection: says it is not Airlock, not that Airlock is not running', async () => {
    const other = await listening((socket) => socket.destroy());
    try {
      const run = await runAirlock(dataDir, secrets, ['resume', 'looper', '--port', String(other.port)]);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toBe(
        `airlock: The program on port ${other.port} does not answer as Airlock does: give Airlock's port with --port.\n`,
      );
    } finally {
      await other.close();
    }
  });

  it('that answers HTTP, but not as Airlock: says so', async () => {
    const other = await listening((socket) =>
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-type: text/html\r\ncontent-length: 9\r\n\r\nnot here\n'),
    );
    try {
      const run = await runAirlock(dataDir, secrets, ['resume', 'looper', '--port', String(other.port)]);
      expect(run.stderr).toBe(
        `airlock: The program on port ${other.port} does not answer as Airlock does (HTTP 404): give Airlock's port with --port.\n`,
      );
    } finally {
      await other.close();
    }
  });

  it('that never answers: says it did not answer in time', async () => {
    const other = await listening(() => undefined);
    try {
      const run = await runAirlock(dataDir, secrets, ['resume', 'looper', '--port', String(other.port)]);
      expect(run.stderr).toBe(
        `airlock: The program on port ${other.port} did not answer within 5 s: if it is Airlock, it is busy or stuck; otherwise give Airlock's port with --port.\n`,
      );
    } finally {
      await other.close();
    }
  });
});

describe('airlock resume (no client): Airlock itself, paused headless', () => {
  it("the refusal names `airlock resume` with this run's port and data directory, not a tray; that command resumes it", async () => {
    airlock.proxy.setPaused(true);
    const refused = await listModels();
    expect(refused.status).toBe(403);
    const { message } = (JSON.parse(refused.body) as { error: { message: string } }).error;
    expect(message).not.toContain('tray');
    const resumeCommand = `npx airlock resume --port ${airlock.proxy.port} --data-dir ${dataDir}`;
    expect(message).toContain(`\`${resumeCommand}\``);

    // The command as pasted (the harness gives --data-dir itself).
    const args = resumeCommand.split(' ').slice(2, -2);
    const run = await runAirlock(dataDir, secrets, args);
    expect(run).toMatchObject({ exitCode: 0, stdout: 'Airlock forwards requests again.\n' });
    expect(airlock.proxy.isPaused()).toBe(false);
    expect((await listModels()).status).toBe(200);
  });

  it('says so when Airlock was not paused', async () => {
    const run = await runAirlock(dataDir, secrets, ['resume', '--port', String(airlock.proxy.port)]);
    expect(run).toMatchObject({ exitCode: 0, stdout: 'Airlock was not paused.\n' });
  });
});
