import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Indexes for the delivery engine's fair claim: the claim walks the endpoints that have
 * pending deliveries (a skip scan of `webhook_deliveries_pending_endpoint`), counts each one's live
 * leases (`webhook_deliveries_leased`, which holds only deliveries in flight) and takes each one's
 * earliest due deliveries — so a claim costs per endpoint with pending deliveries and per
 * delivery claimed, not per delivery waiting in the backlog.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create index webhook_deliveries_pending_endpoint on webhook_deliveries (endpoint_id, next_attempt_at, event_position)
    where status = 'pending'`
  yield* sql`
    create index webhook_deliveries_leased on webhook_deliveries (endpoint_id, leased_until)
    where status = 'pending' and leased_until is not null`
})
