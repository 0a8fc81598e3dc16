/**
 * Stored Idempotency-Key outcomes never hold a one-time secret in plain text
 * (docs/architecture.md#reliability-and-security): the body is sealed under the server secret, and
 * a replay still returns the secret (docs/api-notes/requests.md).
 */
import { SqlClient } from "effect/sql"
import { testBackends } from "@switchboard/sql-adapter"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"

for (const backend of testBackends()) {
  describe(`sealed idempotency records (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend)
    })
    afterAll(() => s.close())

    const create = (key: string) =>
      fetch(`${s.baseUrl}/v1/account/service-keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.serviceKey}`, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ name: "sealed", expiresAt: null })
      }).then(async (res) => ({ status: res.status, replayed: res.headers.get("idempotent-replayed"), body: (await res.json()) as any }))

    it("the stored body is sealed; a replay returns the same secret", async () => {
      const first = await create("sealing-1")
      expect(first.status).toBe(201)
      const secret: string = first.body.secret
      const rows = await s.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ responseBody: string | null }>`select response_body from idempotency_records where key = ${"sealing-1"}`))
      expect(rows).toHaveLength(1)
      expect(rows[0]!.responseBody).toMatch(/^sealed:v1:/)
      expect(rows[0]!.responseBody).not.toContain(secret)
      expect(rows[0]!.responseBody).not.toContain(secret.slice(-20))
      const again = await create("sealing-1")
      expect(again.status).toBe(201)
      expect(again.replayed).toBe("true")
      expect(again.body.secret).toBe(secret)
    })
  })
}
