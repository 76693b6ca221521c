import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConnectService } from '../../../../proxy/app/connect/connectService.ts';
import { openConfigStore, type ConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';

export const PROXY_URL = 'http://127.0.0.1:8642';

/** A ConnectService over a temporary HOME and data directory, with a clock that moves a second per call. */
export interface ConnectHarness {
  root: string;
  homeDir: string;
  dataDir: string;
  store: ConfigStore;
  secrets: ReturnType<typeof memorySecretStore>;
  service: ConnectService;
  writeHome(relative: string, text: string): string;
  close(): void;
}

/** `env` is the environment connect runs in (its proxy variables decide the tools' NO_PROXY). */
export function connectHarness(env: NodeJS.ProcessEnv = {}): ConnectHarness {
  const root = mkdtempSync(path.join(tmpdir(), 'airlock-connect-'));
  const homeDir = path.join(root, 'home');
  const dataDir = path.join(root, 'data');
  mkdirSync(homeDir);
  mkdirSync(dataDir);
  const store = openConfigStore(dataDir);
  const secrets = memorySecretStore();
  let clock = Date.UTC(2026, 10, 26, 1, 2, 3);
  const service = new ConnectService({
    homeDir,
    env,
    dataDir,
    config: store,
    secrets,
    proxyUrl: () => PROXY_URL,
    nowMs: () => (clock += 1000),
  });
  return {
    root,
    homeDir,
    dataDir,
    store,
    secrets,
    service,
    writeHome(relative, text) {
      const file = path.join(homeDir, relative);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    close() {
      store.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
