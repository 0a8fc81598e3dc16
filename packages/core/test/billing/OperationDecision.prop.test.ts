/**
 * Properties of the billing operation's decision (OperationDecision.ts; docs/testing.md: pure
 * functions are property-tested). States and commands are generated, and sequences of commands
 * are run from a new operation: every step must keep the invariants below.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  decideOperation, type OperationCommand, type OperationState, type OperationStep, type StartCheck
} from "../../src/billing/OperationDecision.js"
import { billingFailureDetails } from "../../src/billing/Schema.js"

const instant = fc.integer({ min: 0, max: 2_000_000 })
const rejection = fc.constantFrom(
  "plan_not_found", "target_rejected", "cancellation_scheduled", "feature_not_found", "feature_not_sold_by_plan",
  "quantity_out_of_range"
) as fc.Arbitrary<Extract<StartCheck, { _tag: "PreviewFailed" }>["rejection"] & string>

const state: fc.Arbitrary<OperationState> = fc.oneof(
  fc.constant({ _tag: "NotStarted" } as const),
  instant.map((deadline) => ({ _tag: "Charging", deadline } as const)),
  instant.map((deadline) => ({ _tag: "AwaitingPayment", deadline } as const)),
  fc.constant({ _tag: "Confirming" } as const),
  fc.constant({ _tag: "Succeeded" } as const),
  fc.constant({ _tag: "Failed" } as const)
)

const check: fc.Arbitrary<StartCheck> = fc.oneof(
  fc.constant({ _tag: "ProjectUnavailable" } as const),
  fc.constant({ _tag: "SubscriptionMissing" } as const),
  fc.constant({ _tag: "PlanMissing" } as const),
  fc.option(rejection, { nil: null }).map((r) => ({ _tag: "PreviewFailed", rejection: r } as const)),
  fc.record({
    timing: fc.constantFrom("now" as const, "period_end" as const),
    unsoldFixedCharges: fc.array(fc.record({ fixedChargeCode: fc.constantFrom("seats", "sso"), quantity: fc.nat(5) }), { maxLength: 2 }),
    dueNowCents: fc.oneof(fc.constant(0), fc.integer({ min: -5, max: 100_000 })),
    hasPaymentMethod: fc.boolean(),
    deadline: instant
  }).map((p) => ({ _tag: "Previewed", ...p } as const))
)

const command: fc.Arbitrary<OperationCommand> = fc.oneof(
  fc.record({ requestType: fc.constantFrom("change_plan" as const, "adjust_fixed_charge_quantity" as const), check })
    .map((c) => ({ _tag: "Start", ...c } as const)),
  fc.oneof(
    fc.constant({ _tag: "Succeeded" } as const),
    fc.webUrl().map((actionUrl) => ({ _tag: "RequiresAction", actionUrl } as const)),
    fc.constant({ _tag: "Declined" } as const),
    fc.constant({ _tag: "Unknown" } as const)
  ).map((charge) => ({ _tag: "Charged", charge } as const)),
  fc.record({ paid: fc.boolean(), now: instant }).map((c) => ({ _tag: "PaymentReported", ...c } as const)),
  fc.record({ unchanged: fc.boolean(), targetKnown: fc.boolean() }).map((c) => ({ _tag: "SubscriptionChecked", ...c } as const)),
  instant.map((now) => ({ _tag: "Expire", now } as const)),
  fc.constant({ _tag: "Crash" } as const)
)

const params = { numRuns: 100 }

/** The state each action leaves the operation in. */
const stateOfAction = {
  None: undefined,
  Fail: "Failed",
  Schedule: "Succeeded",
  Apply: "Succeeded",
  Charge: "Charging",
  Wait: "AwaitingPayment",
  CheckSubscription: "Confirming"
} as const

const consistent = (before: OperationState, step: OperationStep) => {
  const expected = stateOfAction[step.action._tag]
  if (expected === undefined) expect(step.state).toEqual(before)
  else expect(step.state._tag).toBe(expected)
}

describe("decideOperation properties", () => {
  it("the next state is the one the action leaves (and None changes nothing)", () => {
    fc.assert(fc.property(state, command, (s, c) => consistent(s, decideOperation(s, c))), params)
  })

  it("a resolved operation never changes", () => {
    const resolved = fc.constantFrom<OperationState>({ _tag: "Succeeded" }, { _tag: "Failed" })
    fc.assert(fc.property(resolved, command, (s, c) => {
      expect(decideOperation(s, c)).toEqual({ state: s, action: { _tag: "None" } })
    }), params)
  })

  it("a charge is for a positive amount, from a start with a payment method, and ends in the check's deadline", () => {
    fc.assert(fc.property(state, command, (s, c) => {
      const step = decideOperation(s, c)
      if (step.action._tag !== "Charge") return
      expect(step.action.amountCents).toBeGreaterThan(0)
      expect(c._tag).toBe("Start")
      if (c._tag === "Start" && c.check._tag === "Previewed") {
        expect(c.check.hasPaymentMethod).toBe(true)
        expect(step.state).toEqual({ _tag: "Charging", deadline: c.check.deadline })
      }
    }), params)
  })

  it("only a waiting operation past its deadline times out, and only a timeout cancels the payment", () => {
    fc.assert(fc.property(state, command, (s, c) => {
      const step = decideOperation(s, c)
      if (step.action._tag !== "Fail") return
      const timedOut = step.action.failure.detail === "payment_timeout"
      expect(step.action.cancelPayment).toBe(timedOut)
      if (timedOut) {
        expect(s._tag).toBe("AwaitingPayment")
        expect(c._tag === "Expire" || c._tag === "PaymentReported").toBe(true)
        if (s._tag === "AwaitingPayment" && (c._tag === "Expire" || c._tag === "PaymentReported")) {
          expect(c.now).toBeGreaterThanOrEqual(s.deadline)
        }
        expect(step.action.failure).toEqual({ code: "payment_failed", detail: "payment_timeout", retryable: true, unsoldFixedCharges: [] })
      }
      expect(billingFailureDetails.includes(step.action.failure.detail ?? "plan_not_found")).toBe(true)
    }), params)
  })

  it("a period_end change is scheduled only for a plan change with nothing to release", () => {
    fc.assert(fc.property(state, command, (s, c) => {
      const step = decideOperation(s, c)
      if (step.action._tag !== "Schedule") return
      expect(c._tag === "Start" && c.requestType === "change_plan" && c.check._tag === "Previewed" &&
        c.check.timing === "period_end" && c.check.unsoldFixedCharges.length === 0).toBe(true)
    }), params)
  })

  it("any sequence of commands from a new operation resolves it at most once and keeps every step consistent", () => {
    fc.assert(fc.property(fc.array(command, { maxLength: 12 }), (commands) => {
      let s: OperationState = { _tag: "NotStarted" }
      let resolutions = 0
      for (const c of commands) {
        const step = decideOperation(s, c)
        consistent(s, step)
        const wasResolved = s._tag === "Succeeded" || s._tag === "Failed"
        const isResolved = step.state._tag === "Succeeded" || step.state._tag === "Failed"
        if (!wasResolved && isResolved) resolutions += 1
        s = step.state
      }
      expect(resolutions).toBeLessThanOrEqual(1)
    }), params)
  })
})
