/**
 * The PostgreSQL face of our clients (PostgresClient.ts over `pg`, PgliteClient.ts over PGlite):
 * an `effect/sql` `SqlClient` with the JSON fragment and LISTEN/NOTIFY the repositories use.
 * `@effect/sql-pg` 4 has a `PgClient` of its own, but over its own wire protocol, and its `listen`
 * yields a queue of notifications; this one is ours, with a stream of payloads.
 */
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type * as Statement from "effect/sql/Statement"
import { Context, type Effect, type Redacted, type Stream } from "effect"

/** What the client says about its database (no password). */
export interface PgClientConfig {
  readonly url?: Redacted.Redacted | undefined
  readonly host?: string | undefined
  readonly port?: number | undefined
  /** `"pglite"` for the embedded database. */
  readonly database?: string | undefined
  readonly username?: string | undefined
  readonly applicationName?: string | undefined
}

export interface PgClient extends SqlClient {
  readonly config: PgClientConfig
  /** A parameter bound as JSON text (`jsonb`/`json` columns), whatever its top level. */
  readonly json: (value: unknown) => Statement.Fragment
  /** The payloads NOTIFYed on `channel` while the stream runs. */
  readonly listen: (channel: string) => Stream.Stream<string, SqlError>
  /** `pg_notify(channel, payload)`: inside a transaction, delivered on COMMIT. */
  readonly notify: (channel: string, payload: string) => Effect.Effect<void, SqlError>
}

export const PgClient = Context.Service<PgClient>("@switchboard/sql-adapter/PgClient")
