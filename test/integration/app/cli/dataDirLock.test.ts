import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, lockDataDir } from '../../../../proxy/app/dataDirLock.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { rawRequest } from '../../../support/http.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';

const AIRLOCK_BIN = fileURLToPath(new URL('../../../../proxy/app/cli/bin.js', import.meta.url));
const CLI_TIMEOUT_MS = 20_000;
const NODE_BINARY = fileURLToPath(new URL('../../../../node_modules/.bin/node', import.meta.url));
const LOCK_HOLDER = fileURLToPath(new URL('./fixtures/holdDataDirLock.ts', import.meta.url));

/** A child process that took the lock of `dir` (the caller ends it). */
async function holdLockInChild(dir: string): Promise<ChildProcess> {
  const child = spawn(NODE_BINARY, [LOCK_HOLDER, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`lock holder exited (${code}): ${stderr}`)));
  });
  return child;
}

async function killByPid(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  process.kill(child.pid as number, 'SIGKILL');
  await exited;
}

let dataDir: string;
let running: Airlock;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-datadir-lock-'));
  running = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore() });
});

afterAll(async () => {
  await running?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('one Airlock per data directory', () => {
  it('refuses a second start on the same directory and leaves the first serving', async () => {
    await expect(startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore() })).rejects.toThrow(DataDirInUseError);
    expect((await rawRequest(`${running.proxy.url}/`)).status).toBe(200);
  });

  it('`airlock serve` on another port says which process has the directory, and exits 1', async () => {
    const run = await promisify(execFile)(process.execPath, [AIRLOCK_BIN, 'serve', '--data-dir', dataDir, '--port', '65000'], {
      timeout: CLI_TIMEOUT_MS,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `airlock: Another Airlock (process ${process.pid}) is running with the data directory ${dataDir}. ` +
        'Quit it (or stop its `npx airlock serve`) first, or give this one its own directory with --data-dir.\n',
    );
  });

  it('frees the directory on stop, for the next start', async () => {
    await running.stop();
    running = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore() });
    expect(() => lockDataDir(dataDir)).toThrow(`Another Airlock (process ${process.pid}) is running`);
  });
});

describe('the lock between processes', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'airlock-datadir-lock-child-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses the directory while another process holds it, naming that process', async () => {
    const holder = await holdLockInChild(dir);
    try {
      expect(() => lockDataDir(dir)).toThrow(`Another Airlock (process ${holder.pid}) is running`);
    } finally {
      await killByPid(holder);
    }
  });

  it('is free once its holder was killed, even when the PID it left went to another program', async () => {
    const holder = await holdLockInChild(dir);
    await killByPid(holder);
    // PIDs are handed out again (soon on Windows and macOS, after a reboot anywhere): the lock must
    // not take a running program with the dead Airlock's PID for that Airlock.
    const pidNowTaken = (pid: number): boolean => pid === holder.pid;
    const lock = lockDataDir(dir, { isRunning: pidNowTaken });
    expect(() => lockDataDir(dir, { pid: 1000 })).toThrow(`Another Airlock (process ${process.pid}) is running`);
    lock.release();
  });
});
