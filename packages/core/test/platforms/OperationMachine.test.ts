/** The operation life cycle (platforms/OperationMachine.ts): an example table and bounded properties. */
import { it } from "@effect/vitest"
import {
  apply,
  isCancellable,
  isTerminal,
  newOperation,
  type OperationEvent,
  type OperationRecord,
  type OperationState,
  type OperationType,
  retryDelayMs
} from "@switchboard/core/platforms"
import { DateTime } from "effect"
import * as fc from "fast-check"
import { describe, expect } from "vitest"

const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
const T0 = 1_800_000_000_000

const op = (state: OperationState, patch: Partial<OperationRecord> = {}): OperationRecord => ({
  ...newOperation({ operationId: "sb_opr_1", projectId: "p", type: "resource.provision", resourceType: "sms_number", now: at(T0) }),
  state,
  ...patch
})

const claimed: OperationEvent = { _tag: "Claimed", at: at(T0 + 1) }
const waiting: OperationEvent = { _tag: "Waiting", at: at(T0 + 2), retryAt: at(T0 + 30_000), detail: { waitingFor: "inventory" } }
const succeeded: OperationEvent = { _tag: "Succeeded", at: at(T0 + 3), resourceId: "sb_lin_1" }
const failed: OperationEvent = { _tag: "Failed", at: at(T0 + 4), error: { code: "provider_failed", detail: "no" } }
const cancel: OperationEvent = { _tag: "CancelRequested", at: at(T0 + 5) }

describe("OperationMachine.apply", () => {
  const table: ReadonlyArray<readonly [string, OperationRecord, OperationEvent, OperationState | string]> = [
    ["pending is claimed", op("pending"), claimed, "running"],
    ["running claimed again stays running", op("running"), claimed, "running"],
    ["running waits", op("running"), waiting, "running"],
    ["pending cannot wait", op("pending"), waiting, "not_running"],
    ["running succeeds", op("running"), succeeded, "succeeded"],
    ["pending cannot succeed", op("pending"), succeeded, "not_running"],
    ["pending fails", op("pending"), failed, "failed"],
    ["running fails", op("running"), failed, "failed"],
    ["pending provision is cancelled", op("pending"), cancel, "cancelled"],
    ["running provision is cancelled", op("running"), cancel, "cancelled"],
    ["a committed provision is not cancellable", op("running", { committed: true }), cancel, "committed"],
    ["a campaign assign is never cancellable", op("pending", { type: "sms.campaign.assign" }), cancel, "not_cancellable"],
    ["a campaign detach is never cancellable", op("running", { type: "sms.campaign.unassign" }), cancel, "not_cancellable"],
    ["a release is never cancellable", op("pending", { type: "resource.release" }), cancel, "not_cancellable"],
    ["succeeded absorbs cancel", op("succeeded", { committed: true }), cancel, "terminal"],
    ["cancelled absorbs success (the worker lost the race)", op("cancelled"), succeeded, "terminal"],
    ["failed absorbs claims", op("failed"), claimed, "terminal"]
  ]
  it.each(table)("%s", (_, before, event, expected) => {
    const t = apply(before, event)
    expect(t._tag === "Applied" ? t.operation.state : t.reason).toBe(expected)
  })

  it("success commits, names the resource, ends the lease and sets endedAt", () => {
    const t = apply(op("running", { leasedUntil: at(T0 + 60_000) }), succeeded)
    expect(t._tag).toBe("Applied")
    if (t._tag !== "Applied") return
    expect(t.operation).toMatchObject({ committed: true, resourceId: "sb_lin_1", leasedUntil: null, endedAt: at(T0 + 3) })
    expect(isCancellable(t.operation)).toBe(false)
  })

  it("waiting keeps the operation running until retryAt and merges its detail", () => {
    const t = apply(op("running", { detail: { a: 1 } }), waiting)
    expect(t._tag === "Applied" && t.operation).toMatchObject({
      state: "running",
      nextAttemptAt: at(T0 + 30_000),
      detail: { a: 1, waitingFor: "inventory" }
    })
  })

  it("retry delays double from the base up to the cap", () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1000, 5000))).toEqual([1000, 2000, 4000, 5000])
  })
})

const types: ReadonlyArray<OperationType> = [
  "resource.provision",
  "resource.release",
  "whatsapp.account.disconnect",
  "sms.campaign.assign",
  "sms.campaign.unassign"
]
const eventArb: fc.Arbitrary<OperationEvent> = fc.integer({ min: 1, max: 100_000 }).chain((dt) =>
  fc.constantFrom<OperationEvent>(
    { _tag: "Claimed", at: at(T0 + dt) },
    { _tag: "Waiting", at: at(T0 + dt), retryAt: at(T0 + dt + 1000) },
    { _tag: "Succeeded", at: at(T0 + dt), resourceId: "sb_lin_9" },
    { _tag: "Failed", at: at(T0 + dt), error: { code: "x", detail: "y" } },
    { _tag: "CancelRequested", at: at(T0 + dt) }
  )
)
const runAll = (type: OperationType, events: ReadonlyArray<OperationEvent>) => {
  const seen: Array<OperationRecord> = []
  let current = op("pending", { type })
  seen.push(current)
  for (const e of events) {
    const t = apply(current, e)
    if (t._tag === "Applied") current = t.operation
    seen.push(current)
  }
  return seen
}

describe("OperationMachine properties", () => {
  it("terminal states absorb everything; endedAt is set exactly when terminal; updatedAt never goes back", () => {
    fc.assert(fc.property(fc.constantFrom(...types), fc.array(eventArb, { maxLength: 12 }), (type, events) => {
      const seen = runAll(type, events)
      for (let i = 1; i < seen.length; i++) {
        const prev = seen[i - 1]!
        const next = seen[i]!
        if (isTerminal(prev.state)) expect(next).toBe(prev)
        expect(next.endedAt !== null).toBe(isTerminal(next.state))
        expect(DateTime.toEpochMillis(next.updatedAt)).toBeGreaterThanOrEqual(DateTime.toEpochMillis(prev.updatedAt))
      }
    }), { numRuns: 200 })
  })

  it("only an uncommitted provision is ever cancelled, and a committed one only ever succeeded", () => {
    fc.assert(fc.property(fc.constantFrom(...types), fc.array(eventArb, { maxLength: 12 }), (type, events) => {
      const seen = runAll(type, events)
      for (let i = 1; i < seen.length; i++) {
        const prev = seen[i - 1]!
        const next = seen[i]!
        if (next.state === "cancelled" && prev.state !== "cancelled") {
          expect(type).toBe("resource.provision")
          expect(prev.committed).toBe(false)
        }
        if (next.committed) expect(next.state).toBe("succeeded")
        expect(isCancellable(next)).toBe(type === "resource.provision" && !isTerminal(next.state) && !next.committed)
      }
    }), { numRuns: 200 })
  })
})
