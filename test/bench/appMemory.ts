/**
 * `npm run bench -- --only app`: an estimate of the packaged app's memory at rest from what runs
 * here (no Electron binary, no display). The app is Electron's main process (Chromium's browser
 * process with Node inside, running the proxy) plus, while the window is open, a renderer for the
 * React build and Chromium's helper processes. Measured in one run:
 * - the proxy as `airlock serve` runs it (log on, a client token, its own restart with glibc's and
 *   V8's settings), with a bare Node process beside it: the proxy's share is the difference;
 * - headless Chromium (Debian's, the e2e tests' flags) by process kind, first with no window, then
 *   with the same React build open on serve's window URL (signed in, the request list filled and
 *   live traffic shown), then with the window closed again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { chromiumMemoryByKind, readSharedMemory, type ProcessKindMemory } from './chromiumMemory.ts';
import { readProcessMemory, type ProcessMemory } from './processMemory.ts';
import { CHAT_BODY, CHAT_PATH } from './load.ts';
import { RSS_SETTLE_AFTER_LOAD_MS } from './issueTable.ts';
import { SENTINEL_KEY } from '../support/sentinel.ts';
import { DEFAULT_UI_DIR } from '../../proxy/app/control/staticUi.ts';
import { stopProcess } from './childServer.ts';
import { freePort } from '../support/freePort.ts';

const NODE_BIN = resolve(import.meta.dirname, '../../node_modules/.bin/node');
const AIRLOCK_CLI = resolve(import.meta.dirname, '../../proxy/app/cli/main.ts');
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];
const START_TIMEOUT_MS = 30_000;
/** serve drains its streams for up to 5 s on SIGTERM. */
const STOP_TIMEOUT_MS = 10_000;
/** Requests logged before the window opens (its list is filled), and again while it shows them live. */
const LOGGED_REQUESTS = 200;
/** How long Chromium is left to finish its work (layout, charts, the live list, ending a closed window's processes) before a read. */
const WINDOW_SETTLE_MS = 10_000;

/** The phases read, in order; the report finds them by these names. */
export const APP_PHASES = {
  atRest: `proxy at rest (${RSS_SETTLE_AFTER_LOAD_MS / 1000} s after ${LOGGED_REQUESTS} requests), no browser`,
  browserOnly: 'browser started, no window',
  windowOpen: 'window open on the request list',
  windowLive: `window open, ${WINDOW_SETTLE_MS / 1000} s after ${LOGGED_REQUESTS} more requests shown live`,
  windowClosed: `window closed, ${WINDOW_SETTLE_MS / 1000} s later`,
  windowClosedLater: `window closed, ${(WINDOW_SETTLE_MS + RSS_SETTLE_AFTER_LOAD_MS) / 1000} s later`,
} as const;

export type ProcessMemoryWithPss = ProcessMemory & { pssBytes: number };

export interface AppMemoryPhase {
  phase: string;
  /** `airlock serve`'s process. */
  proxy: ProcessMemoryWithPss;
  chromium: ProcessKindMemory[];
}

export interface AppMemoryResults {
  /** A bare Node 24 process (`setInterval` only) read beside the proxy at rest: what Node alone holds. */
  bareNode: ProcessMemoryWithPss;
  phases: AppMemoryPhase[];
  chromiumVersion: string;
}

interface Spawned {
  child: ChildProcess;
  lines: AsyncIterableIterator<string>;
}

/** Starts Node 24 on `args`, noting the child in `started` so that the scenario ends it whatever happens. */
function spawnNode(args: readonly string[], env: NodeJS.ProcessEnv, started: ChildProcess[]): Spawned {
  const child = spawn(NODE_BIN, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  started.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  return { child, lines };
}

/** Reads the child's output until a line matches, failing on exit or after START_TIMEOUT_MS. */
async function lineMatching(spawned: Spawned, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  const deadline = AbortSignal.timeout(START_TIMEOUT_MS);
  while (!deadline.aborted) {
    const next = await Promise.race([spawned.lines.next(), once(deadline, 'abort').then(() => null)]);
    if (next === null) break;
    if (next.done) throw new Error(`${what} exited (code ${spawned.child.exitCode}) before printing ${pattern}`);
    const match = pattern.exec(next.value);
    if (match !== null) return match;
  }
  throw new Error(`${what} did not print ${pattern} within ${START_TIMEOUT_MS} ms`);
}

async function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}

function withPss(pid: number): ProcessMemoryWithPss {
  return { ...readProcessMemory(pid), pssBytes: readSharedMemory(pid)?.pssBytes ?? Number.NaN };
}

async function sendChats(baseUrl: string, token: string, count: number): Promise<void> {
  for (let sent = 0; sent < count; sent += 1) {
    const response = await fetch(`${baseUrl}${CHAT_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: CHAT_BODY,
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`a chat through airlock serve answered ${response.status}: ${text}`);
  }
}

/** Debian's wrapper script execs /usr/lib/chromium/chromium; a crash handler would be Chromium's too. */
const isChromium = (argv: readonly string[]): boolean => /\/chrom(e|ium)[^/]*$/.test(argv[0] ?? '');

/**
 * Runs the scenario against an upstream at `upstreamUrl` (its root). `log` prints progress.
 * Starts `airlock serve` twice: the first start fills Node's compile cache, as any start after the
 * first after an update has it.
 */
export async function measureAppMemory(upstreamUrl: string, log: (line: string) => void): Promise<AppMemoryResults> {
  if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('Build the window first: npm run build:renderer');
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-app-memory-'));
  const env = { ...process.env, AIRLOCK_API_KEY: SENTINEL_KEY };
  const started: ChildProcess[] = [];
  let closeBrowser = async (): Promise<void> => {};
  const cli = (args: readonly string[]): Spawned => spawnNode([AIRLOCK_CLI, '--data-dir', dataDir, ...args], env, started);
  try {
    const tokenCli = cli(['token', 'create', 'bench']);
    const [token] = await lineMatching(tokenCli, /^alk_\S+$/, 'airlock token create');
    if ((await exitCode(tokenCli.child)) !== 0) throw new Error('airlock token create failed');
    // The burst guard would pause a client sending the bench's requests back to back.
    const limitsCli = cli(['limits', '--requests-per-minute', '100000', '--credits-per-minute', '100000']);
    if ((await exitCode(limitsCli.child)) !== 0) throw new Error('airlock limits failed');

    const serveArgs = async (): Promise<string[]> => ['serve', '--port', String(await freePort()), '--base-url', `${upstreamUrl}/v1`];
    const warmUp = cli(await serveArgs());
    await lineMatching(warmUp, /Window \(opens signed in/, 'airlock serve');
    await stopProcess(warmUp.child, STOP_TIMEOUT_MS);

    const serve = cli(await serveArgs());
    const [, baseUrl] = await lineMatching(serve, /Airlock is serving on (http:\/\/\S+)/, 'airlock serve');
    const [, loginUrl] = await lineMatching(serve, /Window \(opens signed in[^:]*: (http:\/\/\S+)/, 'airlock serve');
    const bare = spawnNode(['-e', 'console.log("ready"); setInterval(() => {}, 1 << 30);'], env, started);
    await lineMatching(bare, /^ready$/, 'bare node');

    const phases: AppMemoryPhase[] = [];
    const servePid = serve.child.pid as number;
    const read = (phase: string): void => {
      const reading = { phase, proxy: withPss(servePid), chromium: chromiumMemoryByKind(process.pid, isChromium) };
      phases.push(reading);
      const chromiumPssBytes = reading.chromium.reduce((sum, kind) => sum + kind.pssBytes, 0);
      log(`  ${phase}: proxy ${mib(reading.proxy.rssBytes)} MB RSS, Chromium ${mib(chromiumPssBytes)} MB PSS`);
    };

    log(`  ${LOGGED_REQUESTS} chats through airlock serve, then ${RSS_SETTLE_AFTER_LOAD_MS / 1000} s at rest...`);
    await sendChats(baseUrl as string, token as string, LOGGED_REQUESTS);
    await delay(RSS_SETTLE_AFTER_LOAD_MS);
    const bareNode = withPss(bare.child.pid as number);
    read(APP_PHASES.atRest);

    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_FLAGS });
    closeBrowser = () => browser.close();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await delay(WINDOW_SETTLE_MS);
    read(APP_PHASES.browserOnly);

    const page = await context.newPage();
    await page.goto(loginUrl as string);
    await page.locator('.request-row').first().waitFor();
    await delay(WINDOW_SETTLE_MS);
    read(APP_PHASES.windowOpen);

    await sendChats(baseUrl as string, token as string, LOGGED_REQUESTS);
    await delay(WINDOW_SETTLE_MS);
    read(APP_PHASES.windowLive);

    await page.close();
    await delay(WINDOW_SETTLE_MS);
    read(APP_PHASES.windowClosed);
    await delay(RSS_SETTLE_AFTER_LOAD_MS);
    read(APP_PHASES.windowClosedLater);
    return { bareNode, phases, chromiumVersion: browser.version() };
  } finally {
    await closeBrowser();
    await Promise.all(started.map((child) => stopProcess(child, STOP_TIMEOUT_MS)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
