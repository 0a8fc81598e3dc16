/**
 * The Billing feature's part of the repository contract suite: one subscription per project and
 * category (also under concurrency), what the scheduler finds due, projects without a
 * subscription, operations under an Idempotency-Key, invoices written once per unique key,
 * billing accounts, and organizations' own subscriptions (whose plan the SSO entitlement reads).
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import {
  BillingRepo,
  type InvoiceRecord,
  type OperationRecord,
  type OrganizationSubscriptionRecord,
  type SubscriptionRecord
} from "@switchboard/core/billing"
import { ProjectsRepo } from "@switchboard/core/projects"
import { SsoRepo } from "@switchboard/core/sso"
import { Transactor } from "@switchboard/core/shared"
import { DateTime, Effect, Option } from "effect"
import { expect } from "vitest"
import { ownerAndOrganization, storedProject } from "./ProjectsContract.js"

let counter = 0
const T0 = DateTime.makeUnsafe("2030-01-01T00:00:00.000Z")
const DAY = 86_400_000
const DAY0 = DateTime.toEpochMillis(T0) / DAY
const plus = (t: DateTime.Utc, ms: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(t) + ms)

const subscription = (p: { projectId: SubscriptionRecord["projectId"]; organizationId: SubscriptionRecord["organizationId"] }, category: string, overrides: Partial<SubscriptionRecord> = {}): SubscriptionRecord => ({
  projectId: p.projectId,
  organizationId: p.organizationId,
  category,
  planCode: "starter_monthly",
  source: "default",
  anchorDay: DAY0,
  periodStart: DAY0,
  periodEnd: DAY0 + 30,
  planStartDay: DAY0,
  heldFixedCharges: [{ fixedChargeCode: "seats", quantity: 3 }],
  baseFeeBilledCents: 2900,
  baseFeeCreditedCents: 0,
  usage: { api_call: 12, "metric.with.dots": 1 },
  progressiveBilledCents: 0,
  closedUsageCents: 0,
  thresholdCheckedCents: 0,
  usageDirty: false,
  scheduledChange: { operationId: "sb_bop_x", planCode: "pro_monthly", effectiveDay: DAY0 + 31, additions: [{ fixedChargeCode: "sso", quantity: 1 }] },
  version: 1,
  createdAt: T0,
  updatedAt: T0,
  ...overrides
})

const operation = (p: { projectId: OperationRecord["projectId"]; organizationId: OperationRecord["organizationId"] }, overrides: Partial<OperationRecord> = {}): OperationRecord => ({
  operationId: `sb_bop_contract${++counter}${Math.random().toString(36).slice(2, 8)}`,
  projectId: p.projectId,
  organizationId: p.organizationId,
  kind: "change_plan",
  status: "pending",
  request: { type: "change_plan", category: "messaging", planCode: "pro_monthly", additions: [] },
  idempotencyScope: `account:contract-${counter}`,
  idempotencyKey: "key-1",
  fingerprint: "fp",
  awaitingPayment: null,
  result: null,
  failure: null,
  submittedAt: T0,
  resolvedAt: null,
  ...overrides
})

const invoice = (organizationId: InvoiceRecord["organizationId"], overrides: Partial<InvoiceRecord> = {}): InvoiceRecord => ({
  invoiceId: `sb_bin_contract${++counter}${Math.random().toString(36).slice(2, 8)}`,
  organizationId,
  projectId: null,
  number: `N-${counter}`,
  kind: "subscription",
  uniqueKey: `contract:${counter}:${Math.random()}`,
  issuedAt: T0,
  paymentStatus: "pending",
  paymentAttempts: 0,
  currency: "USD",
  feesCents: 9007199254740991,
  creditsCents: 0,
  totalCents: 9007199254740991,
  lines: [{ amountCents: 9007199254740991, code: "pro", kind: "subscription", name: "Pro", periodStart: "2030-01-01T00:00:00.000Z", periodEnd: null, units: "1" }],
  ...overrides
})

const withProject = Effect.gen(function*() {
  const owner = yield* ownerAndOrganization
  const project = yield* storedProject(owner)
  return { owner, project, ids: { projectId: project.projectId, organizationId: owner.organizationId } }
})

export const billingContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("billing: one subscription per project and category; records round-trip; lock and update", () =>
    Effect.gen(function*() {
      const repo = yield* BillingRepo
      const { ids } = yield* withProject
      const sub = subscription(ids, "messaging")
      expect(yield* repo.insertSubscription(sub)).toBe(true)
      expect(yield* repo.insertSubscription({ ...sub, planCode: "other" })).toBe(false)
      expect(yield* repo.insertSubscription(subscription(ids, "api", { scheduledChange: null }))).toBe(true)
      expect((yield* repo.listSubscriptions(ids.projectId)).map((s) => s.category)).toEqual(["api", "messaging"])
      const locked = Option.getOrThrow(yield* repo.lockSubscription(ids.projectId, "messaging"))
      expect(locked).toEqual(sub)
      const next = { ...sub, version: 2, usage: {}, heldFixedCharges: [], scheduledChange: null, updatedAt: plus(T0, 5) }
      yield* repo.updateSubscription(next)
      expect(Option.getOrThrow(yield* repo.lockSubscription(ids.projectId, "messaging"))).toEqual(next)
      expect(Option.isNone(yield* repo.lockSubscription(ids.projectId, "studio"))).toBe(true)
    }))

  it.effect("billing: concurrent inserts of one subscription write it once", () =>
    Effect.gen(function*() {
      const repo = yield* BillingRepo
      const tx = yield* Transactor
      const { ids } = yield* withProject
      const results = yield* Effect.all(
        Array.from({ length: 4 }, () => tx.withTransaction(repo.insertSubscription(subscription(ids, "messaging")))),
        { concurrency: "unbounded" }
      )
      expect(results.filter((r) => r)).toHaveLength(1)
    }))

  it.effect("billing: due subscriptions (period ended, or usage to check) of projects that are not deleted", () =>
    Effect.gen(function*() {
      const repo = yield* BillingRepo
      const { ids, owner } = yield* withProject
      const deleted = yield* storedProject(owner)
      yield* repo.insertSubscription(subscription(ids, "ended", { periodEnd: DAY0 - 1 }))
      yield* repo.insertSubscription(subscription(ids, "dirty", { usageDirty: true }))
      yield* repo.insertSubscription(subscription(ids, "current"))
      yield* repo.insertSubscription(subscription({ projectId: deleted.projectId, organizationId: owner.organizationId }, "ended", { periodEnd: DAY0 - 1 }))
      yield* (yield* ProjectsRepo).update({ ...deleted, state: "deleted", deletedAt: T0, closedAt: T0 })
      const due = (yield* repo.dueSubscriptions({ now: T0, limit: 1000 })).filter((d) => d.projectId === ids.projectId || d.projectId === deleted.projectId)
      expect(due.map((d) => d.category).sort()).toEqual(["dirty", "ended"])
      // The period of "current" ends at DAY0 + 31.
      const later = (yield* repo.dueSubscriptions({ now: plus(T0, 31 * DAY), limit: 1000 })).filter((d) => d.projectId === ids.projectId)
      expect(later.map((d) => d.category).sort()).toEqual(["current", "dirty", "ended"])
    }))

  it.effect("billing: projects lacking a subscription in some category, per organization", () =>
    Effect.gen(function*() {
      const repo = yield* BillingRepo
      const { ids, owner, project } = yield* withProject
      const second = yield* storedProject(owner, { createdAt: plus(T0, 1000) })
      yield* repo.insertSubscription(subscription(ids, "a"))
      yield* repo.insertSubscription(subscription(ids, "b"))
      yield* repo.insertSubscription(subscription({ projectId: second.projectId, organizationId: owner.organizationId }, "a"))
      const missing = yield* repo.unsubscribedProjects({ categories: ["a", "b"], organizationId: owner.organizationId, limit: 10 })
      expect(missing.map((p) => p.projectId)).toEqual([second.projectId])
      expect(missing[0]!.createdAt.epochMilliseconds).toBe(plus(T0, 1000).epochMilliseconds)
      const one = yield* repo.unsubscribedProjects({ categories: ["a"], organizationId: owner.organizationId, limit: 10 })
      expect(one).toEqual([])
      const all = yield* repo.unsubscribedProjects({ categories: ["c"], organizationId: owner.organizationId, limit: 10 })
      expect(all.map((p) => p.projectId)).toEqual([project.projectId, second.projectId])
    }))

  it.effect("billing: operations under an Idempotency-Key; pending, waiting and resolved", () =>
    Effect.gen(function*() {
      const repo = yield* BillingRepo
      const { ids } = yield* withProject
      const op = operation(ids)
      expect(Option.isNone(yield* repo.insertOperation(op))).toBe(true)
      const clash = yield* repo.insertOperation({ ...operation(ids), idempotencyScope: op.idempotencyScope, idempotencyKey: op.idempotencyKey })
      expect(Option.getOrThrow(clash).operationId).toBe(op.operationId)
      expect(Option.getOrThrow(yield* repo.findOperationByKey(op.idempotencyScope, op.idempotencyKey))).toEqual(op)
      expect(Option.getOrThrow(yield* repo.lockOperation(op.operationId))).toEqual(op)
      expect(yield* repo.pendingOperations({ deadlineBefore: T0, limit: 1000 })).toContain(op.operationId)
      const waiting: OperationRecord = {
        ...op,
        awaitingPayment: {
          day: DAY0, subscriptionVersion: 3, amountCents: 3226, currency: "USD", deadline: plus(T0, 3600_000),
          actionUrl: "https://pay.test/x", invoice: { totalCents: 3226 }, additions: [], unusedTimeCredit: 1871
        }
      }
      yield* repo.updateOperation(waiting)
      expect(yield* repo.waitingOperations(ids.projectId)).toEqual([waiting])
      expect(yield* repo.pendingOperations({ deadlineBefore: T0, limit: 1000 })).not.toContain(op.operationId)
      expect(yield* repo.pendingOperations({ deadlineBefore: plus(T0, 3600_000), limit: 1000 })).toContain(op.operationId)
      const done: OperationRecord = {
        ...waiting, status: "failed", awaitingPayment: null, resolvedAt: plus(T0, 10),
        failure: { code: "payment_failed", detail: "payment_timeout", retryable: true, unsoldFixedCharges: [] }
      }
      yield* repo.updateOperation(done)
      expect(Option.getOrThrow(yield* repo.findOperation(op.operationId))).toEqual(done)
      expect(yield* repo.waitingOperations(ids.projectId)).toEqual([])
      expect(yield* repo.pendingOperations({ deadlineBefore: plus(T0, 9e9), limit: 1000 })).not.toContain(op.operationId)
    }))

  it.effect("billing: listOperations answers the project's operations newest first, at most the limit", () =>
    Effect.gen(function*() {
      const repo = yield* BillingRepo
      const { ids, owner } = yield* withProject
      const other = yield* storedProject(owner, { createdAt: plus(T0, 1) })
      const old = operation(ids)
      const newer = operation(ids, { submittedAt: plus(T0, 2000) })
      const newest = operation(ids, { submittedAt: plus(T0, 5000), status: "succeeded", resolvedAt: plus(T0, 5001) })
      yield* repo.insertOperation(newer)
      yield* repo.insertOperation(old)
      yield* repo.insertOperation(newest)
      yield* repo.insertOperation(operation({ projectId: other.projectId, organizationId: owner.organizationId }))
      expect((yield* repo.listOperations(ids.projectId, 10)).map((o) => o.operationId)).toEqual([newest.operationId, newer.operationId, old.operationId])
      expect(yield* repo.listOperations(ids.projectId, 2)).toEqual([newest, newer])
      expect(yield* repo.listOperations(other.projectId, 10)).toHaveLength(1)
    }))

  it.effect("billing: an invoice is written once per unique key; zero totals are not listed; newest first; collection", () =>
    Effect.gen(function*() {
      const repo = yield* BillingRepo
      const { owner } = yield* withProject
      const a = invoice(owner.organizationId)
      expect(yield* repo.insertInvoice(a)).toBe(true)
      expect(yield* repo.insertInvoice({ ...invoice(owner.organizationId), uniqueKey: a.uniqueKey })).toBe(false)
      const zero = invoice(owner.organizationId, { feesCents: 0, totalCents: 0, lines: [], paymentStatus: "succeeded" })
      const newer = invoice(owner.organizationId, { issuedAt: plus(T0, 1000), totalCents: -5, feesCents: 0, creditsCents: 5 })
      yield* repo.insertInvoice(zero)
      yield* repo.insertInvoice(newer)
      expect(yield* repo.listInvoices(owner.organizationId)).toEqual([newer, a])
      expect(Option.getOrThrow(yield* repo.findInvoiceByKey(a.uniqueKey!))).toEqual(a)
      const collectible = yield* repo.collectibleInvoices(1000)
      expect(collectible).toContain(a.invoiceId)
      expect(collectible).not.toContain(zero.invoiceId)
      expect(collectible).not.toContain(newer.invoiceId)
      const locked = Option.getOrThrow(yield* repo.lockInvoice(a.invoiceId))
      yield* repo.updateInvoicePayment({ ...locked, paymentStatus: "succeeded", paymentAttempts: 1 })
      expect(Option.getOrThrow(yield* repo.lockInvoice(a.invoiceId))).toEqual({ ...a, paymentStatus: "succeeded", paymentAttempts: 1 })
      expect(yield* repo.collectibleInvoices(1000)).not.toContain(a.invoiceId)
    }))

  it.effect("billing: usage records are written once per project and id, also under concurrency; a rollback forgets them", () =>
    Effect.gen(function*() {
      const repo = yield* BillingRepo
      const tx = yield* Transactor
      const { ids } = yield* withProject
      const other = yield* withProject
      const row = (recordId: string, quantity = 1) => ({
        recordId, metricCode: "api_call", category: "api", quantity, occurredAt: T0, recordedAt: plus(T0, 1000)
      })
      expect(yield* repo.insertUsageRecords(ids.projectId, [])).toEqual([])
      expect(yield* repo.insertUsageRecords(ids.projectId, [row("r-1"), row("r-2", 9007199254740991)])).toEqual(["r-1", "r-2"])
      // A repeat (even with other content) is left as it is; the same id in another project is another record.
      expect(yield* repo.insertUsageRecords(ids.projectId, [row("r-2", 5), row("r-3")])).toEqual(["r-3"])
      expect(yield* repo.insertUsageRecords(other.ids.projectId, [row("r-1")])).toEqual(["r-1"])
      const racers = yield* Effect.all(
        Array.from({ length: 4 }, () => tx.withTransaction(repo.insertUsageRecords(ids.projectId, [row("r-race")]))),
        { concurrency: "unbounded" }
      )
      expect(racers.flat()).toEqual(["r-race"])
      const rolledBack = yield* tx.withTransaction(Effect.andThen(repo.insertUsageRecords(ids.projectId, [row("r-undone")]), Effect.fail("stop"))).pipe(Effect.flip)
      expect(rolledBack).toBe("stop")
      expect(yield* repo.insertUsageRecords(ids.projectId, [row("r-undone")])).toEqual(["r-undone"])
    }))

  it.effect("billing: an account is created empty when first locked; its card and balance round-trip", () =>
    Effect.gen(function*() {
      const repo = yield* BillingRepo
      const { owner } = yield* withProject
      expect(Option.isNone(yield* repo.findAccount(owner.organizationId))).toBe(true)
      const empty = yield* repo.lockAccount(owner.organizationId)
      expect(empty).toEqual({ organizationId: owner.organizationId, paymentMethod: null, creditBalanceCents: 0, invoiceCount: 0 })
      const account = {
        ...empty,
        creditBalanceCents: 9007199254740991,
        invoiceCount: 7,
        paymentMethod: { brand: "visa", last4: "4242", expiresMonth: 12, expiresYear: 2040, behaviour: "requires_action" as const, providerRef: "pm_1" }
      }
      yield* repo.updateAccount(account)
      expect(Option.getOrThrow(yield* repo.findAccount(owner.organizationId))).toEqual(account)
      expect(yield* repo.lockAccount(owner.organizationId)).toEqual(account)
    }))

  it.effect("billing: an organization's own subscription: none, then written, replaced, locked; a rollback forgets it; SSO sees its plan", () =>
    Effect.gen(function*() {
      const repo = yield* BillingRepo
      const tx = yield* Transactor
      const { ids, owner } = yield* withProject
      const other = yield* ownerAndOrganization
      expect(Option.isNone(yield* repo.findOrganizationSubscription(owner.organizationId))).toBe(true)
      expect(Option.isNone(yield* repo.lockOrganizationSubscription(owner.organizationId))).toBe(true)
      const sub: OrganizationSubscriptionRecord = {
        organizationId: owner.organizationId, planCode: "organization_sso_monthly", anchorDay: DAY0, paidThroughDay: DAY0 + 30,
        heldFixedCharges: [{ fixedChargeCode: "sso_seats", quantity: 9007199254740991 }], version: 1, createdAt: T0, updatedAt: T0
      }
      yield* repo.saveOrganizationSubscription(sub)
      expect(Option.getOrThrow(yield* repo.findOrganizationSubscription(owner.organizationId))).toEqual(sub)
      const next = { ...sub, heldFixedCharges: [], version: 2, updatedAt: plus(T0, 5) }
      yield* tx.withTransaction(Effect.gen(function*() {
        expect(Option.getOrThrow(yield* repo.lockOrganizationSubscription(owner.organizationId))).toEqual(sub)
        yield* repo.saveOrganizationSubscription(next)
      }))
      expect(Option.getOrThrow(yield* repo.findOrganizationSubscription(owner.organizationId))).toEqual(next)
      const undone = yield* tx.withTransaction(
        Effect.andThen(repo.saveOrganizationSubscription({ ...next, version: 3 }), Effect.fail("stop"))
      ).pipe(Effect.flip)
      expect(undone).toBe("stop")
      expect(Option.getOrThrow(yield* repo.findOrganizationSubscription(owner.organizationId)).version).toBe(2)
      expect(Option.isNone(yield* repo.findOrganizationSubscription(other.organizationId))).toBe(true)
      // Due once the day it is invoiced through has ended (the scheduler renews it).
      const due = (t: DateTime.Utc) => Effect.map(repo.dueOrganizationSubscriptions({ now: t, limit: 1000 }), (ids) => ids.includes(owner.organizationId))
      expect(yield* due(plus(T0, 31 * DAY - 1))).toBe(false)
      expect(yield* due(plus(T0, 31 * DAY))).toBe(true)
      yield* repo.saveOrganizationSubscription({ ...next, paidThroughDay: DAY0 + 60 })
      expect(yield* due(plus(T0, 31 * DAY))).toBe(false)
      // The SSO entitlement reads the organization's plan beside its projects' ones.
      expect(yield* repo.insertSubscription(subscription(ids, "messaging", { planCode: "pro_monthly" }))).toBe(true)
      expect(yield* (yield* SsoRepo).planCodesOf(owner.organizationId)).toEqual(["organization_sso_monthly", "pro_monthly"])
      expect(yield* (yield* SsoRepo).planCodesOf(other.organizationId)).toEqual([])
    }))
}
