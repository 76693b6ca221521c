import { defineConfig } from 'vitest/config';

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
          testTimeout: 30_000,
          hookTimeout: 30_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
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
