/**
 * The billing operation's decision (OperationDecision.ts; docs/api-notes/billing.md) as a
 * table: each row is a state, a command, and the action and next
 * state it must give.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  decideOperation, failure, type OperationAction, type OperationCommand, type OperationState, type StartCheck
} from "../../src/billing/OperationDecision.js"

const DEADLINE = 1_000_000
const notStarted: OperationState = { _tag: "NotStarted" }
const awaiting: OperationState = { _tag: "AwaitingPayment", deadline: DEADLINE }
const charging: OperationState = { _tag: "Charging", deadline: DEADLINE }
const held = [{ fixedChargeCode: "seats", quantity: 2 }]

const previewed = (over: Partial<Extract<StartCheck, { _tag: "Previewed" }>> = {}): StartCheck => ({
  _tag: "Previewed", timing: "now", unsoldFixedCharges: [], dueNowCents: 500, hasPaymentMethod: true, deadline: DEADLINE, ...over
})
const startPlan = (check: StartCheck): OperationCommand => ({ _tag: "Start", requestType: "change_plan", check })
const startQuantity = (check: StartCheck): OperationCommand => ({ _tag: "Start", requestType: "adjust_fixed_charge_quantity", check })
const failWith = (f: ReturnType<typeof failure>): OperationAction => ({ _tag: "Fail", failure: f, cancelPayment: f.detail === "payment_timeout" })

const rows: ReadonlyArray<readonly [string, OperationState, OperationCommand, OperationAction, OperationState["_tag"]]> = [
  // Starting
  ["project gone", notStarted, startPlan({ _tag: "ProjectUnavailable" }), failWith(failure("not_provisioned", null)), "Failed"],
  ["plan left the catalog", notStarted, startPlan({ _tag: "PlanMissing" }), failWith(failure("not_provisioned", null)), "Failed"],
  ["no subscription (plan)", notStarted, startPlan({ _tag: "SubscriptionMissing" }), failWith(failure("invalid_target", "plan_not_found")), "Failed"],
  ["no subscription (quantity)", notStarted, startQuantity({ _tag: "SubscriptionMissing" }), failWith(failure("invalid_target", "feature_not_found")), "Failed"],
  ["preview rejected", notStarted, startPlan({ _tag: "PreviewFailed", rejection: "cancellation_scheduled" }), failWith(failure("invalid_target", "cancellation_scheduled")), "Failed"],
  ["preview failed (plan)", notStarted, startPlan({ _tag: "PreviewFailed", rejection: null }), failWith(failure("invalid_target", "target_rejected")), "Failed"],
  ["preview failed (quantity)", notStarted, startQuantity({ _tag: "PreviewFailed", rejection: null }), failWith(failure("invalid_target", "quantity_out_of_range")), "Failed"],
  ["unsold charges", notStarted, startPlan(previewed({ unsoldFixedCharges: held })), failWith(failure("invalid_target", "release_required", held)), "Failed"],
  ["unsold charges beat period_end", notStarted, startPlan(previewed({ unsoldFixedCharges: held, timing: "period_end" })), failWith(failure("invalid_target", "release_required", held)), "Failed"],
  ["downgrade", notStarted, startPlan(previewed({ timing: "period_end" })), { _tag: "Schedule" }, "Succeeded"],
  ["nothing due", notStarted, startPlan(previewed({ dueNowCents: 0 })), { _tag: "Apply" }, "Succeeded"],
  ["nothing due, no card", notStarted, startQuantity(previewed({ dueNowCents: 0, hasPaymentMethod: false })), { _tag: "Apply" }, "Succeeded"],
  ["due, no card", notStarted, startPlan(previewed({ hasPaymentMethod: false })), failWith(failure("payment_method_required", null)), "Failed"],
  ["due, card", notStarted, startPlan(previewed()), { _tag: "Charge", amountCents: 500 }, "Charging"],
  ["quantity due, card", notStarted, startQuantity(previewed({ dueNowCents: 7 })), { _tag: "Charge", amountCents: 7 }, "Charging"],
  ["start twice", awaiting, startPlan(previewed()), { _tag: "None" }, "AwaitingPayment"],
  ["start a resolved one", { _tag: "Succeeded" }, startPlan(previewed()), { _tag: "None" }, "Succeeded"],
  // Charging
  ["charged", charging, { _tag: "Charged", charge: { _tag: "Succeeded" } }, { _tag: "Apply" }, "Succeeded"],
  ["customer must act", charging, { _tag: "Charged", charge: { _tag: "RequiresAction", actionUrl: "https://pay" } }, { _tag: "Wait", actionUrl: "https://pay" }, "AwaitingPayment"],
  ["declined", charging, { _tag: "Charged", charge: { _tag: "Declined" } }, failWith(failure("payment_failed", null)), "Failed"],
  ["unknown", charging, { _tag: "Charged", charge: { _tag: "Unknown" } }, failWith(failure("internal", "reconciliation_required", [], false)), "Failed"],
  ["charged without charging", notStarted, { _tag: "Charged", charge: { _tag: "Succeeded" } }, { _tag: "None" }, "NotStarted"],
  // Waiting for the payment
  ["paid in time", awaiting, { _tag: "PaymentReported", paid: true, now: DEADLINE - 1 }, { _tag: "CheckSubscription" }, "Confirming"],
  ["declined in time", awaiting, { _tag: "PaymentReported", paid: false, now: DEADLINE - 1 }, failWith(failure("payment_failed", null)), "Failed"],
  ["paid at the deadline", awaiting, { _tag: "PaymentReported", paid: true, now: DEADLINE }, failWith(failure("payment_failed", "payment_timeout")), "Failed"],
  ["reported late", awaiting, { _tag: "PaymentReported", paid: false, now: DEADLINE + 1 }, failWith(failure("payment_failed", "payment_timeout")), "Failed"],
  ["reported, not waiting", notStarted, { _tag: "PaymentReported", paid: true, now: 0 }, { _tag: "None" }, "NotStarted"],
  ["reported again", { _tag: "Failed" }, { _tag: "PaymentReported", paid: true, now: 0 }, { _tag: "None" }, "Failed"],
  ["subscription unchanged", { _tag: "Confirming" }, { _tag: "SubscriptionChecked", unchanged: true, targetKnown: true }, { _tag: "Apply" }, "Succeeded"],
  ["subscription changed", { _tag: "Confirming" }, { _tag: "SubscriptionChecked", unchanged: false, targetKnown: true }, failWith(failure("internal", "reconciliation_required", [], false)), "Failed"],
  ["target left the catalog", { _tag: "Confirming" }, { _tag: "SubscriptionChecked", unchanged: true, targetKnown: false }, failWith(failure("not_provisioned", null)), "Failed"],
  ["checked, not confirming", awaiting, { _tag: "SubscriptionChecked", unchanged: true, targetKnown: true }, { _tag: "None" }, "AwaitingPayment"],
  // The scheduler's sweep
  ["expire before the deadline", awaiting, { _tag: "Expire", now: DEADLINE - 1 }, { _tag: "None" }, "AwaitingPayment"],
  ["expire at the deadline", awaiting, { _tag: "Expire", now: DEADLINE }, failWith(failure("payment_failed", "payment_timeout")), "Failed"],
  ["expire one not waiting", notStarted, { _tag: "Expire", now: DEADLINE * 2 }, { _tag: "None" }, "NotStarted"],
  // Defects
  ["crash while starting", notStarted, { _tag: "Crash" }, failWith(failure("internal", null)), "Failed"],
  ["crash of a waiting one", awaiting, { _tag: "Crash" }, { _tag: "None" }, "AwaitingPayment"]
]

describe("decideOperation", () => {
  it.each(rows)("%s", (_name, state, command, action, next) => {
    const step = decideOperation(state, command)
    expect(step.action).toEqual(action)
    expect(step.state._tag).toBe(next)
  })

  it("failures carry their retryable flag: payment and internal ones retry, a reconciliation does not, a timeout does", () => {
    expect(failure("payment_failed", null).retryable).toBe(true)
    expect(failure("internal", null).retryable).toBe(true)
    expect(failure("internal", "reconciliation_required").retryable).toBe(false)
    expect(failure("payment_failed", "payment_timeout").retryable).toBe(true)
    expect(failure("invalid_target", "plan_not_found").retryable).toBe(false)
    expect(failure("payment_method_required", null).retryable).toBe(false)
  })
})
