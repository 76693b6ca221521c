import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../support/clients/runCli.ts';

const shell = { command: '/bin/sh', args: ['-c'] };
const base = { cli: shell, cwd: tmpdir(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } };

describe('runCli', () => {
  it.each([
    ['echo out; echo err >&2', { exitCode: 0, stdout: 'out\n', stderr: 'err\n', timedOut: false }],
    ['printf partial; exit 3', { exitCode: 3, stdout: 'partial', stderr: '', timedOut: false }],
  ])('captures the output and exit code of %j', async (script, expected) => {
    expect(await runCli({ ...base, args: [script], timeoutMs: 10_000 })).toMatchObject(expected);
  });

  it('kills the CLI and the processes it started when the timeout passes', async () => {
    // The background job holds stdout open: had it survived, it would print before the pipe closed.
    // It sleeps far past the timeout, and the timeout leaves the shell ample time to print first.
    const result = await runCli({ ...base, args: ['(sleep 60; echo survived) & echo started; wait'], timeoutMs: 3_000 });
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL', stdout: 'started\n' });
  });
});
