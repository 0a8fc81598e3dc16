/** The WABA connection's life cycle (platforms/WhatsappAccountMachine.ts): an example table and bounded properties. */
import { it } from "@effect/vitest"
import {
  applyWaba,
  STALE_DISCONNECT_MS,
  type WabaEvent,
  type WabaState,
  wabaStateOf,
  type WhatsappAccountRecord
} from "@switchboard/core/platforms"
import { DateTime } from "effect"
import * as fc from "fast-check"
import { describe, expect } from "vitest"

const none: WabaState = { _tag: "None" }
const connected: WabaState = { _tag: "Connected", wabaId: "w1" }
const disconnecting: WabaState = { _tag: "Disconnecting", wabaId: "w1", since: 1000 }
const sender = (wabaId = "w1"): WabaEvent => ({ _tag: "SenderConnected", wabaId })
const request = (at: number): WabaEvent => ({ _tag: "DisconnectRequested", at })
const failed: WabaEvent = { _tag: "DisconnectFailed" }
const completed: WabaEvent = { _tag: "DisconnectCompleted" }

describe("WhatsappAccountMachine.applyWaba", () => {
  const table: ReadonlyArray<readonly [string, WabaState, WabaEvent, WabaState | string]> = [
    ["the first sender connects the WABA", none, sender(), connected],
    ["another sender of the same WABA keeps it", connected, sender(), connected],
    ["a sender of another WABA is refused", connected, sender("w2"), "waba_mismatch"],
    ["no sender while disconnecting", disconnecting, sender(), "disconnecting"],
    ["nothing to disconnect", none, request(5000), "not_connected"],
    ["a disconnect starts", connected, request(5000), { _tag: "Disconnecting", wabaId: "w1", since: 5000 }],
    ["a second disconnect is refused while the first runs", disconnecting, request(1000 + STALE_DISCONNECT_MS - 1), "disconnecting"],
    ["a stale mark is taken over", disconnecting, request(1000 + STALE_DISCONNECT_MS), {
      _tag: "Disconnecting",
      wabaId: "w1",
      since: 1000 + STALE_DISCONNECT_MS
    }],
    ["a failed disconnect leaves the WABA connected", disconnecting, failed, connected],
    ["a completed disconnect removes it", disconnecting, completed, none],
    ["failing what did not start", connected, failed, "not_disconnecting"],
    ["completing what did not start", none, completed, "not_disconnecting"]
  ]
  for (const [name, state, event, expected] of table) {
    it(name, () => {
      const t = applyWaba(state, event)
      if (typeof expected === "string") expect(t).toEqual({ _tag: "Rejected", reason: expected })
      else expect(t).toEqual({ _tag: "Applied", state: expected })
    })
  }

  it("the stored record's state", () => {
    const record = (state: WhatsappAccountRecord["state"]): WhatsappAccountRecord => ({
      projectId: "p",
      wabaId: "w1",
      businessId: "b",
      businessName: null,
      accountName: null,
      reviewStatus: "APPROVED",
      outboundCapacity: "1000",
      maxPhoneNumbersPerBusiness: null,
      state,
      connectedAt: DateTime.makeUnsafe(0) as DateTime.Utc,
      subscribedAt: null,
      updatedAt: DateTime.makeUnsafe(1000) as DateTime.Utc
    })
    expect(wabaStateOf(undefined)).toEqual(none)
    expect(wabaStateOf(record("connected"))).toEqual(connected)
    expect(wabaStateOf(record("disconnecting"))).toEqual(disconnecting)
  })

  const events = fc.array(
    fc.oneof(
      fc.constantFrom("w1", "w2").map(sender),
      fc.integer({ min: 0, max: 5 * STALE_DISCONNECT_MS }).map(request),
      fc.constant(failed),
      fc.constant(completed)
    ),
    { maxLength: 30 }
  )

  it("a rejected event changes nothing; the WABA only changes through None; a disconnect ends in None or Connected", () => {
    fc.assert(fc.property(events, (seq) => {
      let state: WabaState = none
      for (const event of seq) {
        const t = applyWaba(state, event)
        if (t._tag === "Rejected") continue
        const next = t.state
        // A connected WABA is never replaced by another one.
        if (state._tag !== "None" && next._tag !== "None") expect(next.wabaId).toBe(state.wabaId)
        // Disconnecting is entered only by a disconnect request; None only by a completed disconnect.
        if (next._tag === "Disconnecting" && state._tag !== "Disconnecting") expect(event._tag).toBe("DisconnectRequested")
        if (next._tag === "None") expect([state._tag, event._tag]).toEqual(["Disconnecting", "DisconnectCompleted"])
        state = next
      }
      // Every state accepts exactly the events its row of the table says.
      expect(applyWaba(state, sender(state._tag === "None" ? "w9" : state.wabaId))._tag).toBe(state._tag === "Disconnecting" ? "Rejected" : "Applied")
    }), { numRuns: 300 })
  })

  it("a disconnect request is refused only without a WABA or within the stale window of a running one", () => {
    fc.assert(fc.property(events, fc.integer({ min: 0, max: 10 * STALE_DISCONNECT_MS }), (seq, at) => {
      let state: WabaState = none
      for (const event of seq) {
        const t = applyWaba(state, event)
        if (t._tag === "Applied") state = t.state
      }
      const t = applyWaba(state, request(at))
      const refused = state._tag === "None" || (state._tag === "Disconnecting" && at - state.since < STALE_DISCONNECT_MS)
      expect(t._tag === "Rejected").toBe(refused)
    }), { numRuns: 300 })
  })
})
