/**
 * Message records over the status machine (core messages/MessageRecords.ts): every record the
 * reducer makes decodes with the strict `Message` schema (its status's shape for its platform; an
 * accepted one with the spec's `AcceptedMessage`), `encodeMessage` is `Schema.encode(Message)`,
 * content is checked against the platform, and the fact schemas refuse what they must.
 */
import { describe, expect, it } from "@effect/vitest"
import { formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import {
  AcceptedMessage,
  applyFact,
  encodeMessage,
  IngestMessageFactsRequest,
  Message,
  MessageFact
} from "../../src/messages/MessagesFeature.js"

const PROJECT = "0192d7c4-7b5e-7c3a-9d1e-2f3a4b5c6d7e"
const T0 = Date.UTC(2030, 0, 1)
const id = (kind: (typeof IdKinds)[keyof typeof IdKinds]) => formatTypeId(kind, uuidv7Bytes(T0, new Uint8Array(10).fill(7)))
const MESSAGE = id(IdKinds.message)
const USER = id(IdKinds.user)

const contents: Record<string, unknown> = {
  email: { type: "email", subject: "Hi", text: "Body" },
  imessage: { type: "richlink", url: "https://example.com/a" },
  sms: { type: "text", text: "code 123456" },
  telegram: { type: "attachment", attachmentId: "a1", name: "cat.png", mimeType: "image/png" },
  whatsapp: { type: "reaction", emoji: "👍", targetMessageId: MESSAGE },
  whatsapp_business: { type: "text", text: "Hello" },
  signal: { type: "sticker", stickerId: "s1" }
}

const decodeFact = Schema.decodeUnknownSync(MessageFact)
const fact = (type: string, ms: number, factId: string, platform = "sms") =>
  decodeFact({
    id: factId,
    messageId: MESSAGE,
    type,
    timestamp: new Date(T0 + ms).toISOString(),
    data: type === "dispatched" || type === "received"
      ? { platform, space: { id: "s", type: "group" }, sentBy: { id: USER }, content: contents[platform], metadata: {}, parentMessageId: MESSAGE }
      : type === "accepted"
      ? { acceptance: { providerMessageId: null } }
      : type === "failed"
      ? { failure: { code: "timeout" } }
      : {}
  })

const strictly = (schema: Schema.Codec<any, any>, value: unknown) =>
  Schema.decodeUnknownResult(schema, { onExcessProperty: "error" })(value)

describe("message records", () => {
  it.each(Object.keys(contents))("%s: every status's record decodes strictly and encodes as the schema does", (platform) => {
    const lives = [["dispatched", "accepted", "delivered"], ["dispatched", "failed"], ["dispatched", "accepted", "failed"], ["received"]]
    for (const life of lives) {
      let message: Message | undefined
      for (const [i, type] of life.entries()) {
        const d = applyFact(PROJECT, message, fact(type, i * 1000, `f${i}`, platform), () => false)
        expect(d.outcome, `${life.join(">")} ${type}`).toBe("applied")
        message = d.message
        const wire = encodeMessage(message!)
        expect(wire).toEqual(Schema.encodeSync(Message)(message!))
        expect(Schema.decodeUnknownSync(Message, { onExcessProperty: "error" })(wire)).toEqual(message)
        const decoded = strictly(AcceptedMessage, wire)
        expect(Result.isSuccess(decoded)).toBe(message!.status === "accepted")
      }
    }
  })
})

const stepArb = fc.record({
  type: fc.constantFrom("dispatched", "received", "accepted", "delivered", "failed"),
  ms: fc.integer({ min: 0, max: 5000 }),
  id: fc.constantFrom("a", "b", "c", "d", "e")
})

describe("message records: properties", () => {
  it("every record the reducer makes has its strict shape and round-trips", () => {
    fc.assert(fc.property(fc.constantFrom(...Object.keys(contents)), fc.array(stepArb, { maxLength: 10 }), (platform, steps) => {
      let message: Message | undefined
      const seen = new Set<string>()
      for (const s of steps) {
        const d = applyFact(PROJECT, message, fact(s.type, s.ms, s.id, platform), (f) => seen.has(f))
        if (d.outcome !== "applied") {
          expect(d.message).toBe(message)
          continue
        }
        seen.add(s.id)
        message = d.message
        const wire = encodeMessage(message)
        expect(wire).toEqual(Schema.encodeSync(Message)(message))
        expect(Result.isSuccess(strictly(Message, wire))).toBe(true)
      }
    }), { numRuns: 150 })
  })
})

describe("message facts", () => {
  it("content that does not fit the platform rejects the fact, not the batch", () => {
    const bad = decodeFact({
      id: "x",
      messageId: MESSAGE,
      type: "dispatched",
      timestamp: new Date(T0).toISOString(),
      data: { platform: "sms", space: { id: "s", type: "direct" }, sentBy: { id: USER }, content: { type: "richlink", url: "https://e.com" }, metadata: {} }
    })
    expect(applyFact(PROJECT, undefined, bad, () => false)).toEqual({ outcome: "rejected", reason: "invalid-content", message: undefined })
  })

  it("a batch holds 1-100 facts; unknown types, extra properties and bad ids are refused", () => {
    const one = { id: "x", messageId: MESSAGE, type: "delivered", timestamp: "2030-01-01T00:00:00Z", data: {} }
    const decode = (v: unknown) => Result.isSuccess(strictly(IngestMessageFactsRequest, v))
    expect(decode({ facts: [one] })).toBe(true)
    expect(decode({ facts: Array.from({ length: 100 }, () => one) })).toBe(true)
    expect(decode({ facts: [] })).toBe(false)
    expect(decode({ facts: Array.from({ length: 101 }, () => one) })).toBe(false)
    expect(decode({ facts: [{ ...one, type: "read" }] })).toBe(false)
    expect(decode({ facts: [{ ...one, extra: 1 }] })).toBe(false)
    expect(decode({ facts: [{ ...one, data: { x: 1 } }] })).toBe(false)
    expect(decode({ facts: [{ ...one, messageId: "m1" }] })).toBe(false)
    expect(decode({ facts: [{ ...one, id: "" }] })).toBe(false)
    expect(decode({ facts: [{ ...one, type: "failed", data: { failure: { code: "Bad Code" } } }] })).toBe(false)
  })
})
