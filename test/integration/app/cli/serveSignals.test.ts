import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../../../proxy/app/dataDirLock.ts';
import { addClientToken } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { generateToken, tokenRecord } from '../../../../proxy/http/clientTokens.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { spawnAirlock, type AirlockProcess } from '../../../support/airlockBin.ts';
import { freePort } from '../../../support/freePort.ts';
import { chatBody, JSON_HEADERS, rawRequest, type RawResponse } from '../../../support/http.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

const clientToken = generateToken();
let simulator: GatewaySimulator;
let dataDir: string;

beforeAll(async () => {
  simulator = await startGatewaySimulator();
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-serve-signals-'));
  const store = openConfigStore(dataDir);
  await store.update((config) => addClientToken(config, tokenRecord('tool', clientToken, null, Date.now())));
  store.close();
});
afterAll(async () => {
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** `airlock serve` with one chat request held at the gateway, so its stop has a request to wait for. */
async function serveWithRequestInFlight(): Promise<{ serve: AirlockProcess; answer: Promise<RawResponse>; release: () => void }> {
  const port = await freePort();
  const serve = spawnAirlock(['--data-dir', dataDir, 'serve', '--port', String(port), '--base-url', simulator.baseUrl], {
    ...process.env,
    AIRLOCK_API_KEY: SENTINEL_KEY,
  });
  await serve.printed(/Airlock is serving on/);
  const held = simulator.holdNext('/v1/chat/completions');
  const answer = rawRequest(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
    body: chatBody(),
  });
  // Each test awaits it; a failed one must not leave its rejection unhandled.
  answer.catch(() => undefined);
  await held.arrived;
  return { serve, answer, release: held.release };
}

describe('`airlock serve` and repeated signals', () => {
  // `npm run serve` and `npx airlock serve` run Airlock in the terminal's process group, and npm
  // forwards the SIGINT it gets itself (@npmcli/run-script, lib/signal-manager.js): one Ctrl-C
  // arrives twice.
  it('takes a second SIGINT during the stop as the same Ctrl-C: the request in flight still finishes, and the stop is clean', async () => {
    const { serve, answer, release } = await serveWithRequestInFlight();
    serve.child.kill('SIGINT');
    await serve.printed(/Stopping: letting streams in flight finish/);
    serve.child.kill('SIGINT');
    await serve.printed(/Still stopping/);
    release();
    expect((await answer).status).toBe(200);
    expect(await serve.exited).toMatchObject({ code: 0, signal: null });
    // The directory is free for the next start.
    lockDataDir(dataDir).release();
  });

  it('stops at once on a third signal, saying so, with the exit code of a process ended by it', async () => {
    const { serve, answer, release } = await serveWithRequestInFlight();
    serve.child.kill('SIGTERM');
    await serve.printed(/Stopping: letting streams in flight finish/);
    serve.child.kill('SIGTERM');
    await serve.printed(/Still stopping/);
    serve.child.kill('SIGTERM');
    const exit = await serve.exited;
    release();
    // Nothing waited for it: its connection went with the process.
    await expect(answer).rejects.toThrow();
    // 128 + the signal's number, as a shell reports a process the signal ended.
    expect(exit).toMatchObject({ code: 143, signal: null });
    expect(exit.stderr).toMatch(/Stopped at once/);
  });
});
