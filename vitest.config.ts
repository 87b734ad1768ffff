import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/unit/**/*.test.ts',
      'test/integration/**/*.test.ts',
      'test/process/**/*.test.ts',
      'test/dashboard/**/*.test.ts',
    ],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Test files share one redis-server, each on queues of its own; two at a time suits two cores.
    maxWorkers: 2,
  },
});
