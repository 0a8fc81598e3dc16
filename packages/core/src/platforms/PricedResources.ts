/**
 * What provisioning asks of billing (docs/provisioning.md): the project's **entitlements** (the
 * feature keys of the plans its subscriptions are on — a category without a materialised
 * subscription counts with its default plan) and the **fixed-charge quantity** of priced resources.
 *
 * A priced resource names a fixed-charge code (a dedicated iMessage line: `imessage_dedicated_line`).
 * When one becomes active, the project's subscription whose plan sells that code holds one more
 * unit of it; when it is released, one less — written in the transaction that stores or retires
 * the resource, so a resource is charged exactly while it is active. The quantity is then billed by
 * billing's own rules (in advance or in arrears, prorated or not: `billing/Invoicing.ts`), and shows
 * in the next invoice preview. A plan that does not sell the code charges nothing for it.
 */
import { DateTime, Effect, Option } from "effect"
import { catalogSellsCharge, defaultPlan, findPlan } from "../billing/Catalog.js"
import { withQuantity } from "../billing/FixedChargeChange.js"
import { BillingCatalog, BillingRepo } from "../billing/Ports.js"
import type { ProjectId } from "../shared/Identifiers.js"

/** The fixed-charge code a priced resource type is billed under (none: free). */
export const fixedChargeOfResource: Readonly<Record<string, string>> = {
  imessage_line: "imessage_dedicated_line"
}

export const makePricedResources = Effect.gen(function*() {
  const billing = yield* BillingRepo
  const { catalog } = yield* BillingCatalog

  /** featureKey → value over the project's plans (a later category's value does not override an earlier one). */
  const entitlements = (projectId: string) =>
    Effect.gen(function*() {
      const subs = yield* billing.listSubscriptions(projectId as ProjectId)
      const values = new Map<string, string>()
      for (const category of Object.keys(catalog).sort()) {
        const sub = subs.find((s) => s.category === category)
        const plan = sub === undefined ? defaultPlan(catalog, category) : findPlan(catalog, category, sub.planCode)
        for (const e of plan?.entitlements ?? []) if (!values.has(e.featureKey)) values.set(e.featureKey, e.value)
      }
      return values
    })

  const granted = (values: ReadonlyMap<string, string>, featureKey: string): boolean =>
    (values.get(featureKey) ?? "").trim().toLowerCase() === "true"

  /**
   * Adds `delta` units of the resource type's fixed charge to the subscription selling it (inside
   * the caller's transaction). Returns whether a subscription was charged.
   */
  const adjust = (projectId: string, resourceType: string, delta: 1 | -1) =>
    Effect.gen(function*() {
      const code = fixedChargeOfResource[resourceType]
      if (code === undefined || !catalogSellsCharge(catalog, code)) return false
      for (const sub of yield* billing.listSubscriptions(projectId as ProjectId)) {
        const plan = findPlan(catalog, sub.category, sub.planCode)
        if (plan === undefined || !plan.fixedCharges.some((c) => c.fixedChargeCode === code)) continue
        const locked = yield* billing.lockSubscription(sub.projectId, sub.category)
        if (Option.isNone(locked)) continue
        const held = locked.value.heldFixedCharges.find((h) => h.fixedChargeCode === code)?.quantity ?? 0
        const quantity = Math.max(0, held + delta)
        if (quantity === held) return false
        yield* billing.updateSubscription({
          ...locked.value,
          heldFixedCharges: withQuantity(locked.value.heldFixedCharges, code, quantity),
          version: locked.value.version + 1,
          updatedAt: yield* DateTime.now
        })
        return true
      }
      return false
    })

  return { entitlements, granted, adjust } as const
})

export type PricedResources = Effect.Success<typeof makePricedResources>
