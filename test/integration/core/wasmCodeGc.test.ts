import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

/**
 * Node 24's V8 (13.6) can free a Wasm-to-JS import wrapper twice: a thread tiering an import up
 * takes the process-wide cached wrapper even when a Wasm code GC is already freeing it, and the
 * process aborts with "Check failed: jit_page.has_value()" under ThreadIsolation::UnregisterWasmAllocation
 * (nodejs/node#66366; V8 fixed the lookup in 9b8ca54d5a, crbug 409379692, which 24.x does not have).
 * The tests hit it: each Airlock thread loads its .ts files through Node's WebAssembly type stripper,
 * and the wrappers the threads share die when a test stops them while the next test's threads tier
 * theirs up. The test processes therefore run with Wasm code GC off (vitest.config.ts).
 *
 * A thread makes the 1000th call to its import (the wrapper's tier-up) and ends, so the wrapper dies;
 * with --stress-wasm-code-gc that starts a code GC at once unless code GC is off.
 */
const WRAPPER_DIES_WITH_ITS_THREAD = `
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
// (module (import "e" "f" (func $f (param i32) (result i32)))
//   (func (export "r") (param $n i32) (result i32) (local $acc i32) calls $f $n times))
const thread = \`
const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,6,1,96,1,127,1,127,2,7,1,1,101,1,102,0,0,3,2,1,0,7,5,1,1,114,0,1,
  10,26,1,24,1,1,127,3,64,32,1,16,0,33,1,32,0,65,1,107,34,0,13,0,11,32,1,11]);
new WebAssembly.Instance(new WebAssembly.Module(bytes), { e: { f: (x) => x + 1 } }).exports.r(1001);
\`;
await once(new Worker(thread, { eval: true }), 'exit');
console.log('thread ended');
`;

describe('the test processes', () => {
  it("run without Wasm code GC, whose Node 24 bug aborts a test process that stops and starts Airlock's threads", async () => {
    const child = spawn(
      process.execPath,
      [...process.execArgv, '--stress-wasm-code-gc', '--trace-wasm-code-gc', '--input-type=module', '--eval', WRAPPER_DIES_WITH_ITS_THREAD],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    const [exitCode] = await once(child, 'exit');
    expect(exitCode).toBe(0);
    expect(output).toContain('thread ended');
    expect(output).not.toContain('[wasm-gc]');
  });
});
