import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests start real servers on fixed temp dirs/ports; files still run in parallel workers.
    pool: 'forks',
    reporters: ['default'],
  },
});
