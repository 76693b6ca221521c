import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../../proxy/forward/undiciAgent.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

describe("undici's Agent, loaded without undici's index", () => {
  it('is the class undici publishes', async () => {
    const undici = await import('undici');
    expect(Agent).toBe(undici.Agent);
  });

  it("leaves undici's index unloaded when the whole app's modules are", () => {
    // A process of its own: this one has loaded the index above. The app's entry imports every module
    // `airlock serve` runs with, the proxy's and the replay's included.
    const script = `
      import { createRequire } from 'node:module';
      await import(${JSON.stringify(resolve(ROOT, 'proxy/app/startAirlock.ts'))});
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('/node_modules/undici/'));
      process.stdout.write(JSON.stringify(loaded));
    `;
    const loaded = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }),
    ) as string[];
    expect(loaded).toContain(resolve(ROOT, 'node_modules/undici/lib/dispatcher/agent.js'));
    expect(loaded).not.toContain(resolve(ROOT, 'node_modules/undici/index.js'));
  });
});
