import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * `webhook_endpoints.starts_after_position`: the outbox position (0009's `events.position`) an
 * endpoint starts after — the outbox's highest position when it was created. Fan-out gives an
 * endpoint only the events at later positions, so a new endpoint never receives the events
 * committed before it existed. Endpoints created before this migration keep 0: everything not yet
 * fanned out still reaches them, as it did.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table webhook_endpoints add column starts_after_position bigint not null default 0`
})
