/**
 * A scratch PostgreSQL database for the tests of one `describe` block: created (on the server of
 * `DATABASE_URL`) before its tests and dropped after them. `url()` is its connection URL.
 */
import { scratchPostgres } from "@switchboard/sql-adapter"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll } from "vitest"

export const useScratchPostgres = (): { readonly url: () => string } => {
  let url = ""
  let close: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const scope = Effect.runSync(Scope.make())
    url = await Effect.runPromise(Scope.provide(scratchPostgres, scope))
    close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  })
  afterAll(() => close())
  return { url: () => url }
}
