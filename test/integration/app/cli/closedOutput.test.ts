import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnAirlock } from '../../../support/airlockBin.ts';
import { freePort } from '../../../support/freePort.ts';

let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-closed-output-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('output to a reader that went away (`airlock ... | head -1`)', () => {
  it('ends a command quietly, with exit code 0 and no stack trace', async () => {
    const run = spawnAirlock(['--data-dir', dataDir, 'limits']);
    // As `head` does once it has its line: the read end of the pipe is closed before the command writes.
    run.child.stdout.destroy();
    const exit = await run.exited;
    expect(exit).toMatchObject({ code: 0, signal: null, stderr: '' });
  });

  it('leaves `airlock serve` serving, and its stop clean, when its log is no longer read', async () => {
    const port = await freePort();
    const run = spawnAirlock(['--data-dir', dataDir, 'serve', '--port', String(port)]);
    run.child.stderr.destroy();
    await run.printed(/Airlock is serving on/);
    // The stop says "Stopping: ..." on stderr, into the closed pipe.
    run.child.kill('SIGTERM');
    expect(await run.exited).toMatchObject({ code: 0, signal: null });
  });
});
