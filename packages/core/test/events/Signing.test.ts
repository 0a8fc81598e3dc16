/**
 * Webhook signatures, checked against Node's own HMAC: the management v0 scheme
 * (docs/api-notes/management-api.md) and Standard Webhooks v1
 * (docs/api-notes/events-and-webhooks.md), with several keys during a rotation overlap.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  formatWhsec,
  fromBase64,
  managementHeaders,
  managementSignature,
  parseWhsec,
  standardHeaders,
  standardSignature
} from "@switchboard/core/events"
import { Effect } from "effect"
import * as fc from "fast-check"
import { runLikeTest } from "../Properties.js"
import { createHmac } from "node:crypto"

const key = fc.uint8Array({ minLength: 24, maxLength: 64 })
const body = fc.string({ unit: "binary", maxLength: 300 })
const ts = fc.integer({ min: 1_600_000_000, max: 2_000_000_000 })

describe("management v0", () => {
  it("v0=<hex HMAC-SHA256(secret, v0:<ts>:<body>)>, the secret's text being the key", () =>
    fc.assert(
      fc.asyncProperty(fc.hexaString({ minLength: 64, maxLength: 64 }), ts, body, (secret, t, b) =>
        runLikeTest(Effect.gen(function*() {
          const expected = `v0=${createHmac("sha256", secret).update(`v0:${t}:${b}`, "utf8").digest("hex")}`
          expect(yield* managementSignature(secret, t, b)).toBe(expected)
        }))),
      { numRuns: 100 }
    ))

  it.effect("headers: the event type, the webhook id, the timestamp and the signature", () =>
    Effect.gen(function*() {
      const h = yield* managementHeaders({
        secret: "ab".repeat(32),
        webhookId: "0199b0a4-6f3c-7c3e-9c7a-5b2f1d3e4a5b",
        eventType: "project.created",
        timestampSeconds: 1_900_000_000,
        body: "{\"a\":1}",
        userAgent: "switchboard-webhook/0.1.0"
      })
      expect(h).toEqual({
        "content-type": "application/json",
        "user-agent": "switchboard-webhook/0.1.0",
        "x-spectrum-event": "project.created",
        "x-spectrum-webhook-id": "0199b0a4-6f3c-7c3e-9c7a-5b2f1d3e4a5b",
        "x-spectrum-timestamp": "1900000000",
        "x-spectrum-signature": `v0=${createHmac("sha256", "ab".repeat(32)).update("v0:1900000000:{\"a\":1}").digest("hex")}`
      })
    }))
})

describe("Standard Webhooks v1", () => {
  it("whsec_<base64> round-trips its key", () => {
    fc.assert(fc.property(key, (k) => {
      const secret = formatWhsec(k)
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
      expect(parseWhsec(secret)).toEqual(k)
      expect(fromBase64(secret.slice(6))).toEqual(k)
    }))
  })

  it("one v1,<base64 HMAC(key, id.ts.body)> per key, space-separated, in key order", () =>
    fc.assert(
      fc.asyncProperty(fc.array(key, { minLength: 1, maxLength: 3 }), ts, body, (keys, t, b) =>
        runLikeTest(Effect.gen(function*() {
          const id = "sb_evt_01jd0000000000000000000000"
          const expected = keys.map((k) => `v1,${createHmac("sha256", Buffer.from(k)).update(`${id}.${t}.${b}`, "utf8").digest("base64")}`)
          expect(yield* standardSignature(keys, id, t, b)).toBe(expected.join(" "))
        }))),
      { numRuns: 100 }
    ))

  it.effect("headers: webhook-id is the event id; webhook-timestamp is the attempt's time", () =>
    Effect.gen(function*() {
      const h = yield* standardHeaders({
        keys: [new Uint8Array(32).fill(3)],
        messageId: "sb_evt_01jd0000000000000000000000",
        timestampSeconds: 1_900_000_001,
        body: "{}",
        userAgent: "ua"
      })
      expect(h["webhook-id"]).toBe("sb_evt_01jd0000000000000000000000")
      expect(h["webhook-timestamp"]).toBe("1900000001")
      expect(h["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
      expect(h["content-type"]).toBe("application/json")
    }))
})
