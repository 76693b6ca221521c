/**
 * `npm run bench -- --only app`: runs appMemory.ts's scenario in a private keyring session (the
 * proxy keeps client tokens and keys there, as on a desktop), prints its table and the estimate,
 * and writes test-results/bench-app-memory.json.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { startChildServer } from './childServer.ts';
import { measureAppMemory, type AppMemoryPhase, type AppMemoryResults } from './appMemory.ts';
import { RESULTS_DIR } from './benchSettings.ts';

/** Set for the run that withKeyring.sh starts, so it does not start another. */
const IN_KEYRING_ENV = 'AIRLOCK_BENCH_IN_KEYRING';

export async function appMemoryOnly(log: (line: string) => void): Promise<void> {
  if (process.env[IN_KEYRING_ENV] !== '1') {
    const withKeyring = resolve(import.meta.dirname, '../support/withKeyring.sh');
    const run = spawn('bash', [withKeyring, process.execPath, ...process.argv.slice(1)], {
      stdio: 'inherit',
      env: { ...process.env, [IN_KEYRING_ENV]: '1' },
    });
    const [code] = (await once(run, 'exit')) as [number | null];
    process.exitCode = code ?? 1;
    return;
  }
  log('the packaged app at rest, estimated');
  const upstream = await startChildServer('upstreamServer.ts', ['--chunk-interval-ms', '0']);
  let result: AppMemoryResults;
  try {
    result = await measureAppMemory(upstream.url, log);
  } finally {
    await upstream.stop();
  }
  console.log(formatAppMemory(result));
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = resolve(RESULTS_DIR, 'bench-app-memory.json');
  writeFileSync(file, `${JSON.stringify({ generatedAt: new Date().toISOString(), loadavg: loadavg(), result }, null, 2)}\n`);
  log(`done; results in ${file}`);
}

/**
 * The app's main process is Chromium's browser process with Node and the proxy inside: the
 * browser's PSS plus serve's anonymous memory (Node's runtime and the proxy's heaps, malloc and
 * stacks; serve's file-backed pages are Node's binary, which Electron's own binary replaces). An
 * open window is one renderer, the largest; headless Chromium's other renderers (a spare it keeps
 * for the next navigation) are shown apart.
 */
function estimateLine(label: string, phase: AppMemoryPhase, windowOpen: boolean): string {
  const main = pssOf(phase, 'browser') + phase.proxy.anonBytes;
  const renderers = phase.chromium.find((entry) => entry.kind === 'renderer')?.eachPssBytes ?? [];
  const windowRenderer = windowOpen ? (renderers[0] ?? 0) : 0;
  const otherRenderers = renderers.reduce((sum, bytes) => sum + bytes, 0) - windowRenderer;
  const helpers = chromiumPss(phase) - pssOf(phase, 'browser') - windowRenderer - otherRenderers;
  const total = main + windowRenderer + helpers;
  const window = windowOpen ? ` + the window's renderer ${mb(windowRenderer)}` : '';
  return `Estimate, ${label} main process ${mb(main)}${window} + GPU, utility and zygote processes ${mb(helpers)} = ${mb(total)} MB (headless Chromium's other renderers: ${mb(otherRenderers)})`;
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
const pssOf = (phase: AppMemoryPhase, kind: string): number => phase.chromium.find((entry) => entry.kind === kind)?.pssBytes ?? 0;
const chromiumPss = (phase: AppMemoryPhase): number => phase.chromium.reduce((sum, entry) => sum + entry.pssBytes, 0);

/** The table (MB; Chromium's processes as PSS, so shared pages count once) and the estimate (estimateLine). */
export function formatAppMemory(result: AppMemoryResults): string {
  const kinds = [...new Set(result.phases.flatMap((phase) => phase.chromium.map((entry) => entry.kind)))];
  const header = ['phase', 'proxy RSS (anon / file)', 'proxy PSS', ...kinds.map((kind) => `Chromium ${kind}`), 'Chromium total'];
  const cell = (phase: AppMemoryPhase, kind: string): string => {
    const entry = phase.chromium.find((candidate) => candidate.kind === kind);
    if (entry === undefined) return '-';
    return entry.processes === 1 ? mb(entry.pssBytes) : `${mb(entry.pssBytes)} (${entry.eachPssBytes.map(mb).join(' + ')})`;
  };
  const rows = result.phases.map((phase) => [
    phase.phase,
    `${mb(phase.proxy.rssBytes)} (${mb(phase.proxy.anonBytes)} / ${mb(phase.proxy.fileBytes)})`,
    mb(phase.proxy.pssBytes),
    ...kinds.map((kind) => cell(phase, kind)),
    mb(chromiumPss(phase)),
  ]);
  const lines = [
    `The packaged app at rest, estimated (MB; Chromium ${result.chromiumVersion} headless, PSS per process kind)`,
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    `Bare Node 24 beside it: RSS ${mb(result.bareNode.rssBytes)} (anon ${mb(result.bareNode.anonBytes)} / file ${mb(result.bareNode.fileBytes)}), PSS ${mb(result.bareNode.pssBytes)}`,
  ];
  const atRest = result.phases[0];
  const open = result.phases.find((phase) => phase.phase.startsWith('window open on'));
  const closed = result.phases.at(-1);
  if (atRest && open && closed) {
    const share = atRest.proxy.rssBytes - result.bareNode.rssBytes;
    lines.push(
      `The proxy's share (serve at rest less bare Node, RSS): ${mb(share)}`,
      estimateLine('window open:  ', open, true),
      estimateLine('window closed:', closed, false),
    );
  }
  return lines.join('\n');
}
