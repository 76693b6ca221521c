import { defineConfig } from 'vitest/config';

// The Electron smoke test needs the Electron binary and a working OS keychain, so it is not part
// of `npm test`; run it with `npm run test:electron` on a machine that has both.
export default defineConfig({
  test: {
    include: ['test/electron/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
