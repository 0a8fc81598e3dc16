import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Drops `webhook_deliveries_due`: since 0016 the claim takes each endpoint's
 * earliest due deliveries from `webhook_deliveries_pending_endpoint`, so this index only cost an
 * entry per delivery inserted and per claim (a claim's update is never HOT: it changes the leased
 * index's columns). The oldest due delivery (the dashboard's figure) is read per endpoint from
 * `webhook_deliveries_pending_endpoint` instead.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`drop index if exists webhook_deliveries_due`
})
