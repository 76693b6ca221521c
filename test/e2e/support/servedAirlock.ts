import path from 'node:path';
import { DEFAULT_UI_DIR } from '../../../proxy/app/control/staticUi.ts';
import { type Airlock, startAirlock } from '../../../proxy/app/startAirlock.ts';
import { CONTROL_TOKEN_ACCOUNT } from '../../../proxy/contracts/secretStore.ts';
import { CONTROL_TOKEN } from '../../support/controlHarness.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';

/**
 * Airlock as `airlock serve` runs it on `dataDir()` and the window's build, started again on the same
 * port by the tests that restart it under an open window; the keychain holds the control token only.
 */
export function servedAirlock(dataDir: () => string): {
  start(port: number): Promise<Airlock>;
  /** The control API as the window calls it: JSON in and out, a failure thrown with its status and text. */
  api<T>(running: Airlock, pathAndQuery: string, method?: string, body?: unknown): Promise<T>;
} {
  const secrets = memorySecretStore({ [CONTROL_TOKEN_ACCOUNT]: CONTROL_TOKEN });
  return {
    start: (port) =>
      startAirlock({ dataDir: dataDir(), port, env: {}, secrets, homeDir: path.join(dataDir(), 'home'), uiDir: DEFAULT_UI_DIR }),
    async api<T>(running: Airlock, pathAndQuery: string, method = 'GET', body?: unknown): Promise<T> {
      const response = await fetch(`${running.proxy.url}/_airlock/api${pathAndQuery}`, {
        method,
        headers: { authorization: `Bearer ${CONTROL_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${pathAndQuery}: ${response.status} ${text}`);
      return (text === '' ? undefined : JSON.parse(text)) as T;
    },
  };
}
