/**
 * Idempotency under concurrency (docs/api-notes/requests.md): two server instances on one database
 * race the same Idempotency-Key. Exactly one request runs; the others are replays of it or 409
 * IDEMPOTENCY_REQUEST_IN_PROGRESS with Retry-After — never a second key.
 */
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServers, type TestServer } from "../support/TestServer.js"

for (const backend of testBackends()) {
  describe(`idempotency race across server instances (${backend})`, () => {
    let servers: ReadonlyArray<TestServer>
    let close: () => Promise<void>
    beforeAll(async () => {
      const pair = await startTestServers(backend, 2)
      servers = pair.servers
      close = pair.close
    })
    afterAll(() => close())

    const create = (server: TestServer, credential: string, key: string, name: string) =>
      fetch(`${server.baseUrl}/v1/account/service-keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${credential}`, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ name, expiresAt: null })
      }).then(async (res) => ({ status: res.status, headers: res.headers, body: (await res.json()) as any }))

    it("16 concurrent requests with one key on two instances create exactly one key", async () => {
      const [a, b] = servers as [TestServer, TestServer]
      const { serviceKey } = await a.newAccount("race@example.com")
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) => create(i % 2 === 0 ? a : b, serviceKey, "race-key-1", "raced"))
      )
      const created = results.filter((r) => r.status === 201)
      const busy = results.filter((r) => r.status === 409)
      expect(created.length + busy.length).toBe(16)
      expect(created.length).toBeGreaterThanOrEqual(1)
      // Every 201 is the same response: one secret.
      expect(new Set(created.map((r) => r.body.secret)).size).toBe(1)
      expect(created.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1)
      for (const r of busy) {
        expect(r.body.code).toBe("IDEMPOTENCY_REQUEST_IN_PROGRESS")
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      }
      const list = await fetch(`${b.baseUrl}/v1/account/service-keys`, { headers: { authorization: `Bearer ${serviceKey}` } })
      const names = ((await list.json()) as { serviceKeys: Array<{ name: string }> }).serviceKeys.map((k) => k.name)
      expect(names.filter((n) => n === "raced")).toHaveLength(1)
      // Once finished, both instances replay it.
      for (const server of [a, b]) {
        const again = await create(server, serviceKey, "race-key-1", "raced")
        expect(again.status).toBe(201)
        expect(again.headers.get("idempotent-replayed")).toBe("true")
        expect(again.body.secret).toBe(created[0]!.body.secret)
      }
    })

    it("the same key with different bodies in a race: one runs, the rest are refused", async () => {
      const [a, b] = servers as [TestServer, TestServer]
      const { serviceKey } = await a.newAccount("race2@example.com")
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => create(i % 2 === 0 ? a : b, serviceKey, "race-key-2", `name-${i}`))
      )
      const fresh = results.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null)
      expect(fresh).toHaveLength(1)
      for (const r of results.filter((r) => r !== fresh[0])) {
        expect([201, 409, 422]).toContain(r.status)
        if (r.status === 201) expect(r.body.serviceKey.name).toBe(fresh[0]!.body.serviceKey.name)
      }
      const list = await fetch(`${a.baseUrl}/v1/account/service-keys`, { headers: { authorization: `Bearer ${serviceKey}` } })
      const names = ((await list.json()) as { serviceKeys: Array<{ name: string }> }).serviceKeys.map((k) => k.name)
      expect(names.filter((n) => n.startsWith("name-"))).toHaveLength(1)
    })
  })
}
