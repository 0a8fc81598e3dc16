/**
 * An Idempotency-Key in progress: the lock lasts the request deadline
 * (REQUEST_TIMEOUT_MS + 1 s), not 60 s; a holder that crashed does not block a retry past it; the
 * 409's Retry-After is honest (1 s for a young attempt, never 60).
 */
import { sha256HexSync } from "@switchboard/core/internal"
import { canonicalJson, IdempotencyStore, inProgressRetryAfter } from "@switchboard/core/shared"
import { testBackends } from "@switchboard/sql-adapter"
import { DateTime, Duration, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"

describe("inProgressRetryAfter", () => {
  it("is 1 s for a young attempt, grows with its age, never past the lock's end", () => {
    expect(inProgressRetryAfter(0, 31_000)).toBe(1)
    expect(inProgressRetryAfter(900, 31_000)).toBe(1)
    expect(inProgressRetryAfter(5_000, 31_000)).toBe(6)
    expect(inProgressRetryAfter(29_500, 31_000)).toBe(2)
    expect(inProgressRetryAfter(30_999, 31_000)).toBe(1)
  })
})

for (const backend of testBackends()) {
  describe(`Idempotency-Key lock (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, { requestTimeoutMs: 2000 })
    })
    afterAll(() => s.close())

    const body = { name: "retry me", expiresAt: null }
    const fingerprint = sha256HexSync(canonicalJson({ method: "POST", route: "/v1/account/service-keys", path: {}, body }))
    /** A first attempt that took the key at `at` (and, for the test, never finished). */
    const holdKey = (key: string, at: number) =>
      s.run(Effect.flatMap(IdempotencyStore, (store) =>
        store.begin({
          scope: `account:${s.accountId}`,
          key,
          fingerprint,
          now: DateTime.makeUnsafe(at),
          lockFor: Duration.seconds(60),
          retainFor: Duration.hours(24)
        })))
    const post = (key: string) =>
      fetch(`${s.baseUrl}/v1/account/service-keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.serviceKey}`, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify(body)
      })

    it("a key held by an attempt that is gone is taken over once the request deadline has passed", async () => {
      expect((await holdKey("crashed-holder", Date.now() - 10_000))._tag).toBe("Acquired")
      const retry = await post("crashed-holder")
      expect(retry.status).toBe(201)
    })

    it("a key held right now answers 409 with an honest Retry-After", async () => {
      expect((await holdKey("busy-holder", Date.now()))._tag).toBe("Acquired")
      const busy = await post("busy-holder")
      expect(busy.status).toBe(409)
      expect((await busy.json() as { code: string }).code).toBe("IDEMPOTENCY_REQUEST_IN_PROGRESS")
      expect(busy.headers.get("retry-after")).toBe("1")
    })
  })
}
