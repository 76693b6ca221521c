import { defineConfig } from 'vitest/config';

/**
 * How long a test may wait for an event it polls for (a row written, a page shown) before it
 * fails. A bound for a hung wait, never a measure of speed: with both cores busy the log thread
 * and a child process starting take many times longer than idle.
 */
const EVENT_WAIT_LIMIT = { timeout: 30_000, interval: 50 };

/**
 * Node options of every test process. `--no-wasm-code-gc`: Node 24's V8 (13.6) can free a shared
 * Wasm-to-JS import wrapper twice when a thread tiers an import up while a Wasm code GC frees that
 * wrapper, and the process aborts ("Check failed: jit_page.has_value()", nodejs/node#66366, fixed in
 * V8 9b8ca54d5a, not in 24.x). Tests make it likely: every Airlock thread strips its .ts with
 * Node's WebAssembly stripper, and a test stops the threads while the next one's tier up. Without
 * code GC, dead Wasm code goes only with its module: nothing a test process notices.
 * test/integration/core/wasmCodeGc.test.ts checks the option reaches the test processes.
 */
const TEST_PROCESS_ARGS = ['--no-wasm-code-gc'];

// One project per kind of test (see DESIGN.md); `npm test` runs unit, integration and e2e here,
// and the keychain project inside a private D-Bus session (test/keychain/run.sh).
export default defineConfig({
  test: {
    // Vitest's default leaves a core free (one worker on two cores); test processes spend most of
    // their time waiting on the proxies, gateways and browsers they start, so every core runs a file.
    maxWorkers: '100%',
    projects: [
      {
        test: {
          name: 'unit',
          execArgv: TEST_PROCESS_ARGS,
          include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx'],
          environment: 'node',
          // Unit tests mock no modules and restore what they change (fake timers, temp dirs), so files
          // share their worker's module cache: a fresh module graph per file made 25 s of tests 173 s.
          isolate: false,
          // A hang guard, not a speed check: on two busy cores a test that moves a 1 MiB body through streams took 3.5-5.7 s.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          execArgv: TEST_PROCESS_ARGS,
          include: ['test/integration/**/*.test.ts'],
          expect: { poll: EVENT_WAIT_LIMIT },
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          execArgv: TEST_PROCESS_ARGS,
          include: ['test/e2e/**/*.test.ts'],
          expect: { poll: EVENT_WAIT_LIMIT },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'keychain',
          execArgv: TEST_PROCESS_ARGS,
          include: ['test/keychain/**/*.test.ts'],
          testTimeout: 30_000,
          // The files share one keyring daemon (test/support/withKeyring.sh) and its entries.
          fileParallelism: false,
        },
      },
    ],
  },
});
