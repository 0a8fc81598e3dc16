/** Every repository port on the SQL client (PGlite or PostgreSQL alike). */
import { Layer } from "effect"
import { AccountServiceKeysRepoSql } from "./identity/AccountServiceKeysRepoSql.js"
import { AccountsRepoSql } from "./identity/AccountsRepoSql.js"
import { IdempotencyStoreSql } from "./shared/IdempotencyStoreSql.js"
import { TransactorSql } from "./shared/TransactorSql.js"

export const RepositoriesSql = Layer.mergeAll(TransactorSql, AccountsRepoSql, AccountServiceKeysRepoSql, IdempotencyStoreSql)
