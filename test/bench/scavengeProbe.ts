/**
 * What Airlock's heaps keep through young-generation collections under small requests (issue 20;
 * DESIGN.md, "What the log's queue costs the collector"), run by hand:
 *   node test/bench/scavengeProbe.ts [--concurrency 4] [--requests 20000] [--no-log]
 * Airlock starts as the bench starts it, beside the bench's upstream, under `--trace-gc-nvp`; after
 * a warm-up, the requests run and each isolate's scavenges (pause, bytes that survived, bytes
 * promoted: medians) and Mark-Compacts are printed with the CPU per request of each thread.
 * The forwarding thread's isolate is the one with most scavenges.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { GLIBC_MALLOC_ENV } from '../../proxy/app/cli/glibcMalloc.ts';
import { SERVE_V8_FLAGS } from '../../proxy/app/cli/v8Flags.ts';
import { startChildServer } from './childServer.ts';
import { createPool, runChatLoad } from './load.ts';
import { median } from './stats.ts';
import { threadCpuMs } from './threadCpu.ts';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '4' },
    requests: { type: 'string', default: '20000' },
    'no-log': { type: 'boolean', default: false },
  },
});
const concurrency = Number(values.concurrency);
const requests = Number(values.requests);
const WARM_UP_REQUESTS = 4_000;
const MAX_RUN_MS = 60_000;
const READY_POLLS = 400;

interface IsolateGc {
  scavengePauseMs: number[];
  survivedKb: number[];
  promotedKb: number[];
  markCompactPauseMs: number[];
}

/** `--trace-gc-nvp` lines by isolate (the address each line starts with). */
function gcByIsolate(trace: string): Map<string, IsolateGc> {
  const byIsolate = new Map<string, IsolateGc>();
  for (const line of trace.split('\n')) {
    const isolate = /^\[\d+:(0x[0-9a-f]+)(?::\d+)?\]/.exec(line)?.[1];
    if (isolate === undefined) continue;
    const fields = new Map([...line.matchAll(/(\w+)=([\w.]+)/g)].map((match) => [match[1], match[2]]));
    let gc = byIsolate.get(isolate);
    if (gc === undefined) {
      gc = { scavengePauseMs: [], survivedKb: [], promotedKb: [], markCompactPauseMs: [] };
      byIsolate.set(isolate, gc);
    }
    const pauseMs = Number(fields.get('pause'));
    if (fields.get('gc') === 's') {
      gc.scavengePauseMs.push(pauseMs);
      gc.survivedKb.push(Number(fields.get('new_space_survived')) / 1024);
      gc.promotedKb.push(Number(fields.get('promoted')) / 1024);
    } else if (fields.get('gc') === 'mc') gc.markCompactPauseMs.push(pauseMs);
  }
  return byIsolate;
}

const upstream = await startChildServer('upstreamServer.ts', []);
const workDir = mkdtempSync(join(tmpdir(), 'airlock-scavenge-probe-'));
const tracePath = join(workDir, 'gc-trace.txt');
const airlock = spawn(
  resolve(import.meta.dirname, '../../node_modules/.bin/node'),
  [
    ...SERVE_V8_FLAGS,
    '--trace-gc-nvp',
    resolve(import.meta.dirname, 'proxyServer.ts'),
    '--kind',
    'airlock',
    ...(values['no-log'] ? [] : ['--log', '--log-dir', join(workDir, 'log')]),
    '--upstream',
    upstream.url,
  ],
  { stdio: ['ignore', openSync(tracePath, 'w'), 'inherit'], env: { ...process.env, ...GLIBC_MALLOC_ENV } },
);
try {
  let url: string | undefined;
  for (let poll = 0; poll < READY_POLLS && url === undefined; poll += 1) {
    await delay(50);
    url = /listening on (\S+)/.exec(readFileSync(tracePath, 'utf8'))?.[1];
  }
  if (url === undefined) throw new Error('Airlock did not say where it listens');
  const pool = createPool(url, concurrency);
  await runChatLoad({ pool, concurrency, count: WARM_UP_REQUESTS, maxMs: MAX_RUN_MS });
  const pid = airlock.pid as number;
  const cpuBefore = threadCpuMs(pid);
  const traceOffset = readFileSync(tracePath, 'utf8').length;
  const run = await runChatLoad({ pool, concurrency, count: requests, maxMs: MAX_RUN_MS });
  const cpuAfter = threadCpuMs(pid);
  await pool.close();
  const done = run.latenciesMs.length;
  const usPerRequest = (name: string): number => ((cpuAfter[name] ?? 0) - (cpuBefore[name] ?? 0)) * (1000 / done);
  const threads = Object.keys(cpuAfter).filter((name) => usPerRequest(name) >= 0.5);
  const totalUs = threads.reduce((sum, name) => sum + usPerRequest(name), 0);
  console.log(
    `${done} requests at c=${concurrency}, ${run.requestsPerSecond.toFixed(0)} a second, ${run.failures} failed; ` +
      `CPU a request ${totalUs.toFixed(1)} us: ${threads.map((name) => `${name} ${usPerRequest(name).toFixed(1)}`).join(', ')}`,
  );
  const isolates = [...gcByIsolate(readFileSync(tracePath, 'utf8').slice(traceOffset)).entries()].sort(
    ([, a], [, b]) => b.scavengePauseMs.length - a.scavengePauseMs.length,
  );
  for (const [isolate, gc] of isolates)
    console.log(
      `isolate ${isolate}: ${gc.scavengePauseMs.length} scavenges, pause ${median(gc.scavengePauseMs).toFixed(2)} ms, ` +
        `survived ${median(gc.survivedKb).toFixed(0)} KB, promoted ${median(gc.promotedKb).toFixed(0)} KB (medians); ` +
        `Mark-Compacts ${gc.markCompactPauseMs.length}${gc.markCompactPauseMs.length === 0 ? '' : ` (${gc.markCompactPauseMs.map((ms) => ms.toFixed(1)).join(', ')} ms)`}`,
    );
} finally {
  airlock.kill('SIGTERM');
  // A child already ended by a signal has a signalCode and no exitCode: waiting for its exit would never end.
  if (airlock.exitCode === null && airlock.signalCode === null) await once(airlock, 'exit');
  await upstream.stop();
  rmSync(workDir, { recursive: true, force: true });
}
