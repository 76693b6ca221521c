import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const FIXTURE = fileURLToPath(new URL('../integration/security/fixtures/airlockChild.ts', import.meta.url));
const START_TIMEOUT_MS = 20_000;
/** The child's control API token (its keychain is in memory, seeded with it). */
export const CHILD_CONTROL_TOKEN = 'alkc_child-control-token-for-tests-0123456789';

export interface AirlockChild {
  pid: number;
  port: number;
  /** Resolves with the exit code (null after a signal) once the process has exited and its output has been read. */
  exited: Promise<number | null>;
  /** What the child wrote to stderr so far. */
  stderr(): string;
}

/**
 * A real Airlock (startAirlock) in its own process, for tests that kill or stop it. `profile` sets
 * the profile's other fields (prices, budget) the first time a data directory is used.
 */
export function startAirlockChild(options: {
  dataDir: string;
  upstreamBaseUrl: string;
  clientToken: string;
  profile?: object;
  /** Set in the child's environment on top of this process's. */
  env?: Record<string, string>;
}): Promise<AirlockChild> {
  const args = [FIXTURE, options.dataDir, options.upstreamBaseUrl, options.clientToken];
  if (options.profile) args.push(JSON.stringify(options.profile));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close', not 'exit': by then its pipes are closed too, so stderr() holds all it wrote.
  const exited = once(child, 'close').then(([code]) => code as number | null);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the Airlock child did not start: ${stderr}`)), START_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      const port = /port (\d+)/.exec(chunk.toString())?.[1];
      if (port === undefined) return;
      clearTimeout(timer);
      resolve({ pid: child.pid!, port: Number(port), exited, stderr: () => stderr });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the Airlock child exited with ${code}: ${stderr}`));
    });
  });
}
