/**
 * Cached reads stay fresh (core shared/RecordCache.ts): `GET /v1/account` and `GET /v1/projects/{id}`
 * are served from memory, yet a client that writes sees its own write on the next read, and a change
 * made through another server on the same database is seen within moments (triggers + LISTEN).
 */
import { RecordCache } from "@switchboard/core/shared"
import { sharedTestStores, testBackends } from "@switchboard/sql-adapter"
import { Effect, Layer, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const call = async (s: TestServer, method: string, path: string, key: string, body?: unknown) => {
  const res = await fetch(`${s.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json", "idempotency-key": crypto.randomUUID() })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const json = (await res.json()) as any
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

/** Polls `read` until `ok`, for at most 5 s. */
const eventually = async <A>(read: () => Promise<A>, ok: (a: A) => boolean): Promise<A> => {
  const deadline = Date.now() + 5_000
  for (;;) {
    const a = await read()
    if (ok(a) || Date.now() > deadline) return a
    await new Promise((r) => setTimeout(r, 20))
  }
}

for (const backend of testBackends()) {
  describe(`cached records stay fresh (${backend})`, () => {
    const scope = Effect.runSync(Scope.make())
    let a: TestServer
    let b: TestServer
    let project: { id: string; key: string }

    beforeAll(async () => {
      const [storeA, storeB] = (await Effect.runPromise(Scope.extend(sharedTestStores(backend, 2), scope))) as [Layer.Layer<any>, Layer.Layer<any>]
      a = await startTestServer(backend, {}, Layer.empty as Layer.Layer<any>, storeA)
      b = await startTestServer(backend, {}, Layer.empty as Layer.Layer<any>, storeB)
      const org = await call(a, "POST", "/v1/organizations", a.serviceKey, { name: "Fresh" })
      const p = await call(a, "POST", `/v1/organizations/${org.organizationId}/projects`, a.serviceKey, { name: "Fresh", slug: `fresh-${Date.now().toString(36)}` })
      const k = await call(a, "POST", `/v1/projects/${p.projectId}/api-keys`, a.serviceKey, { name: "read", permissions: ["project:read"] })
      project = { id: p.projectId, key: k.secret }
    })

    afterAll(async () => {
      await a?.close()
      await b?.close()
      await Effect.runPromise(Scope.close(scope, { _tag: "Success", value: undefined } as never))
    })

    const cachedOn = (s: TestServer) => s.run(Effect.map(RecordCache, (c) => c.size()))

    it("a client that writes reads its own write at once, every time", async () => {
      for (let i = 0; i < 10; i++) {
        expect((await call(a, "GET", "/v1/account", a.serviceKey)).firstName).toBe(i === 0 ? null : `N${i - 1}`)
        await call(a, "PATCH", "/v1/account", a.serviceKey, { firstName: `N${i}` })
        expect((await call(a, "GET", "/v1/account", a.serviceKey)).firstName).toBe(`N${i}`)
        await call(a, "PATCH", `/v1/projects/${project.id}`, a.serviceKey, { name: `P${i}` })
        expect((await call(a, "GET", `/v1/projects/${project.id}`, project.key)).name).toBe(`P${i}`)
      }
    })

    it("a change made through another server is seen within moments, though the reader had the record cached", async () => {
      // Records of their own: the writes above keep theirs out of the caches for one TTL.
      const other = await a.newAccount(`fresh-${Date.now()}@example.com`)
      const org = await call(a, "POST", "/v1/organizations", other.serviceKey, { name: "Fresh 2" })
      const p = await call(a, "POST", `/v1/organizations/${org.organizationId}/projects`, other.serviceKey, { name: "Fresh 2", slug: `fresh2-${Date.now().toString(36)}` })
      const k = await call(a, "POST", `/v1/projects/${p.projectId}/api-keys`, other.serviceKey, { name: "read", permissions: ["project:read"] })
      const before = await call(b, "GET", "/v1/account", other.serviceKey)
      await call(b, "GET", `/v1/projects/${p.projectId}`, k.secret)
      expect(await cachedOn(b)).toBeGreaterThanOrEqual(2)
      // The reader is B; the writer is A: nothing in B's process saw the write happen.
      await call(a, "PATCH", "/v1/account", other.serviceKey, { lastName: "Elsewhere" })
      await call(a, "PATCH", `/v1/projects/${p.projectId}`, other.serviceKey, { name: "Renamed elsewhere" })
      const account = await eventually(() => call(b, "GET", "/v1/account", other.serviceKey), (x) => x.lastName === "Elsewhere")
      expect(account.lastName).toBe("Elsewhere")
      expect(account.accountId).toBe(before.accountId)
      const renamed = await eventually(() => call(b, "GET", `/v1/projects/${p.projectId}`, k.secret), (x) => x.name === "Renamed elsewhere")
      expect(renamed.name).toBe("Renamed elsewhere")
    })
  })
}
