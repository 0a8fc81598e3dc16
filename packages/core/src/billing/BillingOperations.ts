/**
 * Billing operations (docs/api-notes/billing.md):
 * `changePlan` and `adjustFixedChargeQuantity` are created `pending` under the caller's
 * Idempotency-Key (`submit`), then executed (`process`): the preview of docs/api-notes/billing.md
 * decides what happens — a rejection fails the operation, a downgrade is scheduled for period end
 * (replacing an older one), an upgrade applies now (`immediate`: charged off-session, a decline
 * changes nothing) or once paid (`on_payment`: it waits for `settlePayment`, and fails
 * `payment_timeout` at `min(submitted + 23 h, period end)`). An upgrade cancels a scheduled
 * downgrade.
 *
 * Which of these happens is decided by the pure `decideOperation` (OperationDecision.ts); this
 * module reads the facts it needs and performs what it decides. Every state change writes its
 * `billing.*` events in its own transaction.
 */
import { DateTime, Effect, Result, Option } from "effect"
import type { Principal } from "../credentials/Access.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { ProjectsRepo } from "../projects/Ports.js"
import { IdKinds } from "../shared/Identifiers.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import { fn } from "../internal/Traced.js"
import { type BillingChanges, toBillingOperation } from "./BillingChanges.js"
import { decodeInvoice, decodeLines, encodeInvoice, encodeLines, PAYMENT_WINDOW, paymentState } from "./BillingInvoices.js"
import { type BillingPreviews, currentOf } from "./BillingPreviews.js"
import { type BillingSubscriptions, dayOf } from "./BillingSubscriptions.js"
import { findPlan } from "./Catalog.js"
import { BillingIdempotencyKeyReused, BillingOperationNotFound } from "./Errors.js"
import { previewFixedChargeChange } from "./FixedChargeChange.js"
import { instantOfDay } from "./Invoicing.js"
import {
  type ChargeResult, decideOperation, type OperationCommand, type OperationState, type OperationStep, type StartCheck
} from "./OperationDecision.js"
import { type PlanChangePreviewError, previewPlanChange } from "./PlanChange.js"
import {
  type AwaitingPayment, BillingRepo, type OperationRecord, type OperationRequest, PaymentProvider, type SubscriptionRecord
} from "./Ports.js"
import { period } from "./Proration.js"
import type { BillingOperationKind, HeldFixedCharge, PreviewInvoice, PreviewLine } from "./Schema.js"

export { toBillingOperation } from "./BillingChanges.js"

/** The decision state of a stored operation. */
const stateOf = (op: OperationRecord): OperationState =>
  op.status === "succeeded"
    ? { _tag: "Succeeded" }
    : op.status === "failed"
    ? { _tag: "Failed" }
    : op.awaitingPayment === null
    ? { _tag: "NotStarted" }
    : { _tag: "AwaitingPayment", deadline: DateTime.toEpochMillis(op.awaitingPayment.deadline) }

const previewFailed = (e: PlanChangePreviewError): StartCheck => ({
  _tag: "PreviewFailed",
  rejection: e._tag === "PlanChangeRejected" ? e.detail : null
})

/** What a previewed operation does for each action the decision may take. */
interface Prepared {
  readonly schedule: Effect.Effect<OperationRecord>
  readonly apply: Effect.Effect<OperationRecord>
  readonly wait: (actionUrl: string) => Effect.Effect<OperationRecord>
  readonly charge: (amountCents: number) => Effect.Effect<ChargeResult>
}

export const makeBillingOperations = (args: {
  readonly subscriptions: BillingSubscriptions
  readonly previews: BillingPreviews
  readonly changes: BillingChanges
}) =>
  Effect.gen(function*() {
    const repo = yield* BillingRepo
    const provider = yield* PaymentProvider
    const projects = yield* ProjectsRepo
    const tx = yield* Transactor
    const ids = yield* Ids
    const gate = yield* makeProjectGate
    const { catalog, categories, closeDuePeriods, ensureSubscriptions, planOf } = args.subscriptions
    const { categoryOfCharge } = args.previews
    const { applyQuantity, applyUpgrade, fail, resolve } = args.changes

    /**
     * Creates a pending operation under the caller's Idempotency-Key; the same key with the same
     * request returns the operation it created (`created: false`), with another request it is
     * refused. The project must be writable (locked while the operation is written).
     */
    const submit = fn("Billing.submit")(function*(input: {
      readonly principal: Principal
      readonly projectId: ProjectId
      readonly kind: BillingOperationKind
      readonly request: OperationRequest | { readonly type: "adjust_fixed_charge_quantity"; readonly fixedChargeCode: string; readonly quantity: number }
      readonly idempotency: { readonly scope: string; readonly key: string; readonly fingerprint: string }
    }) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        const known = yield* repo.findOperationByKey(input.idempotency.scope, input.idempotency.key)
        if (Option.isSome(known)) {
          if (known.value.fingerprint !== input.idempotency.fingerprint || known.value.projectId !== input.projectId) {
            return yield* new BillingIdempotencyKeyReused({ key: input.idempotency.key })
          }
          return { operation: known.value, created: false }
        }
        const project = yield* gate.open(input.projectId, input.principal, "write", { lock: true })
        const now = yield* DateTime.now
        const subs = yield* ensureSubscriptions(project, now)
        let request: OperationRequest
        if (input.request.type === "change_plan") {
          request = input.request
        } else {
          const category = categoryOfCharge(subs, input.request.fixedChargeCode, undefined)
          request = {
            type: "adjust_fixed_charge_quantity",
            category: Result.getOrElse(category, () => categories[0] ?? ""),
            fixedChargeCode: input.request.fixedChargeCode,
            quantity: input.request.quantity
          }
        }
        const op: OperationRecord = {
          operationId: yield* ids.typeId(IdKinds.billingOperation),
          projectId: project.projectId,
          organizationId: project.organizationId,
          kind: input.kind,
          status: "pending",
          request,
          idempotencyScope: input.idempotency.scope,
          idempotencyKey: input.idempotency.key,
          fingerprint: input.idempotency.fingerprint,
          awaitingPayment: null,
          result: null,
          failure: null,
          submittedAt: now,
          resolvedAt: null
        }
        const taken = yield* repo.insertOperation(op)
        if (Option.isSome(taken)) {
          if (taken.value.fingerprint !== op.fingerprint) return yield* new BillingIdempotencyKeyReused({ key: op.idempotencyKey })
          return { operation: taken.value, created: false }
        }
        return { operation: op, created: true }
      }))
    })
    /**
     * Performs what the decision says: charging (and deciding again on the provider's answer),
     * failing, scheduling, waiting or applying. `prepared` is null before a change was previewed,
     * when the decision can only fail or leave the operation as it is.
     */
    const perform = (op: OperationRecord, first: OperationStep, prepared: Prepared | null) =>
      Effect.gen(function*() {
        let step = first
        for (;;) {
          const action = step.action
          switch (action._tag) {
            case "None":
              return op
            case "Fail":
              if (action.cancelPayment) yield* provider.cancel({ reference: op.operationId })
              return yield* fail(op, action.failure)
            case "CheckSubscription":
              return yield* Effect.die(new Error("billing: CheckSubscription is answered by settlePayment"))
          }
          if (prepared === null) return yield* Effect.die(new Error(`billing: ${action._tag} without a previewed change`))
          switch (action._tag) {
            case "Schedule":
              return yield* prepared.schedule
            case "Apply":
              return yield* prepared.apply
            case "Wait":
              return yield* prepared.wait(action.actionUrl)
            case "Charge":
              step = decideOperation(step.state, { _tag: "Charged", charge: yield* prepared.charge(action.amountCents) })
          }
        }
      })

    /** Starts a pending operation (`decideOperation`'s `Start`) on the facts read under the subscription's lock. */
    const execute = (op: OperationRecord) =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        const request = op.request
        const start = (check: StartCheck) => decideOperation(stateOf(op), { _tag: "Start", requestType: request.type, check })
        const project = yield* projects.findById(op.projectId)
        if (Option.isNone(project) || project.value.state !== "active") {
          return yield* perform(op, start({ _tag: "ProjectUnavailable" }), null)
        }
        const locked = yield* repo.lockSubscription(op.projectId, request.category)
        if (Option.isNone(locked)) return yield* perform(op, start({ _tag: "SubscriptionMissing" }), null)
        // A period that ended is closed first: the change starts from the current one.
        const { sub } = yield* closeDuePeriods(locked.value, now)
        if (sub !== locked.value) yield* repo.updateSubscription(sub)
        const plan = planOf(sub)
        if (plan === undefined) return yield* perform(op, start({ _tag: "PlanMissing" }), null)
        const account = Option.getOrUndefined(yield* repo.findAccount(sub.organizationId))
        const paymentMethod = paymentState(account)
        const D = dayOf(now)
        const periodEndAt = instantOfDay(period(plan.interval, "anniversary", sub.anchorDay, D).end + 1)
        const deadline = DateTime.min(DateTime.addDuration(now, PAYMENT_WINDOW), periodEndAt)
        const payer = account === undefined || account.paymentMethod === null
          ? null
          : { organizationId: account.organizationId, paymentMethod: account.paymentMethod }

        /** Charges what is due now off-session (docs/api-notes/billing.md); `RequiresAction`: the customer pays later. */
        const charge = (currency: string) => (amountCents: number): Effect.Effect<ChargeResult> =>
          payer === null
            ? Effect.die(new Error("billing: a charge without a payment method"))
            : provider.charge({
              organizationId: payer.organizationId, reference: op.operationId, amountCents, currency,
              paymentMethod: payer.paymentMethod, expiresAt: deadline
            })

        /** Records the payment the operation waits for (`on_payment`). */
        const wait = (invoice: PreviewInvoice, additions: ReadonlyArray<PreviewLine>, unusedTimeCredit: number) => (actionUrl: string) =>
          Effect.gen(function*() {
            const awaitingPayment: AwaitingPayment = {
              day: D, subscriptionVersion: sub.version, amountCents: invoice.totalCents, currency: invoice.currency, deadline,
              actionUrl, invoice: encodeInvoice(invoice), additions: encodeLines(additions), unusedTimeCredit
            }
            const waiting = { ...op, awaitingPayment }
            yield* repo.updateOperation(waiting)
            return waiting
          })

        const previewed = (
          timing: "now" | "period_end",
          unsoldFixedCharges: ReadonlyArray<HeldFixedCharge>,
          dueNowCents: number
        ) =>
          start({
            _tag: "Previewed", timing, unsoldFixedCharges, dueNowCents, hasPaymentMethod: payer !== null,
            deadline: DateTime.toEpochMillis(deadline)
          })

        if (request.type === "adjust_fixed_charge_quantity") {
          const result = previewFixedChargeChange({
            catalog, plan, billingTime: "anniversary", anchorDay: sub.anchorDay, heldFixedCharges: sub.heldFixedCharges,
            cancellationScheduled: false, paymentMethod, fixedChargeCode: request.fixedChargeCode, quantity: request.quantity,
            now: DateTime.toEpochMillis(now)
          })
          if (Result.isFailure(result)) return yield* perform(op, start(previewFailed(result.failure)), null)
          const { dueNow } = result.success
          return yield* perform(op, previewed("now", [], dueNow.totalCents), {
            schedule: Effect.die(new Error("billing: a quantity change is never scheduled")),
            apply: applyQuantity(op, sub, request.fixedChargeCode, request.quantity, dueNow, true),
            wait: wait(dueNow, [], 0),
            charge: charge(dueNow.currency)
          })
        }

        const result = previewPlanChange({
          catalog, current: currentOf(sub, plan, paymentMethod, now),
          request: { category: request.category, planCode: request.planCode, ...(request.additions.length === 0 ? {} : { additions: request.additions }) },
          now: DateTime.toEpochMillis(now)
        })
        if (Result.isFailure(result)) return yield* perform(op, start(previewFailed(result.failure)), null)
        const p = result.success
        const change = p.planChange!
        const target = findPlan(catalog, request.category, request.planCode)!
        const timing = change.timing === "period_end" ? "period_end" : "now"
        return yield* perform(op, previewed(timing, change.unsoldFixedCharges, p.dueNow.totalCents), {
          schedule: Effect.gen(function*() {
            const effectiveDay = dayOf(change.effectiveAt!)
            const next: SubscriptionRecord = {
              ...sub,
              scheduledChange: { operationId: op.operationId, planCode: target.planCode, effectiveDay, additions: request.additions },
              version: sub.version + 1,
              updatedAt: now
            }
            yield* repo.updateSubscription(next)
            return yield* resolve(op, { result: { type: "version", version: String(next.version), effectiveAt: change.effectiveAt } })
          }),
          apply: applyUpgrade({
            op, sub, target, day: D, dueNow: p.dueNow, additions: change.additions, additionsRequested: request.additions,
            unusedTimeCredit: change.unusedTimeCredit, paid: true
          }),
          wait: wait(p.dueNow, change.additions, change.unusedTimeCredit),
          charge: charge(p.dueNow.currency)
        })
      })

    /**
     * Runs a pending operation that has not started (idempotent: an operation already resolved, or
     * waiting for its payment, is returned as it is). A defect fails it `internal` (retryable).
     */
    const process = fn("Billing.process")(function*(operationId: string) {
      const run = tx.withTransaction(Effect.gen(function*() {
        const op = yield* repo.lockOperation(operationId)
        if (Option.isNone(op)) return yield* new BillingOperationNotFound({ operationId })
        return stateOf(op.value)._tag === "NotStarted" ? yield* execute(op.value) : op.value
      }))
      const done = yield* run.pipe(
        Effect.catchDefect((defect) =>
          Effect.andThen(
            Effect.logError("billing operation failed unexpectedly", defect),
            tx.withTransaction(Effect.gen(function*() {
              const op = yield* repo.lockOperation(operationId)
              if (Option.isNone(op)) return yield* new BillingOperationNotFound({ operationId })
              return yield* perform(op.value, decideOperation(stateOf(op.value), { _tag: "Crash" }), null)
            }))
          ))
      )
      return toBillingOperation(done)
    })

    /**
     * The scheduler's sweep of one operation at `now`: a waiting one whose payment window closed
     * fails `payment_timeout` and its payment is cancelled. Returns whether it expired.
     */
    const expireIfDue = (operationId: string, now: DateTime.Utc) =>
      tx.withTransaction(Effect.gen(function*() {
        const locked = yield* repo.lockOperation(operationId)
        if (Option.isNone(locked)) return false
        const step = decideOperation(stateOf(locked.value), { _tag: "Expire", now: DateTime.toEpochMillis(now) })
        if (step.action._tag === "None") return false
        yield* perform(locked.value, step, null)
        return true
      }))

    /**
     * The provider reports the payment of a waiting operation: paid → the change applies with the
     * amounts computed when it was asked (docs/api-notes/billing.md), declined → `payment_failed`. Late
     * (past the window) → `payment_timeout`. Repeats return the operation as it is.
     */
    const settlePayment = fn("Billing.settlePayment")(function*(operationId: string, outcome: "succeeded" | "failed") {
      const done = yield* tx.withTransaction(Effect.gen(function*() {
        const found = yield* repo.lockOperation(operationId)
        if (Option.isNone(found)) return yield* new BillingOperationNotFound({ operationId })
        const op = found.value
        const waiting = op.awaitingPayment
        const now = yield* DateTime.now
        const reported = decideOperation(stateOf(op), { _tag: "PaymentReported", paid: outcome === "succeeded", now: DateTime.toEpochMillis(now) })
        if (waiting === null || reported.action._tag !== "CheckSubscription") return yield* perform(op, reported, null)
        const locked = yield* repo.lockSubscription(op.projectId, op.request.category)
        const request = op.request
        const target = request.type === "change_plan" ? findPlan(catalog, request.category, request.planCode) : undefined
        const checked: OperationCommand = {
          _tag: "SubscriptionChecked",
          unchanged: Option.isSome(locked) && locked.value.version === waiting.subscriptionVersion,
          targetKnown: request.type === "adjust_fixed_charge_quantity" || target !== undefined
        }
        const step = decideOperation(reported.state, checked)
        if (Option.isNone(locked)) return yield* perform(op, step, null)
        const sub = locked.value
        const dueNow = decodeInvoice(waiting.invoice)
        const apply = request.type === "adjust_fixed_charge_quantity"
          ? applyQuantity(op, sub, request.fixedChargeCode, request.quantity, dueNow, true)
          : target === undefined
          ? Effect.die(new Error("billing: applying a plan that left the catalog"))
          : applyUpgrade({
            op, sub, target, day: waiting.day, dueNow, additions: decodeLines(waiting.additions),
            additionsRequested: request.additions, unusedTimeCredit: waiting.unusedTimeCredit, paid: true
          })
        return yield* perform(op, step, {
          schedule: Effect.die(new Error("billing: a paid operation is never scheduled")),
          apply,
          wait: () => Effect.die(new Error("billing: a paid operation does not wait again")),
          charge: () => Effect.die(new Error("billing: a paid operation is not charged again"))
        })
      }))
      return toBillingOperation(done)
    })

    /** What a payment page shows: the operation and the payment it waits for (none once it stopped waiting). */
    const paymentOf = fn("Billing.paymentOf")(function*(operationId: string) {
      const op = yield* repo.findOperation(operationId)
      if (Option.isNone(op)) return Option.none()
      const waiting = op.value.awaitingPayment
      return Option.some({
        operation: toBillingOperation(op.value),
        planCode: op.value.request.type === "change_plan" ? op.value.request.planCode : null,
        payment: waiting === null ? null : { amountCents: waiting.amountCents, currency: waiting.currency, deadline: waiting.deadline }
      })
    })

    return { submit, process, settlePayment, paymentOf, expireIfDue } as const
  })

export type BillingOperations = Effect.Success<ReturnType<typeof makeBillingOperations>>
