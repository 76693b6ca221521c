import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bodyCaptureBytes, emptyConfig, logBacklogBytes, memoryLimitsSchema } from '../../../proxy/contracts/config.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';
import { runAirlock, type CliRun } from '../../support/cliHarness.ts';

describe('memoryLimitsSchema', () => {
  it('defaults to 64 MiB of log backlog and 1 MiB of each body, in bytes as the proxy uses them', () => {
    const limits = emptyConfig().settings.memoryLimits;
    expect(limits).toEqual({ logBacklogMiB: 64, bodyCaptureKiB: 1024 });
    expect(logBacklogBytes(limits)).toBe(64 * 1024 * 1024);
    expect(bodyCaptureBytes(limits)).toBe(1024 * 1024);
  });

  it.each([
    [{ logBacklogMiB: 7 }, 'must be at least 8'],
    [{ logBacklogMiB: 1025 }, 'must be at most 1024'],
    [{ logBacklogMiB: 12.5 }, 'must be a whole number'],
    [{ bodyCaptureKiB: 15 }, 'must be at least 16'],
    [{ bodyCaptureKiB: 16_385 }, 'must be at most 16384'],
    [{ bodyCaptureKiB: '64' }, 'must be a number'],
  ])('refuses %j: %s', (limits, message) => {
    const result = memoryLimitsSchema.safeParse(limits);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(message);
  });

  it('takes the bounds themselves', () => {
    expect(memoryLimitsSchema.parse({ logBacklogMiB: 8, bodyCaptureKiB: 16_384 })).toEqual({ logBacklogMiB: 8, bodyCaptureKiB: 16_384 });
  });
});

describe('airlock memory', () => {
  let dataDir: string;
  let secrets: ReturnType<typeof memorySecretStore>;
  const airlock = (args: string[]): Promise<CliRun> => runAirlock(dataDir, secrets, args, '');

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-cli-memory-'));
    secrets = memorySecretStore();
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('shows the defaults, sets one limit and keeps the other, and the config file holds them', async () => {
    expect((await airlock(['memory'])).stdout).toContain('keeps each body up to 1024 KiB, and holds at most 64 MiB');
    const set = await airlock(['memory', '--body-capture-kib', '256']);
    expect(set.exitCode).toBe(0);
    expect(set.stdout).toContain('keeps each body up to 256 KiB, and holds at most 64 MiB');
    await airlock(['memory', '--log-backlog-mib', '16']);
    const file = JSON.parse(readFileSync(path.join(dataDir, 'airlock.json'), 'utf8'));
    expect(file.settings.memoryLimits).toEqual({ logBacklogMiB: 16, bodyCaptureKiB: 256 });
  });

  it.each([
    [['memory', '--log-backlog-mib', '4'], 'airlock: --log-backlog-mib: must be at least 8'],
    [['memory', '--body-capture-kib', 'lots'], 'airlock: --body-capture-kib: must be a number'],
    [['memory', '--body-capture-kib', '1.5'], 'airlock: --body-capture-kib: must be a whole number'],
  ])('refuses %j and leaves the limits as they were', async (args, message) => {
    const refused = await airlock(args);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain(message);
    expect((await airlock(['memory'])).stdout).toContain('keeps each body up to 1024 KiB, and holds at most 64 MiB');
  });
});
