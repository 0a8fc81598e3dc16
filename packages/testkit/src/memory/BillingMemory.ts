/**
 * The Billing feature's memory layers: subscriptions, operations, invoices and billing accounts as
 * tables of the shared `MemoryState` (so transactions roll them back; memory transactions run one
 * at a time, so `lock*` is a read). Projects are read from the Projects memory table, as the SQL
 * layer joins them. Also the non-repository ports for tests: `billingTestCatalog` (the worked
 * examples' catalog of docs/api-notes/billing.md, with one default per category) and a scriptable
 * `PaymentProvider` (`ScriptedPayments`).
 */
import { type Billing } from "@switchboard/core"
import {
  type BillableProject,
  type BillingAccountRecord,
  BillingCatalog,
  BillingRepo,
  type ChargeOutcome,
  type InvoiceRecord,
  type OperationRecord,
  type OrganizationSubscriptionRecord,
  PaymentProvider,
  type SubscriptionRecord,
  type UsageRecordRow,
  validateCatalog
} from "@switchboard/core/billing"
import { type OrganizationId } from "@switchboard/core/shared"
import { Context, DateTime, Effect, Result, Layer, Option, Ref } from "effect"
import { MemoryState } from "./MemoryState.js"
import { PROJECTS_TABLE, type ProjectRow } from "./ProjectsMemory.js"

/** Organizations' own subscriptions (also read by the SSO memory layer for the SSO entitlement). */
export const ORGANIZATION_SUBSCRIPTIONS_TABLE = "billing_organization_subscriptions"

const subscriptionKey = (projectId: string, category: string) => `${projectId}\u0000${category}`

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const subscriptions = state.table<string, SubscriptionRecord>("billing_subscriptions")
  const operations = state.table<string, OperationRecord>("billing_operations")
  const invoices = state.table<string, InvoiceRecord>("billing_invoices")
  const accounts = state.table<string, BillingAccountRecord>("billing_accounts")
  const organizationSubscriptions = state.table<string, OrganizationSubscriptionRecord>(ORGANIZATION_SUBSCRIPTIONS_TABLE)
  const usageRecords = state.table<string, UsageRecordRow>("billing_usage_records")
  const projects = state.table<string, ProjectRow>(PROJECTS_TABLE)
  const live = (projectId: string) => {
    const p = projects.get(projectId)?.project
    return p !== undefined && p.state !== "deleted"
  }
  const emptyAccount = (organizationId: OrganizationId): BillingAccountRecord => ({
    organizationId, paymentMethod: null, creditBalanceCents: 0, invoiceCount: 0
  })

  return BillingRepo.of({
    listSubscriptions: (projectId) =>
      Effect.sync(() => [...subscriptions.values()].filter((s) => s.projectId === projectId).sort((a, b) => a.category < b.category ? -1 : 1)),
    lockSubscription: (projectId, category) =>
      Effect.sync(() => Option.fromNullishOr(subscriptions.get(subscriptionKey(projectId, category)))),
    insertSubscription: (sub) =>
      Effect.sync(() => {
        const key = subscriptionKey(sub.projectId, sub.category)
        if (subscriptions.has(key)) return false
        subscriptions.set(key, sub)
        return true
      }),
    updateSubscription: (sub) => Effect.sync(() => void subscriptions.set(subscriptionKey(sub.projectId, sub.category), sub)),
    dueSubscriptions: ({ limit, now }) =>
      Effect.sync(() => {
        const today = Math.floor(DateTime.toEpochMillis(now) / 86_400_000)
        return [...subscriptions.values()]
          .filter((s) => live(s.projectId) && (s.periodEnd + 1 <= today || s.usageDirty))
          .sort((a, b) => a.periodEnd - b.periodEnd)
          .slice(0, limit)
          .map((s) => ({ projectId: s.projectId, category: s.category }))
      }),
    unsubscribedProjects: ({ categories, limit, organizationId }) =>
      Effect.sync(() =>
        [...projects.values()]
          .map((r) => r.project)
          .filter((p) =>
            p.state !== "deleted" && (organizationId === undefined || p.organizationId === organizationId) &&
            categories.some((c) => !subscriptions.has(subscriptionKey(p.projectId, c)))
          )
          .sort((a, b) => DateTime.toEpochMillis(a.createdAt) - DateTime.toEpochMillis(b.createdAt))
          .slice(0, limit)
          .map((p): BillableProject => ({ projectId: p.projectId, organizationId: p.organizationId, createdAt: p.createdAt }))
      ),
    insertOperation: (op) =>
      Effect.sync(() => {
        const taken = [...operations.values()].find((o) =>
          o.idempotencyScope === op.idempotencyScope && o.idempotencyKey === op.idempotencyKey)
        if (taken !== undefined) return Option.some(taken)
        operations.set(op.operationId, op)
        return Option.none()
      }),
    findOperationByKey: (scope, key) =>
      Effect.sync(() =>
        Option.fromNullishOr([...operations.values()].find((o) => o.idempotencyScope === scope && o.idempotencyKey === key))
      ),
    findOperation: (operationId) => Effect.sync(() => Option.fromNullishOr(operations.get(operationId))),
    lockOperation: (operationId) => Effect.sync(() => Option.fromNullishOr(operations.get(operationId))),
    updateOperation: (op) => Effect.sync(() => void operations.set(op.operationId, op)),
    listOperations: (projectId, limit) =>
      Effect.sync(() =>
        [...operations.values()]
          .filter((o) => o.projectId === projectId)
          .sort((a, b) =>
            DateTime.toEpochMillis(b.submittedAt) - DateTime.toEpochMillis(a.submittedAt) ||
            (a.operationId < b.operationId ? 1 : a.operationId > b.operationId ? -1 : 0)
          )
          .slice(0, limit)
      ),
    waitingOperations: (projectId) =>
      Effect.sync(() =>
        [...operations.values()]
          .filter((o) => o.projectId === projectId && o.status === "pending" && o.awaitingPayment !== null)
          .sort((a, b) => DateTime.toEpochMillis(a.submittedAt) - DateTime.toEpochMillis(b.submittedAt))
      ),
    pendingOperations: ({ deadlineBefore, limit }) =>
      Effect.sync(() =>
        [...operations.values()]
          .filter((o) =>
            o.status === "pending" &&
            (o.awaitingPayment === null || DateTime.isLessThanOrEqualTo(o.awaitingPayment.deadline, deadlineBefore))
          )
          .sort((a, b) => DateTime.toEpochMillis(a.submittedAt) - DateTime.toEpochMillis(b.submittedAt))
          .slice(0, limit)
          .map((o) => o.operationId)
      ),
    insertInvoice: (invoice) =>
      Effect.sync(() => {
        if (invoice.uniqueKey !== null && [...invoices.values()].some((i) => i.uniqueKey === invoice.uniqueKey)) return false
        invoices.set(invoice.invoiceId, invoice)
        return true
      }),
    listInvoices: (organizationId) =>
      Effect.sync(() =>
        [...invoices.values()]
          .filter((i) => i.organizationId === organizationId && i.totalCents !== 0)
          .sort((a, b) => DateTime.toEpochMillis(b.issuedAt) - DateTime.toEpochMillis(a.issuedAt) || (b.invoiceId < a.invoiceId ? -1 : 1))
      ),
    findInvoiceByKey: (uniqueKey) =>
      Effect.sync(() => Option.fromNullishOr([...invoices.values()].find((i) => i.uniqueKey === uniqueKey))),
    collectibleInvoices: (limit) =>
      Effect.sync(() =>
        [...invoices.values()]
          .filter((i) => i.paymentStatus === "pending" && i.totalCents > 0 && i.paymentAttempts === 0)
          .sort((a, b) => DateTime.toEpochMillis(a.issuedAt) - DateTime.toEpochMillis(b.issuedAt))
          .slice(0, limit)
          .map((i) => i.invoiceId)
      ),
    lockInvoice: (invoiceId) => Effect.sync(() => Option.fromNullishOr(invoices.get(invoiceId))),
    updateInvoicePayment: (invoice) =>
      Effect.sync(() => {
        const stored = invoices.get(invoice.invoiceId)
        if (stored !== undefined) {
          invoices.set(invoice.invoiceId, { ...stored, paymentStatus: invoice.paymentStatus, paymentAttempts: invoice.paymentAttempts })
        }
      }),
    insertUsageRecords: (projectId, records) =>
      Effect.sync(() => {
        const inserted: Array<string> = []
        for (const r of records) {
          const key = `${projectId}\u0000${r.recordId}`
          if (usageRecords.has(key)) continue
          usageRecords.set(key, r)
          inserted.push(r.recordId)
        }
        return inserted
      }),
    findOrganizationSubscription: (organizationId) => Effect.sync(() => Option.fromNullishOr(organizationSubscriptions.get(organizationId))),
    lockOrganizationSubscription: (organizationId) => Effect.sync(() => Option.fromNullishOr(organizationSubscriptions.get(organizationId))),
    saveOrganizationSubscription: (sub) => Effect.sync(() => void organizationSubscriptions.set(sub.organizationId, sub)),
    dueOrganizationSubscriptions: ({ limit, now }) =>
      Effect.sync(() =>
        [...organizationSubscriptions.values()]
          .filter((s) => (s.paidThroughDay + 1) * 86_400_000 <= DateTime.toEpochMillis(now))
          .sort((a, b) => a.paidThroughDay - b.paidThroughDay || (a.organizationId < b.organizationId ? -1 : 1))
          .slice(0, limit)
          .map((s) => s.organizationId)
      ),
    findAccount: (organizationId) => Effect.sync(() => Option.fromNullishOr(accounts.get(organizationId))),
    lockAccount: (organizationId) =>
      Effect.sync(() => {
        const found = accounts.get(organizationId)
        if (found !== undefined) return found
        const account = emptyAccount(organizationId)
        accounts.set(organizationId, account)
        return account
      }),
    updateAccount: (account) => Effect.sync(() => void accounts.set(account.organizationId, account))
  })
})

export const BillingRepoMemory: Layer.Layer<BillingRepo, never, MemoryState> = Layer.effect(BillingRepo, make)

// ---------------------------------------------------------------------------------------------
// The test catalog (docs/api-notes/billing.md, plus usage charges and one default per category)
// ---------------------------------------------------------------------------------------------

const plan = (p: {
  planCode: string; name: string; tier: number | null; base: number; interval: string; advance: boolean; isDefault?: boolean
  fixedCharges?: ReadonlyArray<unknown>; usageCharges?: ReadonlyArray<unknown>; usageThresholds?: ReadonlyArray<unknown>
  commitment?: { amountCents: number; displayName: string | null } | null; entitlements?: ReadonlyArray<unknown>
}) => ({
  planCode: p.planCode,
  name: p.name,
  description: null,
  baseAmountCents: p.base,
  currency: "USD",
  interval: p.interval,
  payInAdvance: p.advance,
  isDefault: p.isDefault ?? false,
  tier: p.tier,
  tierDisplayName: null,
  entitlements: p.entitlements ?? [],
  fixedCharges: p.fixedCharges ?? [],
  usageCharges: p.usageCharges ?? [],
  usageThresholds: p.usageThresholds ?? [],
  minimumCommitment: p.commitment ?? null
})

const charge = (code: string, name: string, unit: number, o: { advance?: boolean; prorated?: boolean; max?: number } = {}) => ({
  fixedChargeCode: code, name, unitAmountCents: unit, payInAdvance: o.advance ?? true, prorated: o.prorated ?? true,
  defaultUnits: 0, minQuantity: 1, maxQuantity: o.max ?? 100
})

const apiCalls = { chargeCode: "api_calls", metricCode: "api_call", name: "API calls", unitAmountCents: "0.05", freeUnits: 0, payInAdvance: false }

/** The catalog of docs/api-notes/billing.md in three categories (defaults: starter, API basic, studio basic). */
export const billingTestCatalogJson = {
  messaging: [
    plan({ planCode: "starter_monthly", name: "Starter", tier: 1, base: 2900, interval: "monthly", advance: true, isDefault: true,
      entitlements: [{ featureKey: "messages.max_per_month", value: "1000" }] }),
    plan({ planCode: "pro_monthly", name: "Pro", tier: 2, base: 7900, interval: "monthly", advance: true,
      fixedCharges: [charge("seats", "Extra seats", 1500), charge("sso", "SSO", 2000, { prorated: false, max: 1 })],
      entitlements: [{ featureKey: "messages.max_per_month", value: "10000" }] }),
    plan({ planCode: "pro_yearly", name: "Pro (annual)", tier: 2, base: 79000, interval: "yearly", advance: true }),
    plan({ planCode: "business_monthly", name: "Business", tier: 3, base: 9900, interval: "monthly", advance: true,
      fixedCharges: [charge("seats", "Extra seats", 2000, { max: 500 })] })
  ],
  api: [
    plan({ planCode: "basic_arrears", name: "API Basic", tier: 1, base: 3000, interval: "monthly", advance: false, isDefault: true,
      usageCharges: [apiCalls] }),
    plan({ planCode: "plus_arrears", name: "API Plus", tier: 2, base: 6000, interval: "monthly", advance: false,
      usageCharges: [apiCalls],
      usageThresholds: [{ amountCents: 10000, displayName: "First $100", recurring: false }, { amountCents: 25000, displayName: "Every $250", recurring: true }] }),
    plan({ planCode: "growth_monthly", name: "API Growth", tier: 2, base: 4997, interval: "monthly", advance: false,
      usageCharges: [apiCalls], commitment: { amountCents: 20000, displayName: "Growth monthly minimum" } }),
    plan({ planCode: "scale_monthly", name: "API Scale", tier: 3, base: 15000, interval: "monthly", advance: true,
      usageCharges: [apiCalls], commitment: { amountCents: 50000, displayName: "Scale monthly minimum" } })
  ],
  studio: [
    plan({ planCode: "weekly_basic", name: "Studio Basic", tier: 1, base: 700, interval: "weekly", advance: true, isDefault: true }),
    plan({ planCode: "weekly_plus", name: "Studio Plus", tier: 2, base: 2100, interval: "weekly", advance: true })
  ]
}

export const billingTestCatalog: Billing.BillingPlanCatalog = Result.getOrThrowWith(
  validateCatalog(billingTestCatalogJson),
  (message) => new Error(`the test catalog is invalid: ${message}`)
)

export const BillingCatalogTest = (catalog: Billing.BillingPlanCatalog = billingTestCatalog): Layer.Layer<BillingCatalog> =>
  Layer.succeed(BillingCatalog, { catalog })

// ---------------------------------------------------------------------------------------------
// A scriptable payment provider
// ---------------------------------------------------------------------------------------------

/** A charge the test provider saw. */
export interface RecordedCharge {
  readonly organizationId: string
  readonly reference: string
  readonly amountCents: number
  readonly currency: string
  readonly outcome: ChargeOutcome["_tag"]
}

/**
 * The test provider's controls. Without a script, a charge follows the card: `off_session` charges,
 * `requires_action` needs the customer (action URL `https://pay.test/<reference>`), a card whose
 * `providerRef` starts with `pm_decline` is declined. `script` queues outcomes (or a defect,
 * `"die"`) for the next charges, in order.
 */
export class ScriptedPayments extends Context.Service<ScriptedPayments, {
  readonly script: (...outcomes: ReadonlyArray<ChargeOutcome | "die">) => Effect.Effect<void>
  readonly charges: Effect.Effect<ReadonlyArray<RecordedCharge>>
  readonly cancelled: Effect.Effect<ReadonlyArray<string>>
}>()("testkit/ScriptedPayments") {}

export const PaymentProviderTest: Layer.Layer<PaymentProvider | ScriptedPayments> = Layer.unwrap(Effect.gen(function*() {
  const queue = yield* Ref.make<ReadonlyArray<ChargeOutcome | "die">>([])
  const charges = yield* Ref.make<ReadonlyArray<RecordedCharge>>([])
  const cancelled = yield* Ref.make<ReadonlyArray<string>>([])
  const provider = PaymentProvider.of({
    createCheckout: ({ organizationId }) => Effect.succeed({ checkoutUrl: `https://pay.test/checkout/${organizationId}` }),
    createSetupIntent: ({ organizationId }) =>
      Effect.succeed({ clientSecret: `seti_${organizationId}_secret_test`, publishableKey: "pk_test_testkit" }),
    charge: (args) =>
      Effect.gen(function*() {
        const scripted = yield* Ref.modify(queue, (q) => [q[0], q.slice(1)] as const)
        if (scripted === "die") return yield* Effect.die(new Error("the test payment provider crashed"))
        const outcome: ChargeOutcome = scripted ?? (
          args.paymentMethod.providerRef.startsWith("pm_decline")
            ? { _tag: "Declined", reason: "card_declined" }
            : args.paymentMethod.behaviour === "requires_action"
            ? { _tag: "RequiresAction", actionUrl: `https://pay.test/${args.reference}` }
            : { _tag: "Succeeded" }
        )
        yield* Ref.update(charges, (cs) => [...cs, {
          organizationId: args.organizationId, reference: args.reference, amountCents: args.amountCents,
          currency: args.currency, outcome: outcome._tag
        }])
        return outcome
      }),
    cancel: ({ reference }) => Ref.update(cancelled, (cs) => [...cs, reference])
  })
  return Layer.mergeAll(
    Layer.succeed(PaymentProvider, provider),
    Layer.succeed(ScriptedPayments, {
      script: (...outcomes) => Ref.update(queue, (q) => [...q, ...outcomes]),
      charges: Ref.get(charges),
      cancelled: Ref.get(cancelled)
    })
  )
}))

/** The billing ports in memory: the store, the test catalog and the scriptable provider. */
export const BillingMemory: Layer.Layer<BillingRepo | BillingCatalog | PaymentProvider | ScriptedPayments, never, MemoryState> =
  Layer.mergeAll(BillingRepoMemory, BillingCatalogTest(), PaymentProviderTest)
