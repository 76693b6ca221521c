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
import { createServer } from 'node:net';
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

const NODE_BIN = resolve(import.meta.dirname, '../../node_modules/.bin/node');
const AIRLOCK_CLI = resolve(import.meta.dirname, '../../proxy/app/cli/main.ts');
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];
const START_TIMEOUT_MS = 30_000;
/** Requests logged before the window opens (its list is filled), and again while it shows them live. */
const LOGGED_REQUESTS = 200;
/** How long the window's renderer is left to finish its work (layout, charts, the live list) before a read. */
const WINDOW_SETTLE_MS = 10_000;
const RENDERER_EXIT_TIMEOUT_MS = 15_000;

export interface AppMemoryPhase {
  phase: string;
  /** `airlock serve`'s process (PSS and its RSS split). */
  proxy: ProcessMemory & { pssBytes: number };
  chromium: ProcessKindMemory[];
}

export interface AppMemoryResults {
  /** A bare Node 24 process (`setInterval` only) read beside the proxy at rest: what Node alone holds. */
  bareNode: ProcessMemory & { pssBytes: number };
  phases: AppMemoryPhase[];
  chromiumVersion: string;
}

interface Spawned {
  child: ChildProcess;
  lines: AsyncIterableIterator<string>;
}

function spawnNode(args: readonly string[], env: NodeJS.ProcessEnv): Spawned {
  const child = spawn(NODE_BIN, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
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

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

function withPss(pid: number): ProcessMemory & { pssBytes: number } {
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

/** Debian's wrapper script execs /usr/lib/chromium/chromium; its crash handler is a process of the tree too. */
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
  const browser = { close: async (): Promise<void> => {} };
  try {
    const tokenCli = spawnNode([AIRLOCK_CLI, '--data-dir', dataDir, 'token', 'create', 'bench'], env);
    const [token] = await lineMatching(tokenCli, /^alk_\S+$/, 'airlock token create');
    await once(tokenCli.child, 'exit');
    // The burst guard would pause a client sending the bench's requests back to back.
    const limitsCli = spawnNode(
      [AIRLOCK_CLI, '--data-dir', dataDir, 'limits', '--requests-per-minute', '100000', '--credits-per-minute', '100000'],
      env,
    );
    const [limitsExit] = (await once(limitsCli.child, 'exit')) as [number | null];
    if (limitsExit !== 0) throw new Error(`airlock limits exited with code ${limitsExit}`);

    const serveArgs = async (): Promise<string[]> => [
      AIRLOCK_CLI,
      '--data-dir',
      dataDir,
      'serve',
      '--port',
      String(await freePort()),
      '--base-url',
      `${upstreamUrl}/v1`,
    ];
    const warmUp = spawnNode(await serveArgs(), env);
    await lineMatching(warmUp, /Window \(opens signed in/, 'airlock serve');
    await stopChild(warmUp.child);

    const serve = spawnNode(await serveArgs(), env);
    started.push(serve.child);
    const [, baseUrl] = await lineMatching(serve, /Airlock is serving on (http:\/\/\S+)/, 'airlock serve');
    const [, loginUrl] = await lineMatching(serve, /Window \(opens signed in[^:]*: (http:\/\/\S+)/, 'airlock serve');
    const bare = spawnNode(['-e', 'console.log("ready"); setInterval(() => {}, 1 << 30);'], env);
    started.push(bare.child);
    await lineMatching(bare, /^ready$/, 'bare node');

    const phases: AppMemoryPhase[] = [];
    const servePid = serve.child.pid as number;
    const read = (phase: string): void => {
      const reading = { phase, proxy: withPss(servePid), chromium: chromiumMemoryByKind(process.pid, isChromium) };
      phases.push(reading);
      log(`  ${phase}: proxy ${mib(reading.proxy.rssBytes)} MB RSS, Chromium ${mib(sumPss(reading.chromium))} MB PSS`);
    };

    log(`  ${LOGGED_REQUESTS} chats through airlock serve, then ${RSS_SETTLE_AFTER_LOAD_MS / 1000} s at rest...`);
    await sendChats(baseUrl as string, token as string, LOGGED_REQUESTS);
    await delay(RSS_SETTLE_AFTER_LOAD_MS);
    const bareNode = withPss(bare.child.pid as number);
    read('proxy at rest, no browser');

    const chromiumBrowser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_FLAGS });
    browser.close = () => chromiumBrowser.close();
    const chromiumVersion = chromiumBrowser.version();
    const context = await chromiumBrowser.newContext({ viewport: { width: 1400, height: 900 } });
    await delay(WINDOW_SETTLE_MS);
    read('browser started, no window');

    const page = await context.newPage();
    await page.goto(loginUrl as string);
    await page.locator('.request-row').first().waitFor();
    await delay(WINDOW_SETTLE_MS);
    read('window open on the request list');

    await sendChats(baseUrl as string, token as string, LOGGED_REQUESTS);
    await delay(WINDOW_SETTLE_MS);
    read(`window open, after ${LOGGED_REQUESTS} more requests shown live`);

    const renderers = chromiumMemoryByKind(process.pid, isChromium).find((kind) => kind.kind === 'renderer')?.processes ?? 0;
    await page.close();
    await waitForRendererCount(renderers - 1);
    read('window closed (renderer ended)');

    await delay(RSS_SETTLE_AFTER_LOAD_MS);
    read(`window closed, ${RSS_SETTLE_AFTER_LOAD_MS / 1000} s later`);
    return { bareNode, phases, chromiumVersion };
  } finally {
    await browser.close();
    await Promise.all(started.map(stopChild));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Waits (polling /proc, bounded) until the tree has at most `count` renderer processes. */
async function waitForRendererCount(count: number): Promise<void> {
  const deadline = performance.now() + RENDERER_EXIT_TIMEOUT_MS;
  while (performance.now() < deadline) {
    const renderers = chromiumMemoryByKind(process.pid, isChromium).find((kind) => kind.kind === 'renderer')?.processes ?? 0;
    if (renderers <= count) return;
    await delay(100);
  }
  throw new Error(`the window's renderer process did not end within ${RENDERER_EXIT_TIMEOUT_MS} ms of closing it`);
}

const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
const sumPss = (kinds: readonly ProcessKindMemory[]): number => kinds.reduce((sum, kind) => sum + kind.pssBytes, 0);
