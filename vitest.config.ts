import { defineConfig } from "vitest/config"

// One run over every package. SQL suites start one PGlite per test file (and, with DATABASE_URL,
// one fresh PostgreSQL database per file), so the worker count stays at the machine's two cores.
export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    sequence: { concurrent: false }
  }
})
