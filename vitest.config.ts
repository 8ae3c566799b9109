import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/GlobalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Test files share a worker's loaded modules: importing the platform anew for each of the 90
    // files cost about three minutes of the suite. Every file builds its own platform on its own
    // database, so nothing of one file's state is another's.
    isolate: false,
    maxWorkers: 2,
    sequence: { concurrent: false }
  }
})
