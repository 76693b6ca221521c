import { defineConfig } from 'vitest/config';

/**
 * How long a test may wait for an event it polls for (a row written, a page shown) before it
 * fails. A bound for a hung wait, never a measure of speed: with both cores busy the log thread
 * and a child process starting take many times longer than idle.
 */
const EVENT_WAIT_LIMIT = { timeout: 30_000, interval: 50 };

// One project per kind of test (see DESIGN.md); `npm test` runs unit, integration and e2e here,
// and the keychain project inside a private D-Bus session (test/keychain/run.sh).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx'],
          environment: 'node',
          // Unit tests mock no modules and restore what they change (fake timers, temp dirs), so files
          // share their worker's module cache: a fresh module graph per file made 25 s of tests 173 s.
          isolate: false,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          expect: { poll: EVENT_WAIT_LIMIT },
          testTimeout: 30_000,
          hookTimeout: 30_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          expect: { poll: EVENT_WAIT_LIMIT },
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'keychain',
          include: ['test/keychain/**/*.test.ts'],
          testTimeout: 30_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
