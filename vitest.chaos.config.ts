import { defineConfig } from 'vitest/config';

/** `npm run test:chaos`: one scenario at a time, each with its own redis-server and supervisor. */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
