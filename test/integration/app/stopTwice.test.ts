import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAirlock } from '../../../proxy/app/startAirlock.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-stop-twice-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('stopping Airlock twice', () => {
  // `airlock serve` stops on SIGINT and on SIGTERM: a Ctrl-C followed by a service manager's TERM
  // stops it twice, and a failed stop exits with 1 at once, cutting the first stop's drain short.
  it('is one stop: both calls get its report, and the data directory can be taken again after it', async () => {
    const airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore() });
    const stops = await Promise.allSettled([airlock.stop({ drainMs: 0 }), airlock.stop({ drainMs: 0 })]);
    expect(stops.map((stop) => stop.status)).toEqual(['fulfilled', 'fulfilled']);
    const [first, second] = stops as PromiseFulfilledResult<unknown>[];
    expect(second?.value).toBe(first?.value);

    const next = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore() });
    await next.stop();
  });
});
