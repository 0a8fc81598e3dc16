import { RepositoriesSql, testBackends, testDatabase } from "@switchboard/sql-adapter"
import { repositoryContract } from "@switchboard/testkit"
import { Layer } from "effect"

// The same contract as the memory layers, on PGlite always and on PostgreSQL when DATABASE_URL is set.
for (const backend of testBackends()) {
  repositoryContract(backend, () => RepositoriesSql.pipe(Layer.provideMerge(testDatabase(backend))))
}
