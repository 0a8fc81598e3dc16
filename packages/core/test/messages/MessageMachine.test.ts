/**
 * The message status machine (core messages/MessageMachine.ts): the transition table as examples,
 * and bounded properties over random fact sequences.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { apply, initial, type MessageFact, type MessageFactType, type MessageStatus, run, step } from "../../src/messages/MessageMachine.js"

const fact = (type: MessageFactType, timestamp: number, id = `${type}-${timestamp}`, messageId = "m"): MessageFact =>
  ({ id, messageId, type, timestamp })

/** The message after `types` applied in order, one second apart. */
const at = (...types: ReadonlyArray<MessageFactType>) => run(types.map((t, i) => fact(t, 1000 * (i + 1)))).message

const never = () => false

describe("message machine: the table", () => {
  const statuses: Record<string, ReadonlyArray<MessageFactType>> = {
    none: [],
    dispatched: ["dispatched"],
    accepted: ["dispatched", "accepted"],
    delivered: ["dispatched", "accepted", "delivered"],
    failed: ["dispatched", "failed"],
    received: ["received"]
  }
  // [from, fact, expected]: a status, or "ignored:<reason>" / "rejected:<reason>".
  const table: ReadonlyArray<readonly [string, MessageFactType, string]> = [
    ["none", "dispatched", "dispatched"],
    ["none", "accepted", "rejected:unknown-message"],
    ["none", "delivered", "rejected:unknown-message"],
    ["none", "failed", "rejected:unknown-message"],
    ["none", "received", "received"],
    ["dispatched", "dispatched", "ignored:stale-fact"],
    ["dispatched", "accepted", "accepted"],
    ["dispatched", "delivered", "rejected:accept-skipped"],
    ["dispatched", "failed", "failed"],
    ["dispatched", "received", "rejected:direction-mismatch"],
    ["accepted", "dispatched", "ignored:stale-fact"],
    ["accepted", "accepted", "ignored:stale-fact"],
    ["accepted", "delivered", "delivered"],
    ["accepted", "failed", "failed"],
    ["accepted", "received", "rejected:direction-mismatch"],
    ["delivered", "failed", "ignored:message-terminal"],
    ["delivered", "delivered", "ignored:message-terminal"],
    ["failed", "accepted", "ignored:message-terminal"],
    ["received", "received", "ignored:message-terminal"],
    ["received", "dispatched", "rejected:direction-mismatch"]
  ]
  for (const [from, type, expected] of table) {
    it(`${from} + ${type} → ${expected}`, () => {
      const message = at(...statuses[from]!)
      const outcome = apply(message, fact(type, 60_000), never)
      const got = outcome.outcome === "applied" ? outcome.message.status : `${outcome.outcome}:${outcome.reason}`
      expect(got).toBe(expected)
      if (outcome.outcome !== "applied") expect(outcome.message).toBe(message)
    })
  }

  it("an accepted message has dispatchedAt and acceptedAt and no other milestone", () => {
    expect(at("dispatched", "accepted")).toEqual({
      messageId: "m",
      direction: "addressed",
      status: "accepted",
      timestamps: { dispatchedAt: 1000, acceptedAt: 2000 },
      updatedAt: 2000
    })
  })

  it("a duplicate fact id is ignored; a fact of another message or before the last milestone is rejected", () => {
    const s1 = step(initial, fact("dispatched", 1000, "f1")).state
    expect(step(s1, fact("accepted", 2000, "f1")).outcome).toMatchObject({ outcome: "ignored", reason: "duplicate-fact" })
    expect(step(s1, fact("accepted", 2000, "f2", "other")).outcome).toMatchObject({ outcome: "rejected", reason: "message-mismatch" })
    expect(step(s1, fact("accepted", 999, "f3")).outcome).toMatchObject({ outcome: "rejected", reason: "timestamp-regression" })
  })
})

const factArb = fc.record({
  id: fc.constantFrom("a", "b", "c", "d", "e", "f"),
  type: fc.constantFrom<MessageFactType>("dispatched", "accepted", "delivered", "failed", "received"),
  timestamp: fc.integer({ min: 0, max: 10_000 })
}).map((f) => ({ ...f, messageId: "m" }))

const allowed: Record<MessageStatus, ReadonlyArray<MessageStatus>> = {
  dispatched: ["accepted", "failed"],
  accepted: ["delivered", "failed"],
  delivered: [],
  failed: [],
  received: []
}

describe("message machine: properties", () => {
  it("every applied step is a move of the table, forward in time, keeping earlier milestones", () => {
    fc.assert(fc.property(fc.array(factArb, { maxLength: 12 }), (facts) => {
      let state = initial
      for (const f of facts) {
        const before = state.message
        const { state: next, outcome } = step(state, f)
        if (outcome.outcome === "applied") {
          if (before === undefined) expect(["dispatched", "received"]).toContain(outcome.message.status)
          else {
            expect(allowed[before.status]).toContain(outcome.message.status)
            expect(outcome.message.updatedAt).toBeGreaterThanOrEqual(before.updatedAt)
            expect(outcome.message.timestamps).toMatchObject(before.timestamps)
          }
        } else {
          expect(next).toBe(state)
        }
        state = next
      }
    }), { numRuns: 200 })
  })

  // A rejected fact is not recorded (the edge may retry it once it can apply); an applied one is.
  it("re-sending the applied facts changes nothing (idempotent by fact id)", () => {
    fc.assert(fc.property(fc.array(factArb, { maxLength: 12 }), (facts) => {
      const once = run(facts)
      const applied = facts.filter((f) => once.applied.has(f.id))
      const again = applied.reduce((s, f) => {
        const next = step(s, f)
        expect(next.outcome).toMatchObject({ outcome: "ignored", reason: "duplicate-fact" })
        return next.state
      }, once)
      expect(again.message).toEqual(once.message)
    }), { numRuns: 200 })
  })

  it("an accepted message always has exactly dispatchedAt and acceptedAt", () => {
    fc.assert(fc.property(fc.array(factArb, { maxLength: 12 }), (facts) => {
      const { message } = run(facts)
      if (message?.status === "accepted") expect(Object.keys(message.timestamps).sort()).toEqual(["acceptedAt", "dispatchedAt"])
    }), { numRuns: 200 })
  })
})
