import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/** A project's billing operations, newest first (`BillingRepo.listOperations`, the console's billing page). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`create index billing_operations_by_project on billing_operations (project_id, submitted_at desc, operation_id desc)`
})
