import { SqlClient } from "effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table rate_limit_counters (
      policy text not null,
      key text not null,
      window_start timestamptz not null,
      window_end timestamptz not null,
      count integer not null,
      primary key (policy, key, window_start)
    )`
  // The purge reads by window end.
  yield* sql`create index rate_limit_counters_end on rate_limit_counters (window_end)`
  // Counters are rewritten on every request and worthless after a crash: skip the WAL.
  yield* sql`alter table rate_limit_counters set unlogged`
})
