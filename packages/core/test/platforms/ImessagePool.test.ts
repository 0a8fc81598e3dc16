/**
 * iMessage's state (the testkit's simulated/SimulatedImessagePool.ts, the worker's self-cancel): an example table
 * of the pool and bounded properties — dedicated lines are never handed out twice nor beyond
 * capacity, a shared line never holds more than its seats, and the pool grows only with auto-scale.
 */
import { it } from "@effect/vitest"
import {
  apply,
  ImessagePool,
  newOperation
} from "@switchboard/core/platforms"
import { defaultSimulatedImessageSettings, makeSimulatedImessagePool, simulatedImessageNumber } from "@switchboard/testkit/simulated"
import { DateTime, Effect, Option } from "effect"
import * as fc from "fast-check"
import { describe, expect } from "vitest"
import { runLikeTest } from "../Properties.js"

const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc

describe("the worker's self-cancel of a dedicated-line request", () => {
  const base = newOperation({ operationId: "sb_opr_1", projectId: "p", type: "resource.provision", resourceType: "imessage_line", now: at(0) })
  const table = [
    ["pending, entitlement lost", base, "entitlement_lost", "cancelled"],
    ["running, project deleted", { ...base, state: "running" as const }, "project_deleted", "cancelled"],
    ["committed is never withdrawn", { ...base, state: "running" as const, committed: true }, "entitlement_lost", "committed"],
    ["succeeded absorbs it", { ...base, state: "succeeded" as const, committed: true }, "project_deleted", "terminal"]
  ] as const
  for (const [name, op, reason, expected] of table) {
    it(name, () => {
      const t = apply(op, { _tag: "CancelRequested", at: at(5), reason })
      if (t._tag === "Applied") {
        expect([t.operation.state, t.operation.reason, t.operation.endedAt?.epochMilliseconds]).toEqual([expected, reason, 5])
      } else {
        expect(t.reason).toBe(expected)
      }
    })
  }
})

type Step =
  | { readonly _tag: "claim" }
  | { readonly _tag: "release"; readonly pick: number }
  | { readonly _tag: "grow"; readonly n: number }
  | { readonly _tag: "seat"; readonly autoScale: boolean }
  | { readonly _tag: "unseat"; readonly pick: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ _tag: "claim" as const }),
  fc.record({ _tag: fc.constant("release" as const), pick: fc.nat(20) }),
  fc.record({ _tag: fc.constant("grow" as const), n: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ _tag: fc.constant("seat" as const), autoScale: fc.boolean() }),
  fc.record({ _tag: fc.constant("unseat" as const), pick: fc.nat(20) })
)

describe("the simulated pool", () => {
  it("never hands a dedicated line out twice or beyond capacity; never overfills a shared line; grows only with auto-scale", () =>
    fc.assert(
      fc.asyncProperty(
        fc.record({
          capacity: fc.integer({ min: 0, max: 4 }),
          seats: fc.integer({ min: 1, max: 3 }),
          lines: fc.integer({ min: 0, max: 2 }),
          maxLines: fc.integer({ min: 0, max: 4 }),
          steps: fc.array(step, { maxLength: 40 })
        }),
        ({ capacity, lines, maxLines, seats, steps }) =>
          runLikeTest(Effect.gen(function*() {
            const { control, layer } = makeSimulatedImessagePool({
              ...defaultSimulatedImessageSettings,
              dedicatedCapacity: capacity,
              sharedLines: lines,
              seatsPerSharedLine: seats,
              maxSharedLines: maxLines
            })
            const pool = yield* Effect.provide(ImessagePool, layer)
            let total = capacity
            const held: Array<string> = []
            const seated: Array<string> = []
            let opened = lines
            for (const s of steps) {
              switch (s._tag) {
                case "claim": {
                  const got = yield* pool.claimDedicated({ projectId: "p", operationId: "o" })
                  if (Option.isSome(got)) {
                    expect(held).not.toContain(got.value.phoneNumber)
                    held.push(got.value.phoneNumber)
                  } else {
                    expect(held.length).toBe(total)
                  }
                  break
                }
                case "release": {
                  const [line] = held.splice(s.pick % Math.max(1, held.length), 1)
                  if (line !== undefined) yield* pool.releaseDedicated(line)
                  break
                }
                case "grow":
                  control.addDedicatedCapacity(s.n)
                  total = Math.min(100, total + s.n)
                  break
                case "seat": {
                  const got = yield* pool.claimSharedSeat({ projectId: "p", autoScale: s.autoScale })
                  if (Option.isSome(got)) {
                    const n = Number(got.value.phoneNumber.slice(-2))
                    expect(got.value.phoneNumber).toBe(simulatedImessageNumber("shared", n))
                    // A line beyond those opened so far is only ever opened by an auto-scale request.
                    if (n >= opened) {
                      expect(s.autoScale).toBe(true)
                      opened = n + 1
                    }
                    seated.push(got.value.phoneNumber)
                  }
                  break
                }
                case "unseat": {
                  const [seat] = seated.splice(s.pick % Math.max(1, seated.length), 1)
                  if (seat !== undefined) yield* pool.releaseSharedSeat(seat)
                  break
                }
              }
              expect(held.length).toBeLessThanOrEqual(total)
              expect(yield* pool.dedicatedAvailable).toBe(total - held.length)
              const perLine = new Map<string, number>()
              for (const n of seated) perLine.set(n, (perLine.get(n) ?? 0) + 1)
              for (const count of perLine.values()) expect(count).toBeLessThanOrEqual(seats)
              expect(perLine.size).toBeLessThanOrEqual(Math.max(lines, maxLines))
            }
          }))
      ),
      { numRuns: 100 }
    ))
})
