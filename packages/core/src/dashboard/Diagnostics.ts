/**
 * System diagnostics of the Dashboard API (docs/api-notes/dashboard-api.md
 * `GET /api/system/diagnostics`), for a session of an organization owner: the store's health
 * (reachable, round-trip latency, applied migrations). The HTTP adapter adds what only the process
 * knows (version, release line, uptime) and the webhook delivery counts.
 */
import { Context, Effect, Layer } from "effect"
import { OrganizationsRepo } from "../organizations/OrganizationsPorts.js"
import type { AccountId } from "../shared/Identifiers.js"
import { NotAnOrganizationOwner } from "./DashboardErrors.js"
import { StoreHealth } from "./DashboardPorts.js"
import { fn } from "../internal/Traced.js"

export class Diagnostics extends Context.Service<Diagnostics>()("core/Diagnostics", {
  make: Effect.gen(function*() {
    const health = yield* StoreHealth
    const organizations = yield* OrganizationsRepo

    const database = fn("Diagnostics.database")(function*(accountId: AccountId) {
      if (!(yield* organizations.ownsAny(accountId))) return yield* new NotAnOrganizationOwner()
      return yield* health.check
    })

    return { database } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
