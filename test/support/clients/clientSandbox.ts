import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh home and working directory for one CLI run: no user config, history or credentials leak in. */
export interface ClientSandbox {
  homeDir: string;
  workDir: string;
  remove(): Promise<void>;
}

export async function createClientSandbox(label: string): Promise<ClientSandbox> {
  const rootDir = await mkdtemp(join(tmpdir(), `airlock-${label}-`));
  const homeDir = join(rootDir, 'home');
  const workDir = join(rootDir, 'work');
  await mkdir(homeDir);
  await mkdir(workDir);
  return { homeDir, workDir, remove: () => rm(rootDir, { recursive: true, force: true }) };
}

/**
 * Nothing listens on the discard port of the loopback address, so a client that tries to reach
 * anything but 127.0.0.1 through its proxy settings fails at once instead of leaving the machine.
 */
const UNREACHABLE_PROXY_URL = 'http://127.0.0.1:9';

/**
 * A minimal environment built from scratch rather than inherited, so the developer's own keys,
 * base URLs and config directories never reach the CLI under test.
 */
export function offlineClientEnv(homeDir: string, clientVariables: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: homeDir,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    HTTP_PROXY: UNREACHABLE_PROXY_URL,
    HTTPS_PROXY: UNREACHABLE_PROXY_URL,
    ALL_PROXY: UNREACHABLE_PROXY_URL,
    NO_PROXY: '127.0.0.1,localhost',
    ...clientVariables,
  };
}
