/** Cross-context ports (docs/architecture.md#contexts-and-pure-modules). */
import { Context, type Effect } from "effect"

/**
 * Runs an effect atomically against the store: everything it writes commits together or not at
 * all. Nested calls are allowed (the SQL layer uses savepoints; the memory layer snapshots its
 * tables and restores them on failure).
 */
export class Transactor extends Context.Service<Transactor, {
  readonly withTransaction: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("core/Transactor") {}
