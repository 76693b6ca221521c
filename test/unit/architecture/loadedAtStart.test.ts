import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent, loadProxyClasses } from '../../../proxy/forward/undiciAgent.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

/**
 * What loading every module `airlock serve` runs with (the command line's program, which holds every
 * command, and the app) leaves loaded, read in a process of its own (this one has loaded more). Each
 * module kept out is heap the proxy holds all day for nothing. Paths are real paths, as the module
 * cache keys them (node_modules may be a link).
 */
function loadedByTheApp(): { files: string[]; builtins: string[] } {
  const script = `
    import { createRequire } from 'node:module';
    await import(${JSON.stringify(resolve(ROOT, 'proxy/app/cli/program.ts'))});
    await import(${JSON.stringify(resolve(ROOT, 'proxy/app/startAirlock.ts'))});
    const files = Object.keys(createRequire(import.meta.url).cache);
    process.stdout.write(JSON.stringify({ files, builtins: process.moduleLoadList }));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }));
}

describe("what the app's modules load", () => {
  const loaded = loadedByTheApp();

  it("takes undici's Agent from its own module, which is the class undici publishes, and leaves undici's index unloaded", async () => {
    const undici = await import('undici');
    expect(Agent).toBe(undici.Agent);
    const undiciDir = realpathSync(resolve(ROOT, 'node_modules/undici'));
    expect(loaded.files).toContain(resolve(undiciDir, 'lib/dispatcher/agent.js'));
    expect(loaded.files).not.toContain(resolve(undiciDir, 'index.js'));
  });

  it("loads undici's proxy agent only for a proxy", async () => {
    const undici = await import('undici');
    expect(loadProxyClasses()).toEqual({ EnvHttpProxyAgent: undici.EnvHttpProxyAgent, Pool: undici.Pool });
    const undiciDir = realpathSync(resolve(ROOT, 'node_modules/undici'));
    expect(loaded.files).not.toContain(resolve(undiciDir, 'lib/dispatcher/proxy-agent.js'));
  });

  it("leaves Node's bundled undici (fetch, WebSocket) unloaded", () => {
    expect(loaded.builtins).toContain('NativeModule http');
    expect(loaded.builtins).not.toContain('NativeModule internal/deps/undici/undici');
  });
});
