import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * Filtered verification codes held back from message facts (docs/provisioning.md with
 * docs/messages.md's ingestion): the fact id a record came from, unique per project so a fact
 * applies once (a repeat is ignored). Records made without a fact
 * (`VerificationCodes.recordInbound`) have none.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`alter table filtered_verification_codes add column fact_id text collate "C"`
  yield* sql`
    create unique index filtered_verification_codes_by_fact
    on filtered_verification_codes (project_id, fact_id) where fact_id is not null`
})
