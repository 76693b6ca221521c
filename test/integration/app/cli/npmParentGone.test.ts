import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../../../proxy/app/dataDirLock.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { spawnAirlockUnderShell } from '../../../support/airlockBin.ts';
import { freePort } from '../../../support/freePort.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

let simulator: GatewaySimulator;
let dataDir: string;
/** Airlock processes a failed test may leave orphaned: ended by their PID after each test. */
const started: number[] = [];

beforeAll(async () => {
  simulator = await startGatewaySimulator();
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-npm-parent-'));
});
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Ended already, as it should have.
    }
  }
});
afterAll(async () => {
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const serveArgs = async (): Promise<string[]> => [
  '--data-dir',
  dataDir,
  'serve',
  '--port',
  String(await freePort()),
  '--base-url',
  simulator.baseUrl,
];

describe('`airlock serve` started by npm', () => {
  // A SIGTERM to npm reaches the `sh -c` it runs the script in, which ends without passing it on
  // (npm/cli#5776): npm and the shell end, and Airlock was left serving with no parent.
  it('stops, draining as on SIGTERM, when the shell npm started it from is killed, and frees the data directory', async () => {
    const shell = spawnAirlockUnderShell(await serveArgs(), {
      ...process.env,
      AIRLOCK_API_KEY: SENTINEL_KEY,
      npm_lifecycle_event: 'serve',
    });
    started.push(await shell.airlockPid);
    await shell.printed(/Airlock is serving on/);
    shell.child.kill('SIGTERM');
    // The pipes close when Airlock ends: the shell ended at once.
    const exit = await shell.exited;
    expect(exit.stderr).toContain('npm, which started Airlock, has ended');
    expect(exit.stderr).toContain('Stopping: letting streams in flight finish');
    expect(exit.stderr).not.toContain(SENTINEL_KEY);
    lockDataDir(dataDir).release();
  });
});
