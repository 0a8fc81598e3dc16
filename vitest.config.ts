import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

// One run over every package. SQL suites start one PGlite per test file (and, with DATABASE_URL,
// one fresh PostgreSQL database per file), so the worker count stays at the machine's two cores.
// The "answers" project runs after the suite: it checks the problems the suite's test servers
// answered against the endpoints' declarations (packages/http-adapter/test/support/Answers.ts).
const answers = "packages/http-adapter/test/answers/**/*.test.ts"

// The workspace packages resolve to their TypeScript sources (the "@switchboard/source" export
// condition, docs/architecture.md), not to a dist/ that may be stale or not built.
const sourceCondition = "@switchboard/source"

export default defineConfig({
  resolve: { conditions: [sourceCondition, ...defaultServerConditions] },
  ssr: { resolve: { conditions: [sourceCondition, ...defaultServerConditions] } },
  test: {
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    sequence: { concurrent: false },
    projects: [
      {
        extends: true,
        test: { name: "suite", include: ["packages/*/test/**/*.test.ts"], exclude: [answers], sequence: { groupOrder: 0 } }
      },
      {
        extends: true,
        test: { name: "answers", include: [answers], sequence: { groupOrder: 1 } }
      }
    ]
  }
})
