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
import { APP_PHASES, measureAppMemory, mib, type AppMemoryPhase, type AppMemoryResults, type ProcessMemoryWithPss } from './appMemory.ts';
import { RESULTS_DIR } from './benchSettings.ts';

/** Set for the run that withKeyring.sh starts, so it does not start another. */
const IN_KEYRING_ENV = 'AIRLOCK_BENCH_IN_KEYRING';

export async function appMemoryOnly(log: (line: string) => void): Promise<void> {
  if (process.env[IN_KEYRING_ENV] !== '1') {
    const withKeyring = resolve(import.meta.dirname, '../support/withKeyring.sh');
    const run = spawn('bash', [withKeyring, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
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

const pssOf = (phase: AppMemoryPhase, kind: string): number => phase.chromium.find((entry) => entry.kind === kind)?.pssBytes ?? 0;
const chromiumPss = (phase: AppMemoryPhase): number => phase.chromium.reduce((sum, entry) => sum + entry.pssBytes, 0);
const renderersOf = (phase: AppMemoryPhase): { pid: number; pssBytes: number }[] =>
  phase.chromium.find((entry) => entry.kind === 'renderer')?.each ?? [];

/**
 * The app's main process is Chromium's browser process with Node and the proxy inside: at least the
 * browser's PSS plus serve's anonymous memory (Node's runtime and the proxy's heaps, malloc and
 * stacks), if Electron's binary stands in for serve's file-backed pages (Node's code); at most that
 * plus the file-backed pages serve holds above a bare Node (GLib, koffi, code the proxy touches).
 * The window's renderers are those the window's close ended; headless Chromium's others (a spare
 * it keeps for the next navigation) are shown apart.
 */
function estimateLine(label: string, phase: AppMemoryPhase, closed: AppMemoryPhase, bareNode: ProcessMemoryWithPss): string {
  const mainBytes = pssOf(phase, 'browser') + phase.proxy.anonBytes;
  const extraCodeBytes = Math.max(0, phase.proxy.fileBytes - bareNode.fileBytes);
  const stillRunning = new Set(renderersOf(closed).map((renderer) => renderer.pid));
  const renderers = renderersOf(phase);
  const windowBytes = renderers.filter((renderer) => !stillRunning.has(renderer.pid)).reduce((sum, renderer) => sum + renderer.pssBytes, 0);
  const otherRendererBytes = renderers.reduce((sum, renderer) => sum + renderer.pssBytes, 0) - windowBytes;
  const helperBytes = chromiumPss(phase) - pssOf(phase, 'browser') - windowBytes - otherRendererBytes;
  const low = mainBytes + windowBytes + helperBytes;
  const window = phase === closed ? '' : ` + the window's renderers ${mib(windowBytes)}`;
  return (
    `Estimate, ${label}: main process ${mib(mainBytes)}-${mib(mainBytes + extraCodeBytes)}${window} + GPU, utility and zygote processes ` +
    `${mib(helperBytes)} = ${mib(low)}-${mib(low + extraCodeBytes)} MB (headless Chromium's other renderers: ${mib(otherRendererBytes)})`
  );
}

/** The table (MB; Chromium's processes as PSS, so shared pages count once) and the estimate (estimateLine). */
export function formatAppMemory(result: AppMemoryResults): string {
  const kinds = [...new Set(result.phases.flatMap((phase) => phase.chromium.map((entry) => entry.kind)))];
  const header = ['phase', 'proxy RSS (anon / file)', 'proxy PSS', ...kinds.map((kind) => `Chromium ${kind}`), 'Chromium total'];
  const cell = (phase: AppMemoryPhase, kind: string): string => {
    const entry = phase.chromium.find((candidate) => candidate.kind === kind);
    if (entry === undefined) return '-';
    return entry.each.length === 1
      ? mib(entry.pssBytes)
      : `${mib(entry.pssBytes)} (${entry.each.map((each) => mib(each.pssBytes)).join(' + ')})`;
  };
  const rows = result.phases.map((phase) => [
    phase.phase,
    `${mib(phase.proxy.rssBytes)} (${mib(phase.proxy.anonBytes)} / ${mib(phase.proxy.fileBytes)})`,
    mib(phase.proxy.pssBytes),
    ...kinds.map((kind) => cell(phase, kind)),
    mib(chromiumPss(phase)),
  ]);
  const { bareNode } = result;
  const lines = [
    `The packaged app at rest, estimated (MB; Chromium ${result.chromiumVersion} headless, PSS per process kind)`,
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    `Bare Node 24 beside it: RSS ${mib(bareNode.rssBytes)} (anon ${mib(bareNode.anonBytes)} / file ${mib(bareNode.fileBytes)}), PSS ${mib(bareNode.pssBytes)}`,
  ];
  const phaseNamed = (name: string): AppMemoryPhase | undefined => result.phases.find((phase) => phase.phase === name);
  const atRest = phaseNamed(APP_PHASES.atRest);
  const open = phaseNamed(APP_PHASES.windowOpen);
  const closed = phaseNamed(APP_PHASES.windowClosed);
  if (atRest && open && closed) {
    lines.push(
      `The proxy's share (serve at rest less bare Node, RSS): ${mib(atRest.proxy.rssBytes - bareNode.rssBytes)}`,
      estimateLine('window open', open, closed, bareNode),
      estimateLine('window closed', closed, closed, bareNode),
    );
  }
  return lines.join('\n');
}
