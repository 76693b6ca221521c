import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { LoopWatchReading } from './loopWatch.ts';

/** Node 24 from the devDependency: the system node is older. */
const NODE_BIN = resolve(import.meta.dirname, '../../node_modules/.bin/node');
const READY_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;

export interface ChildServer {
  pid: number;
  /** What the child printed after `listening on `. */
  url: string;
  /**
   * proxyServer.ts only: 'watch' starts watching the child's event loop, 'read' gives what it saw
   * since the last call and starts afresh, 'unwatch' gives it and stops.
   */
  eventLoop(action: 'watch' | 'read' | 'unwatch'): Promise<EventLoopDelay>;
  /** proxyServer.ts only: resolves once a logged Airlock's log thread wrote everything posted so far (at once for others). */
  flushLog(): Promise<void>;
  /** proxyServer.ts under --expose-gc only: the RSS it holds, read after collections and a trim (proxyServer.ts, collectAndReadRss). */
  collectAndReadRss(): Promise<number>;
  /** proxyServer.ts only: the main thread's `process.memoryUsage()`. */
  memoryUsage(): Promise<NodeJS.MemoryUsage>;
  /** proxyServer.ts only: writes a heap snapshot of the main thread to `file`. */
  heapSnapshot(file: string): Promise<void>;
  stop(): Promise<void>;
}

/** How late the child's event loop ran its timers (held by work, or by the OS), and what of that the loop held itself. */
export type EventLoopDelay = LoopWatchReading;

const LOOP_MESSAGES = { watch: 'watch-loop', read: 'read-loop', unwatch: 'unwatch-loop' } as const;

/**
 * Runs a bench server script in its own Node process (its own event loop and heap, so the load
 * generator and the upstream never compete with it inside one loop) and waits for its URL.
 */
export interface ChildOptions {
  nodeFlags?: readonly string[];
  /** Added to this process's environment. */
  env?: Record<string, string>;
}

export async function startChildServer(script: string, args: readonly string[], options: ChildOptions = {}): Promise<ChildServer> {
  const child = spawn(NODE_BIN, [...(options.nodeFlags ?? []), resolve(import.meta.dirname, script), ...args], {
    // The IPC channel carries only the event-loop delay question and its answer.
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, ...options.env },
  });
  const url = await readyUrl(child, script);
  const pid = child.pid as number;
  return {
    pid,
    url,
    eventLoop(action) {
      return new Promise((resolveDelay) => {
        child.once('message', (message) => resolveDelay(message as EventLoopDelay));
        child.send(LOOP_MESSAGES[action]);
      });
    },
    flushLog() {
      return new Promise((resolveFlush) => {
        child.once('message', () => resolveFlush());
        child.send('flush-log');
      });
    },
    collectAndReadRss() {
      return new Promise((resolveRss) => {
        child.once('message', (message) => resolveRss((message as { rssBytes: number }).rssBytes));
        child.send('collect-and-read-rss');
      });
    },
    memoryUsage() {
      return new Promise((resolveUsage) => {
        child.once('message', (message) => resolveUsage(message as NodeJS.MemoryUsage));
        child.send('memory');
      });
    },
    heapSnapshot(file) {
      return new Promise((resolveSnapshot) => {
        child.once('message', () => resolveSnapshot());
        child.send({ heapSnapshot: file });
      });
    },
    stop: () => stopProcess(child, STOP_TIMEOUT_MS),
  };
}

/** SIGTERM, then SIGKILL if the process has not ended after `killAfterMs`; resolves once it has ended. */
export async function stopProcess(child: ChildProcess, killAfterMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    // Said, because a killed server's own clean-up (a logged Airlock's log close) did not run.
    console.error(`[bench] pid ${child.pid} still running ${killAfterMs} ms after SIGTERM: killed`);
    child.kill('SIGKILL');
  }, killAfterMs);
  await exited;
  clearTimeout(timer);
}

function readyUrl(child: ChildProcess, script: string): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not print its URL within ${READY_TIMEOUT_MS} ms`));
    }, READY_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with code ${code} before it was ready`));
    });
    lines.on('line', (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match === null) return;
      clearTimeout(timer);
      resolveUrl(match[1] as string);
    });
  });
}
