/**
 * The life of a billing operation as a pure reducer (docs/api-notes/billing.md):
 * `decideOperation(state, command)` gives the operation's next state and the one action the
 * effectful shell (`BillingOperations.ts`) performs — fail it, schedule a downgrade, charge, wait
 * for the customer's payment, re-check the subscription, or apply the change. The shell reads the
 * facts (project, subscription, preview, payment provider) and writes the records; every choice
 * between them is made here, so it is table- and property-tested
 * (test/billing/OperationDecision*.test.ts).
 *
 * pending (not started) ─Start─▶ charging ─Charged─▶ awaiting payment ─PaymentReported─▶ confirming
 *        │                         │                       │  ─Expire (past deadline)─▶ failed
 *        └──────────▶ succeeded ◀──┴─────────────────────────────────────────────────────┘ / failed
 */
import type { PlanChangeRejection } from "./PlanChange.js"
import type { BillingOperationFailure, HeldFixedCharge } from "./Schema.js"

export type Failure = BillingOperationFailure

const RETRYABLE: ReadonlySet<string> = new Set(["payment_failed", "internal"])

/** A failure with its `retryable` flag: payment failures and internal ones may be retried, except a reconciliation. */
export const failure = (
  code: Failure["code"],
  detail: Failure["detail"],
  unsoldFixedCharges: Failure["unsoldFixedCharges"] = [],
  retryable = RETRYABLE.has(code) && detail !== "reconciliation_required"
): Failure => ({ code, detail, retryable: detail === "payment_timeout" ? true : retryable, unsoldFixedCharges })

/** Where an operation is; `deadline`s are epoch milliseconds. */
export type OperationState =
  /** Submitted, not started (a stored `pending` operation without a payment it waits for). */
  | { readonly _tag: "NotStarted" }
  /** Started: what is due now is being charged (inside the transaction that started it). */
  | { readonly _tag: "Charging"; readonly deadline: number }
  /** `on_payment`: the customer pays until `deadline` (a stored `pending` operation with `awaitingPayment`). */
  | { readonly _tag: "AwaitingPayment"; readonly deadline: number }
  /** Paid in time: its subscription must not have changed since, nor its target left the catalog. */
  | { readonly _tag: "Confirming" }
  | { readonly _tag: "Succeeded" }
  | { readonly _tag: "Failed" }

/** What the shell found when it started the operation (under the subscription's lock). */
export type StartCheck =
  /** The project is gone or not active. */
  | { readonly _tag: "ProjectUnavailable" }
  /** The project has no subscription in the requested category. */
  | { readonly _tag: "SubscriptionMissing" }
  /** The subscription's plan left the catalog. */
  | { readonly _tag: "PlanMissing" }
  /** The preview refused the change (`rejection`), or failed otherwise (`null`). */
  | { readonly _tag: "PreviewFailed"; readonly rejection: PlanChangeRejection | null }
  /** The preview: when it applies, what must be released first, what is due now. */
  | {
    readonly _tag: "Previewed"
    readonly timing: "now" | "period_end"
    readonly unsoldFixedCharges: ReadonlyArray<HeldFixedCharge>
    readonly dueNowCents: number
    readonly hasPaymentMethod: boolean
    /** When an `on_payment` wait ends: min(now + 23 h, period end). */
    readonly deadline: number
  }

/** What the provider answered to the charge. */
export type ChargeResult =
  | { readonly _tag: "Succeeded" }
  | { readonly _tag: "RequiresAction"; readonly actionUrl: string }
  | { readonly _tag: "Declined" }
  | { readonly _tag: "Unknown" }

export type OperationCommand =
  /** `process`: run the operation. */
  | {
    readonly _tag: "Start"
    readonly requestType: "change_plan" | "adjust_fixed_charge_quantity"
    readonly check: StartCheck
  }
  | { readonly _tag: "Charged"; readonly charge: ChargeResult }
  /** `settlePayment`: the provider reports the payment of a waiting operation at `now`. */
  | { readonly _tag: "PaymentReported"; readonly paid: boolean; readonly now: number }
  /** After `PaymentReported`: the subscription as it is now, and whether the target plan is still sold. */
  | { readonly _tag: "SubscriptionChecked"; readonly unchanged: boolean; readonly targetKnown: boolean }
  /** The scheduler's sweep at `now`. */
  | { readonly _tag: "Expire"; readonly now: number }
  /** Starting it died with a defect. */
  | { readonly _tag: "Crash" }

export type OperationAction =
  /** Nothing: the operation is returned as it is. */
  | { readonly _tag: "None" }
  /** Resolve it failed (and give up the waiting payment when `cancelPayment`). */
  | { readonly _tag: "Fail"; readonly failure: Failure; readonly cancelPayment: boolean }
  /** A downgrade: it succeeds now and the change applies at period end. */
  | { readonly _tag: "Schedule" }
  /** Charge `amountCents` off-session (`Charged` follows). */
  | { readonly _tag: "Charge"; readonly amountCents: number }
  /** Record the payment it waits for (the customer acts at `actionUrl`). */
  | { readonly _tag: "Wait"; readonly actionUrl: string }
  /** Lock and read the subscription (`SubscriptionChecked` follows). */
  | { readonly _tag: "CheckSubscription" }
  /** Apply the change (invoices, the new plan or quantity) and resolve it succeeded. */
  | { readonly _tag: "Apply" }

export interface OperationStep {
  readonly state: OperationState
  readonly action: OperationAction
}

const none = (state: OperationState): OperationStep => ({ state, action: { _tag: "None" } })
const fail = (f: Failure): OperationStep => ({
  state: { _tag: "Failed" },
  action: { _tag: "Fail", failure: f, cancelPayment: f.detail === "payment_timeout" }
})
const succeed = (action: OperationAction): OperationStep => ({ state: { _tag: "Succeeded" }, action })
const timedOut = fail(failure("payment_failed", "payment_timeout"))

const start = (requestType: "change_plan" | "adjust_fixed_charge_quantity", check: StartCheck): OperationStep => {
  const plan = requestType === "change_plan"
  switch (check._tag) {
    case "ProjectUnavailable":
    case "PlanMissing":
      return fail(failure("not_provisioned", null))
    case "SubscriptionMissing":
      return fail(failure("invalid_target", plan ? "plan_not_found" : "feature_not_found"))
    case "PreviewFailed":
      return fail(failure("invalid_target", check.rejection ?? (plan ? "target_rejected" : "quantity_out_of_range")))
    case "Previewed": {
      if (plan && check.unsoldFixedCharges.length > 0) {
        return fail(failure("invalid_target", "release_required", check.unsoldFixedCharges))
      }
      if (plan && check.timing === "period_end") return succeed({ _tag: "Schedule" })
      if (check.dueNowCents <= 0) return succeed({ _tag: "Apply" })
      if (!check.hasPaymentMethod) return fail(failure("payment_method_required", null))
      return { state: { _tag: "Charging", deadline: check.deadline }, action: { _tag: "Charge", amountCents: check.dueNowCents } }
    }
  }
}

const charged = (deadline: number, charge: ChargeResult): OperationStep => {
  switch (charge._tag) {
    case "Succeeded":
      return succeed({ _tag: "Apply" })
    case "RequiresAction":
      return { state: { _tag: "AwaitingPayment", deadline }, action: { _tag: "Wait", actionUrl: charge.actionUrl } }
    case "Declined":
      return fail(failure("payment_failed", null))
    case "Unknown":
      return fail(failure("internal", "reconciliation_required", [], false))
  }
}

/** The next state of an operation in `state` given `command`, and what to do; a command that does not apply changes nothing. */
export const decideOperation = (state: OperationState, command: OperationCommand): OperationStep => {
  switch (command._tag) {
    case "Start":
      return state._tag === "NotStarted" ? start(command.requestType, command.check) : none(state)
    case "Charged":
      return state._tag === "Charging" ? charged(state.deadline, command.charge) : none(state)
    case "PaymentReported":
      if (state._tag !== "AwaitingPayment") return none(state)
      if (command.now >= state.deadline) return timedOut
      if (!command.paid) return fail(failure("payment_failed", null))
      return { state: { _tag: "Confirming" }, action: { _tag: "CheckSubscription" } }
    case "SubscriptionChecked":
      if (state._tag !== "Confirming") return none(state)
      if (!command.unchanged) return fail(failure("internal", "reconciliation_required", [], false))
      if (!command.targetKnown) return fail(failure("not_provisioned", null))
      return succeed({ _tag: "Apply" })
    case "Expire":
      return state._tag === "AwaitingPayment" && command.now >= state.deadline ? timedOut : none(state)
    case "Crash":
      return state._tag === "NotStarted" ? fail(failure("internal", null)) : none(state)
  }
}
