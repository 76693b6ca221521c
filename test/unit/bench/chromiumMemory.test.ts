import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chromiumMemoryByKind, chromiumProcessKind, descendantPids, processArgv } from '../../bench/chromiumMemory.ts';

const CHROMIUM = '/usr/lib/chromium/chromium';

describe('Chromium memory by process kind', () => {
  it.each([
    [[CHROMIUM, '--headless', '--no-sandbox'], 'browser'],
    [[CHROMIUM, '--type=renderer', '--lang=en-US'], 'renderer'],
    [[CHROMIUM, '--type=gpu-process'], 'gpu-process'],
    [[CHROMIUM, '--type=utility', '--utility-sub-type=network.mojom.NetworkService'], 'utility (network.mojom.NetworkService)'],
    [[CHROMIUM, '--type=zygote'], 'zygote'],
    [['/usr/lib/chromium/chrome_crashpad_handler', '--monitor-self'], 'crashpad-handler'],
  ])('names %j a %s process', (argv, kind) => {
    expect(chromiumProcessKind(argv)).toBe(kind);
  });

  it('reads the arguments Chromium rewrote into one space-separated string, and plain NUL-separated ones', () => {
    expect(processArgv(`${CHROMIUM} --type=renderer --lang=en-US`)).toEqual([CHROMIUM, '--type=renderer', '--lang=en-US']);
    expect(processArgv('node\0-e\0a b\0')).toEqual(['node', '-e', 'a b']);
  });

  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'airlock-proc-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A fixture process: a stat line naming its parent (its command name holds a space and a ')'), its argv and memory. */
  const proc = (pid: number, parentPid: number, argv: string[], pssKiB: number, rssKiB: number): void => {
    const dir = join(root, String(pid));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'stat'), `${pid} (we ird) S ${parentPid} ${pid} 0 0\n`);
    // Chromium's own processes rewrite their cmdline into one space-separated string.
    writeFileSync(join(dir, 'cmdline'), argv[0] === CHROMIUM ? argv.join(' ') : `${argv.join('\0')}\0`);
    writeFileSync(join(dir, 'smaps_rollup'), `00400000-7fff [rollup]\nRss:     ${rssKiB} kB\nPss:     ${pssKiB} kB\nShared_Clean: 1 kB\n`);
  };

  it('finds the processes below a root at any depth, and none elsewhere', () => {
    proc(10, 1, ['node'], 1, 1);
    proc(20, 10, [CHROMIUM], 1, 1);
    proc(21, 20, [CHROMIUM, '--type=zygote'], 1, 1);
    proc(22, 21, [CHROMIUM, '--type=renderer'], 1, 1);
    proc(30, 1, [CHROMIUM], 1, 1);
    expect(descendantPids(10, root)).toEqual([20, 21, 22]);
  });

  it('sums PSS and RSS per kind over the Chromium processes only, skipping one that has ended', () => {
    proc(10, 1, ['node'], 50_000, 60_000);
    proc(20, 10, [CHROMIUM], 100, 400);
    proc(21, 20, [CHROMIUM, '--type=renderer'], 30, 90);
    proc(22, 20, [CHROMIUM, '--type=renderer'], 20, 80);
    proc(23, 10, ['/usr/bin/node', 'other.js'], 7_000, 9_000);
    proc(24, 20, [CHROMIUM, '--type=gpu-process'], 5, 50);
    mkdirSync(join(root, '25'));
    writeFileSync(join(root, '25', 'stat'), '25 (chromium) Z 20 25 0 0\n');
    const isChromium = (argv: readonly string[]): boolean => argv[0] === CHROMIUM;
    expect(chromiumMemoryByKind(10, isChromium, root)).toEqual([
      { kind: 'browser', pssBytes: 100 * 1024, rssBytes: 400 * 1024, each: [{ pid: 20, pssBytes: 100 * 1024, rssBytes: 400 * 1024 }] },
      { kind: 'gpu-process', pssBytes: 5 * 1024, rssBytes: 50 * 1024, each: [{ pid: 24, pssBytes: 5 * 1024, rssBytes: 50 * 1024 }] },
      {
        kind: 'renderer',
        pssBytes: 50 * 1024,
        rssBytes: 170 * 1024,
        each: [
          { pid: 21, pssBytes: 30 * 1024, rssBytes: 90 * 1024 },
          { pid: 22, pssBytes: 20 * 1024, rssBytes: 80 * 1024 },
        ],
      },
    ]);
  });
});
