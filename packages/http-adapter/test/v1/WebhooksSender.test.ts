/**
 * The server's outbound webhook sender and its guard (docs/api-notes/events-and-webhooks.md): https
 * only, no private, loopback or link-local targets (checked on the addresses a name resolves to,
 * and on IP literals), no redirects followed, a timeout — and, where the operator allows private
 * targets, plain delivery to a loopback receiver.
 */
import { hmacSha256Sync } from "@switchboard/core/internal"
import { Effect } from "effect"
import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWebhookSender, nodeHmacSha256 } from "../../src/server/WebhooksAdapters.js"
import { freePort, type Receiver, startReceiver } from "../support/WebhookReceiver.js"

const request = (url: string, timeoutMs = 5000) => ({
  url,
  headers: { "content-type": "application/json", "x-test": "1" },
  body: JSON.stringify({ hello: "wörld" }),
  timeoutMs
})

describe("webhook sender", () => {
  let receiver: Receiver
  const strict = makeWebhookSender({ allowPrivate: false })
  const lenient = makeWebhookSender({ allowPrivate: true })
  beforeAll(async () => {
    receiver = await startReceiver()
  })
  afterAll(async () => {
    strict.close()
    lenient.close()
    await receiver.close()
  })

  it("refuses http://, private and loopback literals, and names resolving to loopback — before connecting", async () => {
    const before = receiver.received.length
    for (const url of [
      receiver.url("/plain-http"),
      `https://127.0.0.1:${receiver.port}/loopback`,
      `https://[::1]:${receiver.port}/v6-loopback`,
      "https://10.1.2.3/private",
      "https://169.254.169.254/latest/meta-data",
      `https://localhost:${receiver.port}/by-name`,
      "ftp://example.com/x",
      "https://user:pw@example.com/x"
    ]) {
      const outcome = await Effect.runPromise(strict.sender.send(request(url)))
      expect(outcome._tag, url).toBe("Refused")
    }
    expect(receiver.received.length).toBe(before)
  })

  it("a target is worked out once per URL: a refused URL stays refused, an allowed one keeps its path and query", async () => {
    const before = receiver.received.length
    for (let i = 0; i < 3; i++) {
      expect((await Effect.runPromise(strict.sender.send(request(receiver.url("/plain-http")))))._tag).toBe("Refused")
      expect(await Effect.runPromise(lenient.sender.send(request(receiver.url(`/again?n=${i % 2}`))))).toMatchObject({ _tag: "Response" })
    }
    expect(receiver.received.slice(before).map((r) => r.path)).toEqual(["/again?n=0", "/again?n=1", "/again?n=0"])
  })

  it("delivers the body and headers as given when private targets are allowed", async () => {
    receiver.answer = () => ({ status: 202, body: "ok" })
    const outcome = await Effect.runPromise(lenient.sender.send(request(receiver.url("/in"))))
    expect(outcome).toEqual({ _tag: "Response", status: 202, body: "ok" })
    const got = receiver.received.at(-1)!
    expect(got.path).toBe("/in")
    expect(got.body).toBe(JSON.stringify({ hello: "wörld" }))
    expect(got.headers["x-test"]).toBe("1")
    expect(got.headers["content-length"]).toBe(String(Buffer.byteLength(got.body)))
  })

  it("does not follow redirects: a 302 is the answer", async () => {
    receiver.answer = (r) => r.path === "/moved" ? { status: 302, headers: { location: "/elsewhere" } } : { status: 200 }
    const before = receiver.received.length
    const outcome = await Effect.runPromise(lenient.sender.send(request(receiver.url("/moved"))))
    expect(outcome).toMatchObject({ _tag: "Response", status: 302 })
    expect(receiver.received.slice(before).map((r) => r.path)).toEqual(["/moved"])
  })

  it("keeps only the first KiB of a large answer", async () => {
    receiver.answer = () => ({ status: 500, body: "e".repeat(200_000) })
    const outcome = await Effect.runPromise(lenient.sender.send(request(receiver.url("/big"))))
    expect(outcome._tag).toBe("Response")
    if (outcome._tag === "Response") {
      expect(outcome.status).toBe(500)
      expect(outcome.body.length).toBe(1024)
    }
  })

  it("times out on a receiver that never answers, and reports a refused connection as a network error", async () => {
    receiver.answer = () => "hang"
    expect(await Effect.runPromise(lenient.sender.send(request(receiver.url("/hang"), 200)))).toEqual({ _tag: "Timeout" })
    receiver.answer = () => ({ status: 204 })
    const port = await freePort()
    const down = await Effect.runPromise(lenient.sender.send(request(`http://127.0.0.1:${port}/down`)))
    expect(down._tag).toBe("NetworkError")
  })

  it("an unresolvable name is a DNS failure", async () => {
    const outcome = await Effect.runPromise(strict.sender.send(request("https://no-such-host.invalid/hook")))
    expect(outcome._tag).toBe("DnsFailure")
  })
})

describe("the server's webhook HMAC (node:crypto)", () => {
  it("equals core's HMAC-SHA-256 for any key and message", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 150 }),
        fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: "grapheme", maxLength: 80 })),
        (key, message) => {
          expect(Buffer.from(nodeHmacSha256(key, message))).toEqual(Buffer.from(hmacSha256Sync(key, message)))
        }
      ),
      { numRuns: 300 }
    )
  })
})
