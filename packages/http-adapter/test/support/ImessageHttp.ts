/**
 * What the /v1 iMessage suites share: a test server whose simulated pool the test controls, a
 * billing catalog with an iMessage category (shared seats by default, dedicated lines on a second
 * plan that sells the fixed charge `imessage_dedicated_line`), and helpers to move a project onto it.
 */
import { BillingCatalog, BillingService, validateCatalog } from "@switchboard/core/billing"
import { BillingRepo } from "@switchboard/core/billing"
import { Principal } from "@switchboard/core/credentials"
import { ProjectsRepo } from "@switchboard/core/projects"
import { defaultSimulatedImessageSettings, makeSimulatedImessagePool } from "@switchboard/testkit/simulated"
import type { ProjectId } from "@switchboard/core/shared"
import { billingTestCatalogJson } from "@switchboard/testkit"
import { Effect, Result, Layer, Option } from "effect"
import { platformTestAdapters } from "./PlatformsHttp.js"
import type { TestServer } from "./TestServer.js"

const plan = (planCode: string, name: string, tier: number, extra: Record<string, unknown>) => ({
  planCode, name, description: null, baseAmountCents: 0, currency: "USD", interval: "monthly", payInAdvance: false,
  isDefault: tier === 1, tier, tierDisplayName: null, entitlements: [], fixedCharges: [], usageCharges: [],
  usageThresholds: [], minimumCommitment: null, ...extra
})

/** The test catalog plus `imessage`: `imessage_shared` (default, 2 seats) and `imessage_dedicated`. */
export const imessageCatalog = Result.getOrThrowWith(
  validateCatalog({
    ...billingTestCatalogJson,
    imessage: [
      plan("imessage_shared", "iMessage shared", 1, {
        entitlements: [{ featureKey: "imessage_shared_lines.max_user_assignments", value: "2" }]
      }),
      plan("imessage_dedicated", "iMessage dedicated", 2, {
        entitlements: [{ featureKey: "imessage_dedicated_lines.can_purchase", value: "true" }],
        fixedCharges: [{
          fixedChargeCode: "imessage_dedicated_line", name: "Dedicated iMessage line", unitAmountCents: 4900,
          payInAdvance: false, prorated: false, defaultUnits: 0, minQuantity: 1, maxQuantity: 100
        }]
      })
    ]
  }),
  (message) => new Error(`the iMessage test catalog is invalid: ${message}`)
)

/**
 * A fresh pool per server — one dedicated line at start, 2 seats on 1 shared line, auto-scale may
 * add 1 more — with its control, and the catalog.
 */
export const imessageTestAdapters = () => {
  const pool = makeSimulatedImessagePool({
    ...defaultSimulatedImessageSettings,
    dedicatedCapacity: 1,
    sharedLines: 1,
    seatsPerSharedLine: 2,
    maxSharedLines: 2
  })
  return {
    control: pool.control,
    layer: Layer.mergeAll(platformTestAdapters(), pool.layer, Layer.succeed(BillingCatalog, { catalog: imessageCatalog }))
  }
}

/** Puts the project on the `imessage_dedicated` plan (as a plan change would). */
export const makeDedicated = (s: TestServer, projectId: string) =>
  s.run(Effect.gen(function*() {
    const repo = yield* BillingRepo
    const project = Option.getOrThrow(yield* (yield* ProjectsRepo).findById(projectId as ProjectId))
    yield* (yield* BillingService).ensureSubscriptions(projectId as ProjectId, Principal.Account({ accountId: project.createdByAccountId, serviceKeyId: "test" as never }))
    const sub = Option.getOrThrow(yield* repo.lockSubscription(projectId as ProjectId, "imessage"))
    yield* repo.updateSubscription({ ...sub, planCode: "imessage_dedicated", version: sub.version + 1 })
  }))

/** The project's held quantity of the dedicated-line fixed charge. */
export const heldLines = (s: TestServer, projectId: string) =>
  s.run(Effect.gen(function*() {
    const sub = Option.getOrThrow(yield* (yield* BillingRepo).lockSubscription(projectId as ProjectId, "imessage"))
    return sub.heldFixedCharges.find((h) => h.fixedChargeCode === "imessage_dedicated_line")?.quantity ?? 0
  }))
