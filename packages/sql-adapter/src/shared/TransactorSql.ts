import { SqlClient, SqlError } from "effect/sql"
import { Transactor } from "@switchboard/core/shared"
import { Effect, Layer } from "effect"
import { die } from "./Sql.js"

/**
 * `withTransaction` on the SQL client: nested calls become savepoints. A failing BEGIN/COMMIT is an
 * infrastructure failure the caller cannot act on, so it becomes a defect (Sql.ts `die`: an outage
 * dies as `DatabaseUnavailable`; docs/errors.md).
 */
export const TransactorSql = Layer.effect(
  Transactor,
  Effect.map(SqlClient.SqlClient, (sql) =>
    Transactor.of({
      withTransaction: <A, E, R>(self: Effect.Effect<A, E, R>) =>
        sql.withTransaction(self).pipe(
          Effect.catchIf((e): e is SqlError.SqlError => e instanceof SqlError.SqlError, die)
        ) as Effect.Effect<A, E, R>
    }))
)
