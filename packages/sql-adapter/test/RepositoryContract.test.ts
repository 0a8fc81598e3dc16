import { testBackends, testStore } from "@switchboard/sql-adapter"
import { repositoryContract } from "@switchboard/testkit/vitest"

// The same contract as the memory layers, on PGlite always and on PostgreSQL when DATABASE_URL is set.
for (const backend of testBackends()) {
  repositoryContract(backend, () => testStore(backend))
}
