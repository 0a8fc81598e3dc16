/** Rate limits on /v1 (docs/api-notes/requests.md): headers on every response, 429 over the quota, per credential. */
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"

for (const backend of testBackends()) {
  describe(`rate limits (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, { rateLimitQuota: 3, rateLimitWindowSeconds: 60 })
    })
    afterAll(() => s.close())
    const get = (key?: string, path = "/v1/account") =>
      fetch(`${s.baseUrl}${path}`, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } })

    it("counts per credential and answers 429 RATE_LIMITED with Retry-After past the quota", async () => {
      const { serviceKey } = await s.newAccount("limited@example.com")
      // Windows are fixed and aligned to the clock (60 s here): start the four requests well inside
      // one, so a slow machine never sees the window roll over between them.
      const msLeft = 60_000 - (Date.now() % 60_000)
      if (msLeft < 15_000) await new Promise((resolve) => setTimeout(resolve, msLeft + 200))
      const states: Array<string | null> = []
      for (let i = 0; i < 3; i++) {
        const r = await get(serviceKey)
        expect(r.status).toBe(200)
        expect(r.headers.get("ratelimit-policy")).toBe(`"default";q=3;w=60`)
        states.push(r.headers.get("ratelimit"))
      }
      expect(states.map((h) => /r=(\d+)/.exec(h ?? "")?.[1])).toEqual(["2", "1", "0"])
      const over = await get(serviceKey)
      expect(over.status).toBe(429)
      expect(over.headers.get("content-type")).toBe("application/problem+json")
      expect(((await over.json()) as { code: string }).code).toBe("RATE_LIMITED")
      const retry = Number(over.headers.get("retry-after"))
      expect(retry).toBeGreaterThanOrEqual(1)
      expect(retry).toBeLessThanOrEqual(60)
      expect(over.headers.get("ratelimit")).toMatch(/^"default";r=0;t=\d+$/)
      expect(over.headers.get("x-request-id")).toMatch(/^sb_req_/)
      // Another credential has its own budget.
      expect((await get(s.serviceKey)).status).toBe(200)
    })

    it("also limits requests without a credential (by client address), and errors carry the headers", async () => {
      const first = await get(undefined, "/v1/nothing-here")
      expect(first.status).toBe(404)
      expect(first.headers.get("ratelimit-policy")).toBe(`"default";q=3;w=60`)
      expect(first.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=\d+$/)
      // Pages outside /v1 are not limited.
      const page = await fetch(`${s.baseUrl}/problems/catalog`)
      expect(page.headers.get("ratelimit")).toBeNull()
    })
  })
}
