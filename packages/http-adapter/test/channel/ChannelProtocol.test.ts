/**
 * The channel's frame parser (pure): any text is either a frame of the session's protocol or
 * `invalid` with a reason — never a throw; well-formed frames decode to what was sent; frames of the
 * other protocol and excess fields in strict frames are invalid. Bounded property runs.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decodeClientFrame, EVENTS_PROTOCOL, FUSOR_PROTOCOL, typeMatches } from "../../src/channel/ChannelProtocol.js"

const protocols = [FUSOR_PROTOCOL, EVENTS_PROTOCOL]

describe("channel frames", () => {
  it("any text decodes to a frame or to invalid, never throws", () => {
    fc.assert(
      fc.property(fc.constantFrom(...protocols), fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify(v))), (protocol, text) => {
        const frame = decodeClientFrame(protocol, text)
        expect(["init", "reply", "ack", "ping", "invalid"]).toContain(frame._tag)
      }),
      { numRuns: 300 }
    )
  })

  it("init round-trips on both protocols; bad cursors and tokens are invalid", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...protocols),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.string({ minLength: 1, maxLength: 200 }),
        (protocol, startSeq, token) => {
          expect(decodeClientFrame(protocol, JSON.stringify({ type: "init", startSeq, token }))).toEqual({
            _tag: "init",
            init: { type: "init", startSeq, token }
          })
        }
      ),
      { numRuns: 100 }
    )
    for (const bad of [{ startSeq: -1, token: "t" }, { startSeq: 1.5, token: "t" }, { startSeq: 0, token: "" }, { startSeq: "0", token: "t" }, {
      token: "t"
    }]) {
      expect(decodeClientFrame(FUSOR_PROTOCOL, JSON.stringify({ type: "init", ...bad }))._tag).toBe("invalid")
    }
    // The events protocol is strict about fields and checks its filter.
    expect(decodeClientFrame(EVENTS_PROTOCOL, JSON.stringify({ type: "init", startSeq: 0, token: "t", extra: 1 }))._tag).toBe("invalid")
    expect(decodeClientFrame(EVENTS_PROTOCOL, JSON.stringify({ type: "init", startSeq: 0, token: "t", types: ["Not A Type"] }))._tag).toBe("invalid")
    expect(decodeClientFrame(EVENTS_PROTOCOL, JSON.stringify({ type: "init", startSeq: 0, token: "t", types: [] }))._tag).toBe("invalid")
    const filtered = decodeClientFrame(EVENTS_PROTOCOL, JSON.stringify({ type: "init", startSeq: 0, token: "t", types: ["*", "call.dtmf.received"] }))
    expect(filtered).toMatchObject({ _tag: "init", init: { types: ["*", "call.dtmf.received"] } })
  })

  it("reply belongs to fusor.v1.json and ack to switchboard.events.v1.json", () => {
    const reply = { type: "reply", eventId: "sb_evt_x", status: 200, headers: { a: "b" }, body: "aGk=" }
    expect(decodeClientFrame(FUSOR_PROTOCOL, JSON.stringify(reply))).toMatchObject({ _tag: "reply", reply })
    expect(decodeClientFrame(EVENTS_PROTOCOL, JSON.stringify(reply))._tag).toBe("invalid")
    expect(decodeClientFrame(FUSOR_PROTOCOL, JSON.stringify({ ...reply, status: 600 }))._tag).toBe("invalid")
    expect(decodeClientFrame(FUSOR_PROTOCOL, JSON.stringify({ ...reply, body: "not base64!" }))._tag).toBe("invalid")
    expect(decodeClientFrame(EVENTS_PROTOCOL, JSON.stringify({ type: "ack", seq: 7 }))).toEqual({ _tag: "ack", seq: 7 })
    expect(decodeClientFrame(FUSOR_PROTOCOL, JSON.stringify({ type: "ack", seq: 7 }))._tag).toBe("invalid")
    expect(decodeClientFrame(EVENTS_PROTOCOL, JSON.stringify({ type: "ack", seq: -1 }))._tag).toBe("invalid")
    expect(decodeClientFrame(FUSOR_PROTOCOL, JSON.stringify({ type: "ping" }))).toEqual({ _tag: "ping" })
    expect(decodeClientFrame(FUSOR_PROTOCOL, "[]")._tag).toBe("invalid")
  })

  it("the type filter: absent or * passes everything, otherwise exact types", () => {
    expect(typeMatches(undefined, "a.b")).toBe(true)
    expect(typeMatches(["*"], "a.b")).toBe(true)
    expect(typeMatches(["a.b"], "a.b")).toBe(true)
    expect(typeMatches(["a.c"], "a.b")).toBe(false)
  })
})
