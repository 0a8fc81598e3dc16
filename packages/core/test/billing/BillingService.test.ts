/**
 * Billing service (docs/api-notes/billing.md) on the testkit's memory layers with
 * `TestClock`: subscriptions from creation, operations and their failure codes, on_payment and its
 * timeout, downgrades at period end, period rollover, usage thresholds, commitments and events.
 */
import { describe, expect, it } from "@effect/vitest"
import { Projects, SwitchboardCore } from "@switchboard/core"
import { Accounts } from "@switchboard/core/accounts"
import { billingEventSchemas, BillingRepo, BillingService, PaymentMethods } from "@switchboard/core/billing"
import { Principal } from "@switchboard/core/credentials"
import { EventOutbox } from "@switchboard/core/events"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import { ProjectsService } from "@switchboard/core/projects"
import {
  formatTypeId,
  IdKinds,
  OrganizationId,
  type ProjectId,
  ServiceKeyId,
  uuidv7Bytes
} from "@switchboard/core/shared"
import { ScriptedPayments, TestkitLive } from "@switchboard/testkit"
import { DateTime, Effect, Result, Layer, Option, Schema } from "effect"
import { TestClock } from "effect/testing"

const Env = SwitchboardCore.pipe(Layer.provideMerge(TestkitLive))
const ms = (iso: string) => Date.parse(iso)
let seq = 0

/** An organization with one member, and a project created at `createdAt`. */
const newProject = (createdAt: string) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(ms(createdAt))
    const account = yield* (yield* Accounts).create({ email: `owner${++seq}@example.com` })
    const organizationId = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(ms(createdAt), crypto.getRandomValues(new Uint8Array(10)))))
    const now = yield* DateTime.now
    yield* (yield* OrganizationsRepo).insert({ organizationId, name: "Org", createdAt: now, updatedAt: now }, account.accountId)
    const principal = Principal.Account({
      accountId: account.accountId,
      serviceKeyId: ServiceKeyId.make(formatTypeId(IdKinds.accountServiceKey, uuidv7Bytes(ms(createdAt), new Uint8Array(10).fill(1))))
    })
    const project = yield* (yield* ProjectsService).create({
      accountId: account.accountId, organizationId, name: "Billing", slug: Projects.ProjectSlug.make(`billing-${++seq}`)
    })
    return { organizationId, principal, projectId: project.projectId as ProjectId }
  })

type Ctx = Effect.Success<ReturnType<typeof newProject>>

const card = (organizationId: OrganizationId, behaviour: "off_session" | "requires_action", providerRef = "pm_test_card") =>
  Effect.flatMap(PaymentMethods, (p) =>
    p.attach(organizationId, { brand: "visa", last4: "4242", expiresMonth: 12, expiresYear: 2040, behaviour, providerRef }))

/** Submits and runs a plan change. */
const changePlan = (ctx: Ctx, category: string, planCode: string, additions: ReadonlyArray<{ fixedChargeCode: string; quantity: number }> = [], key = `k${++seq}`) =>
  Effect.gen(function*() {
    const billing = yield* BillingService
    const { operation } = yield* billing.submit({
      principal: ctx.principal, projectId: ctx.projectId, kind: "change_plan",
      request: { type: "change_plan", category, planCode, additions },
      idempotency: { scope: "test", key, fingerprint: `${category}/${planCode}/${JSON.stringify(additions)}` }
    })
    return yield* billing.process(operation.operationId)
  })

const adjust = (ctx: Ctx, fixedChargeCode: string, quantity: number) =>
  Effect.gen(function*() {
    const billing = yield* BillingService
    const { operation } = yield* billing.submit({
      principal: ctx.principal, projectId: ctx.projectId, kind: "adjust_fixed_charge_quantity",
      request: { type: "adjust_fixed_charge_quantity", fixedChargeCode, quantity },
      idempotency: { scope: "test", key: `k${++seq}`, fingerprint: `${fixedChargeCode}/${quantity}` }
    })
    return yield* billing.process(operation.operationId)
  })

const planIn = (ctx: Ctx, category: string) =>
  Effect.map(BillingService.use((billing) => billing.overview(ctx.projectId)), (o) => o.subscriptions.find((s) => s.category === category)!)
const invoices = (ctx: Ctx) => BillingService.use((billing) => billing.listInvoices(ctx.organizationId))
const eventTypes = (ctx: Ctx) =>
  Effect.map(
    Effect.flatMap(EventOutbox, (o) => o.list({ projectId: ctx.projectId, after: 0, limit: 100 })),
    (es) => es.map((e) => e.event.type).filter((t) => t.startsWith("billing."))
  )

describe("subscriptions from creation", () => {
  it.effect("a project is on each category's default plan, anchored at its creation, with the opening invoices", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T09:00:00.000Z")
      const overview = yield* (yield* BillingService).overview(ctx.projectId)
      expect(overview.subscriptions.map((s) => [s.category, s.planCode])).toEqual([
        ["api", "basic_arrears"], ["messaging", "starter_monthly"], ["studio", "weekly_basic"]
      ])
      const messaging = overview.subscriptions.find((s) => s.category === "messaging")!
      expect(DateTime.formatIso(messaging.currentPeriodStart!)).toBe("2025-03-01T00:00:00.000Z")
      expect(DateTime.formatIso(messaging.currentPeriodEnd!)).toBe("2025-04-01T00:00:00.000Z")
      expect(messaging.entitlements).toEqual([{ featureKey: "messages.max_per_month", value: "1000" }])
      // In advance: Starter 2900 and Studio Basic 700 at creation; API Basic is billed in arrears.
      const list = yield* invoices(ctx)
      expect(list.map((i) => i.totalCents).sort()).toEqual([2900, 700].sort())
      expect(list.every((i) => DateTime.formatIso(i.issuedAt!) === "2025-03-01T09:00:00.000Z")).toBe(true)
      // The zero-total opening invoice of API Basic (arrears) is not listed and takes no number:
      // the customer's first invoice is -00001, and visible numbers have no gaps.
      expect(list.map((i) => i.number.split("-")[1]).sort()).toEqual(["00001", "00002"])
      // Asking again changes nothing.
      yield* (yield* BillingService).overview(ctx.projectId)
      expect((yield* invoices(ctx)).length).toBe(2)
    }).pipe(Effect.provide(Env)))

  it.effect("materialised late, a subscription is the same as one written at creation (periods closed in order)", () =>
    Effect.gen(function*() {
      const early = yield* newProject("2025-03-01T09:00:00.000Z")
      yield* (yield* BillingService).overview(early.projectId)
      const late = yield* newProject("2025-03-01T09:00:00.000Z")
      yield* TestClock.setTime(ms("2025-05-10T12:00:00.000Z"))
      yield* (yield* BillingService).tick()
      // `late` was first seen by the scheduler only now; `early` was seen at creation.
      const shape = (list: ReadonlyArray<{ totalCents: number; issuedAt: DateTime.Utc | null; lines: ReadonlyArray<unknown> }>) =>
        list.map((i) => ({ total: i.totalCents, at: DateTime.formatIso(i.issuedAt!), lines: i.lines }))
          .sort((a, b) => a.at.localeCompare(b.at) || a.total - b.total)
      const a = shape(yield* invoices(early))
      const b = shape(yield* invoices(late))
      expect(b).toEqual(a)
      // Over several closed periods (zero-total ones among them), visible numbers run 1..n.
      const numbers = (yield* invoices(early)).map((i) => Number(i.number.split("-")[1])).sort((x, y) => x - y)
      expect(numbers).toEqual(numbers.map((_, i) => i + 1))
      expect(a.filter((i) => i.at === "2025-04-01T00:00:00.000Z").map((i) => i.total).sort()).toEqual([2900, 3000].sort())
      const subs = (yield* (yield* BillingService).overview(late.projectId)).subscriptions
      expect(DateTime.formatIso(subs.find((s) => s.category === "messaging")!.currentPeriodStart!)).toBe("2025-05-01T00:00:00.000Z")
    }).pipe(Effect.provide(Env)))
})

describe("changePlan", () => {
  it.effect("E1 through the service: an upgrade with a card on file applies now, invoices 3226 and emits its events", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "off_session")
      yield* TestClock.setTime(ms("2025-03-12T15:30:00.000Z"))
      const preview = yield* (yield* BillingService).preview(ctx.projectId, { category: "messaging", planCode: "pro_monthly" })
      expect(preview.dueNow.totalCents).toBe(3226)
      expect(preview.planChange?.timing).toBe("immediate")
      const op = yield* changePlan(ctx, "messaging", "pro_monthly")
      expect(op.status).toBe("succeeded")
      expect(op.result).toEqual({ type: "version", version: "2", effectiveAt: null })
      expect((yield* planIn(ctx, "messaging")).planCode).toBe("pro_monthly")
      const upgrade = (yield* invoices(ctx)).find((i) => i.totalCents === 3226)!
      expect(upgrade.feesCents).toBe(5097)
      expect(upgrade.creditsCents).toBe(1871)
      expect(upgrade.paymentStatus).toBe("succeeded")
      const charged = yield* Effect.flatMap(ScriptedPayments, (p) => p.charges)
      expect(charged.at(-1)).toMatchObject({ reference: op.operationId, amountCents: 3226, outcome: "Succeeded" })
      expect(yield* eventTypes(ctx)).toEqual(expect.arrayContaining(["billing.plan.changed", "billing.operation.succeeded"]))
      // Every billing event's data matches its schema in the event catalog.
      const all = yield* Effect.flatMap(EventOutbox, (o) => o.list({ projectId: ctx.projectId, after: 0, limit: 100 }))
      for (const e of all.filter((x) => x.event.type.startsWith("billing."))) {
        const schema = billingEventSchemas[e.event.type]!
        expect(Result.isSuccess(Schema.decodeUnknownResult(schema, { onExcessProperty: "error" })(e.event.data)), e.event.type).toBe(true)
      }
      const changed = all.find((x) => x.event.type === "billing.plan.changed")!.event.data
      expect(changed).toMatchObject({ category: "messaging", previousPlanCode: "starter_monthly", planCode: "pro_monthly", version: "2" })
    }).pipe(Effect.provide(Env)))

  it.effect("a declined charge fails payment_failed (retryable) and changes nothing", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "off_session", "pm_decline_card")
      yield* TestClock.setTime(ms("2025-03-12T15:30:00.000Z"))
      const before = (yield* invoices(ctx)).length
      const op = yield* changePlan(ctx, "messaging", "pro_monthly")
      expect(op.failure).toEqual({ code: "payment_failed", detail: null, retryable: true, unsoldFixedCharges: [] })
      expect((yield* planIn(ctx, "messaging")).planCode).toBe("starter_monthly")
      expect((yield* invoices(ctx)).length).toBe(before)
      expect(yield* eventTypes(ctx)).toEqual(["billing.operation.failed"])
    }).pipe(Effect.provide(Env)))

  it.effect("no payment method: payment_method_required (not retryable); a downgrade needs none", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      yield* TestClock.setTime(ms("2025-03-12T15:30:00.000Z"))
      const preview = yield* (yield* BillingService).preview(ctx.projectId, { category: "messaging", planCode: "pro_monthly" })
      expect(preview.planChange?.timing).toBe("on_payment")
      const op = yield* changePlan(ctx, "messaging", "pro_monthly")
      expect(op.failure).toMatchObject({ code: "payment_method_required", detail: null, retryable: false })
      // With a card, upgrade; without it again, a downgrade (period_end, nothing due) still goes through.
      yield* card(ctx.organizationId, "off_session")
      expect((yield* changePlan(ctx, "studio", "weekly_plus")).status).toBe("succeeded")
      yield* Effect.flatMap(PaymentMethods, (p) => p.detach(ctx.organizationId))
      expect((yield* (yield* PaymentMethods).get(ctx.organizationId)).cardOnFile).toBe(false)
      const down = yield* changePlan(ctx, "studio", "weekly_basic")
      expect(down.status).toBe("succeeded")
      expect(down.result?.effectiveAt).not.toBeNull()
    }).pipe(Effect.provide(Env)))

  it.effect("on_payment: the operation waits; paid a day later, the change applies with the amounts of the day asked", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "requires_action")
      yield* TestClock.setTime(ms("2025-03-12T15:30:00.000Z"))
      const op = yield* changePlan(ctx, "messaging", "pro_monthly")
      expect(op.status).toBe("pending")
      const waiting = (yield* planIn(ctx, "messaging")).scheduledChange
      expect(waiting).toMatchObject({ timing: "on_payment", planCode: "pro_monthly", paymentUrl: `https://pay.test/${op.operationId}` })
      expect(DateTime.formatIso(waiting!.expiresAt!)).toBe("2025-03-13T14:30:00.000Z")
      expect((yield* planIn(ctx, "messaging")).planCode).toBe("starter_monthly")
      // The tick leaves it alone before the deadline.
      yield* TestClock.setTime(ms("2025-03-13T10:00:00.000Z"))
      expect((yield* (yield* BillingService).tick()).expired).toBe(0)
      const done = yield* (yield* BillingService).settlePayment(op.operationId, "succeeded")
      expect(done.status).toBe("succeeded")
      expect((yield* planIn(ctx, "messaging")).planCode).toBe("pro_monthly")
      expect((yield* invoices(ctx)).some((i) => i.totalCents === 3226)).toBe(true)
      // A repeat of the provider's report changes nothing.
      expect((yield* (yield* BillingService).settlePayment(op.operationId, "failed")).status).toBe("succeeded")
    }).pipe(Effect.provide(Env)))

  it.effect("on_payment timeout (TestClock): unpaid after 23 h the tick fails it payment_timeout and cancels the payment", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "requires_action")
      yield* TestClock.setTime(ms("2025-03-12T15:30:00.000Z"))
      const op = yield* changePlan(ctx, "messaging", "pro_monthly")
      yield* TestClock.adjust("22 hours")
      expect((yield* (yield* BillingService).tick()).expired).toBe(0)
      yield* TestClock.adjust("1 hour")
      expect((yield* (yield* BillingService).tick()).expired).toBe(1)
      const failed = yield* (yield* BillingService).getOperation(ctx.projectId, op.operationId)
      expect(failed.failure).toEqual({ code: "payment_failed", detail: "payment_timeout", retryable: true, unsoldFixedCharges: [] })
      expect(yield* Effect.flatMap(ScriptedPayments, (p) => p.cancelled)).toEqual([op.operationId])
      expect((yield* planIn(ctx, "messaging")).planCode).toBe("starter_monthly")
      // Paying after the window is too late.
      expect((yield* (yield* BillingService).settlePayment(op.operationId, "succeeded")).status).toBe("failed")
    }).pipe(Effect.provide(Env)))

  it.effect("listOperations: the project's operations newest first, bounded, with their outcome", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "requires_action")
      yield* TestClock.setTime(ms("2025-03-12T15:30:00.000Z"))
      const first = yield* changePlan(ctx, "messaging", "pro_monthly")
      yield* TestClock.adjust("1 hour")
      const second = yield* changePlan(ctx, "studio", "weekly_basic")
      const listed = yield* (yield* BillingService).listOperations(ctx.projectId, 10)
      expect(listed.map((o) => o.operationId)).toEqual([second.operationId, first.operationId])
      expect(listed[1]).toEqual(yield* (yield* BillingService).getOperation(ctx.projectId, first.operationId))
      expect(yield* (yield* BillingService).listOperations(ctx.projectId, 1)).toHaveLength(1)
      const other = yield* newProject("2025-03-01T00:00:00.000Z")
      expect(yield* (yield* BillingService).listOperations(other.projectId, 10)).toEqual([])
    }).pipe(Effect.provide(Env)))

  it.effect("on_payment near the period end: the window closes at the period end", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "requires_action")
      yield* TestClock.setTime(ms("2025-03-31T20:00:00.000Z"))
      const op = yield* changePlan(ctx, "messaging", "pro_monthly")
      expect(DateTime.formatIso((yield* planIn(ctx, "messaging")).scheduledChange!.expiresAt!)).toBe("2025-04-01T00:00:00.000Z")
      yield* TestClock.setTime(ms("2025-04-01T00:00:00.000Z"))
      yield* (yield* BillingService).tick()
      expect((yield* (yield* BillingService).getOperation(ctx.projectId, op.operationId)).failure?.detail).toBe("payment_timeout")
    }).pipe(Effect.provide(Env)))

  it.effect("a downgrade is scheduled for period end; a newer one replaces it; it applies at the boundary with its invoice", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "off_session")
      yield* TestClock.setTime(ms("2025-03-05T10:00:00.000Z"))
      yield* changePlan(ctx, "messaging", "business_monthly")
      yield* TestClock.setTime(ms("2025-03-12T15:30:00.000Z"))
      const first = yield* changePlan(ctx, "messaging", "pro_monthly")
      expect(first.result).toMatchObject({ type: "version", effectiveAt: DateTime.makeUnsafe("2025-04-01T00:00:00.000Z") })
      const second = yield* changePlan(ctx, "messaging", "starter_monthly")
      expect(second.status).toBe("succeeded")
      expect((yield* planIn(ctx, "messaging")).scheduledChange).toMatchObject({ planCode: "starter_monthly", timing: "period_end" })
      yield* TestClock.setTime(ms("2025-04-01T00:00:00.000Z"))
      yield* (yield* BillingService).tick()
      const after = yield* planIn(ctx, "messaging")
      expect(after.planCode).toBe("starter_monthly")
      expect(after.scheduledChange).toBeNull()
      const april = (yield* invoices(ctx)).filter((i) => DateTime.formatIso(i.issuedAt!) === "2025-04-01T00:00:00.000Z")
      expect(april.flatMap((i) => i.lines.map((l) => `${l.code}:${l.amountCents}`))).toEqual(expect.arrayContaining(["starter_monthly:2900"]))
      const changed = (yield* eventTypes(ctx)).filter((t) => t === "billing.plan.changed")
      expect(changed.length).toBe(2) // business now, starter at the boundary
    }).pipe(Effect.provide(Env)))

  it.effect("an upgrade cancels a scheduled downgrade", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "off_session")
      yield* TestClock.setTime(ms("2025-03-05T10:00:00.000Z"))
      yield* changePlan(ctx, "messaging", "pro_monthly")
      yield* changePlan(ctx, "messaging", "starter_monthly")
      expect((yield* planIn(ctx, "messaging")).scheduledChange?.planCode).toBe("starter_monthly")
      yield* changePlan(ctx, "messaging", "business_monthly")
      const now = yield* planIn(ctx, "messaging")
      expect(now.planCode).toBe("business_monthly")
      expect(now.scheduledChange).toBeNull()
      yield* TestClock.setTime(ms("2025-04-01T00:00:00.000Z"))
      yield* (yield* BillingService).tick()
      expect((yield* planIn(ctx, "messaging")).planCode).toBe("business_monthly")
    }).pipe(Effect.provide(Env)))

  it.effect("invalid_target details, first failure wins; not retryable", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "off_session")
      const cases: Array<[string, string, ReadonlyArray<{ fixedChargeCode: string; quantity: number }>, string]> = [
        ["messaging", "nope", [], "plan_not_found"],
        ["nowhere", "pro_monthly", [], "plan_not_found"],
        ["messaging", "starter_monthly", [], "target_rejected"],
        ["messaging", "pro_monthly", [{ fixedChargeCode: "ghost", quantity: 1 }], "feature_not_found"],
        ["messaging", "pro_yearly", [{ fixedChargeCode: "seats", quantity: 1 }], "feature_not_sold_by_plan"],
        ["messaging", "pro_monthly", [{ fixedChargeCode: "sso", quantity: 2 }], "quantity_out_of_range"]
      ]
      for (const [category, planCode, additions, detail] of cases) {
        const op = yield* changePlan(ctx, category, planCode, additions)
        expect(op.failure, detail).toEqual({ code: "invalid_target", detail, retryable: false, unsoldFixedCharges: [] })
      }
      expect((yield* planIn(ctx, "messaging")).planCode).toBe("starter_monthly")
    }).pipe(Effect.provide(Env)))

  it.effect("release_required lists held charges the target does not sell; released, the change goes through", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "off_session")
      yield* TestClock.setTime(ms("2025-03-02T10:00:00.000Z"))
      yield* changePlan(ctx, "messaging", "pro_monthly", [{ fixedChargeCode: "sso", quantity: 1 }, { fixedChargeCode: "seats", quantity: 3 }])
      expect((yield* planIn(ctx, "messaging")).fixedCharges.map((c) => [c.fixedChargeCode, c.quantity])).toEqual([["seats", 3], ["sso", 1]])
      const refused = yield* changePlan(ctx, "messaging", "business_monthly")
      expect(refused.failure).toEqual({
        code: "invalid_target", detail: "release_required", retryable: false, unsoldFixedCharges: [{ fixedChargeCode: "sso", quantity: 1 }]
      })
      expect((yield* adjust(ctx, "sso", 0)).status).toBe("succeeded")
      expect((yield* changePlan(ctx, "messaging", "business_monthly")).status).toBe("succeeded")
      expect((yield* planIn(ctx, "messaging")).fixedCharges.map((c) => [c.fixedChargeCode, c.quantity, c.unitAmountCents])).toEqual([["seats", 3, 2000]])
    }).pipe(Effect.provide(Env)))

  it.effect("not_provisioned when the current plan left the catalog; internal (retryable) on a provider crash; reconciliation_required when the outcome is unknown", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "off_session")
      yield* TestClock.setTime(ms("2025-03-12T15:30:00.000Z"))
      yield* (yield* BillingService).overview(ctx.projectId)
      const payments = yield* ScriptedPayments
      yield* payments.script("die")
      expect((yield* changePlan(ctx, "messaging", "pro_monthly")).failure).toEqual({ code: "internal", detail: null, retryable: true, unsoldFixedCharges: [] })
      yield* payments.script({ _tag: "Unknown", reason: "timeout" })
      expect((yield* changePlan(ctx, "messaging", "pro_monthly")).failure)
        .toEqual({ code: "internal", detail: "reconciliation_required", retryable: false, unsoldFixedCharges: [] })
      expect((yield* planIn(ctx, "messaging")).planCode).toBe("starter_monthly")
      const repo = yield* BillingRepo
      const sub = Option.getOrThrow(yield* repo.lockSubscription(ctx.projectId, "messaging"))
      yield* repo.updateSubscription({ ...sub, planCode: "retired_plan" })
      expect((yield* changePlan(ctx, "messaging", "pro_monthly")).failure).toEqual({ code: "not_provisioned", detail: null, retryable: false, unsoldFixedCharges: [] })
      const preview = yield* Effect.result(BillingService.use((billing) => billing.preview(ctx.projectId, { category: "messaging", planCode: "pro_monthly" })))
      expect(Result.isFailure(preview) && preview.failure._tag).toBe("BillingNotProvisioned")
    }).pipe(Effect.provide(Env)))

  it.effect("the same Idempotency-Key returns the same operation; with another request it is refused", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      const billing = yield* BillingService
      const input = {
        principal: ctx.principal, projectId: ctx.projectId, kind: "change_plan" as const,
        request: { type: "change_plan" as const, category: "studio", planCode: "weekly_plus", additions: [] },
        idempotency: { scope: "s", key: "same", fingerprint: "f1" }
      }
      const first = yield* billing.submit(input)
      const again = yield* billing.submit(input)
      expect(first.created).toBe(true)
      expect(again.created).toBe(false)
      expect(again.operation.operationId).toBe(first.operation.operationId)
      const other = yield* Effect.result(billing.submit({ ...input, idempotency: { ...input.idempotency, fingerprint: "f2" } }))
      expect(Result.isFailure(other) && other.failure._tag).toBe("BillingIdempotencyKeyReused")
    }).pipe(Effect.provide(Env)))
})

describe("fixed charge quantities", () => {
  it.effect("more seats bill the added units for the rest of the period; fewer bill nothing; out of range is refused", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-03-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "off_session")
      yield* TestClock.setTime(ms("2025-03-02T00:00:00.000Z"))
      yield* changePlan(ctx, "messaging", "pro_monthly")
      yield* TestClock.setTime(ms("2025-03-12T15:30:00.000Z"))
      const preview = yield* (yield* BillingService).preview(ctx.projectId, { fixedCharge: { fixedChargeCode: "seats", quantity: 4 } })
      // 1500 × 4 × 20 / 31 = 3870.97 → 3871, for [03-12, 04-01).
      expect(preview.dueNow.lines).toEqual([{
        amountCents: 3871, code: "seats", kind: "fixed_charge", name: "Extra seats", units: "4",
        periodStart: DateTime.makeUnsafe("2025-03-12T00:00:00.000Z"), periodEnd: DateTime.makeUnsafe("2025-04-01T00:00:00.000Z")
      }])
      expect(preview.nextCharge?.amountCents).toBe(7900 + 4 * 1500)
      expect(preview.planChange).toBeUndefined()
      const up = yield* adjust(ctx, "seats", 4)
      expect(up.status).toBe("succeeded")
      expect((yield* invoices(ctx)).some((i) => i.totalCents === 3871)).toBe(true)
      const count = (yield* invoices(ctx)).length
      expect((yield* adjust(ctx, "seats", 1)).status).toBe("succeeded")
      expect((yield* invoices(ctx)).length).toBe(count)
      expect((yield* adjust(ctx, "seats", 101)).failure?.detail).toBe("quantity_out_of_range")
      expect((yield* adjust(ctx, "ghost", 1)).failure?.detail).toBe("feature_not_found")
      const notSold = yield* Effect.result(BillingService.use((billing) => billing.preview(ctx.projectId, { category: "api", fixedCharge: { fixedChargeCode: "seats", quantity: 1 } })))
      expect(Result.isFailure(notSold) && notSold.failure._tag === "BillingChangeRejected" && notSold.failure.detail).toBe("feature_not_sold_by_plan")
    }).pipe(Effect.provide(Env)))
})

describe("period end (TestClock)", () => {
  it.effect("rollover: each period closes once, in-arrears base and usage invoiced at the boundary", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-06-01T08:00:00.000Z")
      yield* (yield* BillingService).overview(ctx.projectId)
      yield* (yield* BillingService).recordUsage({ projectId: ctx.projectId, metricCode: "api_call", units: 24680 })
      yield* TestClock.setTime(ms("2025-06-30T23:59:59.000Z"))
      yield* (yield* BillingService).tick()
      expect((yield* invoices(ctx)).some((i) => i.lines.some((l) => l.code === "basic_arrears"))).toBe(false)
      yield* TestClock.setTime(ms("2025-07-01T00:00:00.000Z"))
      yield* (yield* BillingService).tick()
      yield* (yield* BillingService).tick()
      const july = (yield* invoices(ctx)).filter((i) => i.lines.some((l) => l.code === "basic_arrears"))
      expect(july.length).toBe(1)
      // 3000 base + 24680 × 0.05 = 1234.
      expect(july[0]!.lines.map((l) => [l.kind, l.code, l.amountCents, l.units])).toEqual([
        ["subscription", "basic_arrears", 3000, "1"], ["usage", "api_calls", 1234, "24680"]
      ])
      expect(july[0]!.totalCents).toBe(4234)
      const usage = (yield* (yield* BillingService).overview(ctx.projectId)).usage
      expect(usage).toEqual([expect.objectContaining({ metricCode: "api_call", units: 0, amountCents: 0 })])
    }).pipe(Effect.provide(Env)))

  it.effect("usage thresholds: one progressive invoice per crossing, a recurring one again every further amount; the period end credits them", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-06-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "off_session")
      yield* changePlan(ctx, "api", "plus_arrears")
      const record = (units: number) => BillingService.use((billing) => billing.recordUsage({ projectId: ctx.projectId, metricCode: "api_call", units }))
      const progressive = () => Effect.map(invoices(ctx), (l) => l.filter((i) => i.lines.every((x) => x.kind === "usage")).map((i) => i.totalCents))
      yield* record(100_000) // 5000: below 10000
      yield* (yield* BillingService).tick()
      expect(yield* progressive()).toEqual([])
      yield* record(150_000) // 12500: crosses 10000
      yield* (yield* BillingService).tick()
      expect(yield* progressive()).toEqual([12500])
      yield* record(100_000) // 17500: nothing crossed
      yield* (yield* BillingService).tick()
      expect(yield* progressive()).toEqual([12500])
      yield* record(200_000) // 27500: crosses 25000 (recurring)
      yield* (yield* BillingService).tick()
      expect((yield* progressive()).sort()).toEqual([12500, 15000].sort())
      yield* TestClock.setTime(ms("2025-07-01T00:00:00.000Z"))
      yield* (yield* BillingService).tick()
      const closing = (yield* invoices(ctx)).find((i) => i.lines.some((l) => l.code === "plus_arrears"))!
      expect(closing.lines.find((l) => l.kind === "usage")?.amountCents).toBe(27500)
      expect(closing.creditsCents).toBe(27500)
      expect(closing.totalCents).toBe(6000)
    }).pipe(Effect.provide(Env)))

  it.effect("minimum commitment: the shortfall is invoiced at period end", () =>
    Effect.gen(function*() {
      const ctx = yield* newProject("2025-06-01T00:00:00.000Z")
      yield* card(ctx.organizationId, "off_session")
      yield* changePlan(ctx, "api", "growth_monthly")
      yield* (yield* BillingService).recordUsage({ projectId: ctx.projectId, metricCode: "api_call", units: 20000 }) // 1000
      yield* TestClock.setTime(ms("2025-07-01T00:00:00.000Z"))
      yield* (yield* BillingService).tick()
      const closing = (yield* invoices(ctx)).find((i) => i.lines.some((l) => l.code === "growth_monthly"))!
      // 20000 − (4997 + 1000) = 14003.
      expect(closing.lines.map((l) => [l.kind, l.amountCents])).toEqual([["subscription", 4997], ["usage", 1000], ["commitment", 14003]])
    }).pipe(Effect.provide(Env)))
})
