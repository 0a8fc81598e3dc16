/**
 * Cached reads stay fresh (core shared/RecordCache.ts): `GET /v1/account` and `GET /v1/projects/{id}`
 * are served from memory, yet a client that writes sees its own write on the next read, and a change
 * made through another server on the same database is seen within moments (triggers + LISTEN).
 * The writes themselves drop what they change (not every non-GET request): a server that never
 * hears the store's announcements still reads its own writes, and requests that change no cached
 * record (failed writes, unauthenticated posts, OAuth introspection, other records) keep the cache.
 */
import { RecordCache, RecordChanges } from "@switchboard/core/shared"
import { sharedTestStores, testBackends } from "@switchboard/sql-adapter"
import { Effect, Layer, Scope, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const call = async (s: TestServer, method: string, path: string, key: string, body?: unknown) => {
  const res = await fetch(`${s.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(method === "GET" ? {} : { "idempotency-key": crypto.randomUUID() }),
      ...(body === undefined ? {} : { "content-type": "application/json" })
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
      const [storeA, storeB] = (await Effect.runPromise(Scope.provide(sharedTestStores(backend, 2), scope))) as [Layer.Layer<any>, Layer.Layer<any>]
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

for (const backend of testBackends()) {
  describe(`cached records are dropped by the writes that change them (${backend})`, () => {
    let deaf: TestServer
    let server: TestServer

    beforeAll(async () => {
      // The store's announcements never reach this one (a listener that lags or lost its connection).
      deaf = await startTestServer(backend, {}, Layer.succeed(RecordChanges, { available: true, changes: Stream.never }))
      server = await startTestServer(backend)
    })

    afterAll(async () => {
      await deaf?.close()
      await server?.close()
    })

    const cachedOn = (s: TestServer) => s.run(Effect.map(RecordCache, (c) => c.size()))

    /** A fresh account with an organization, a project and a read key for it. */
    const setUp = async (s: TestServer) => {
      const owner = await s.newAccount(`drop-${crypto.randomUUID()}@example.com`)
      const org = await call(s, "POST", "/v1/organizations", owner.serviceKey, { name: "Drop" })
      const p = await call(s, "POST", `/v1/organizations/${org.organizationId}/projects`, owner.serviceKey, { name: "Drop", slug: `drop-${crypto.randomUUID().slice(0, 8)}` })
      const k = await call(s, "POST", `/v1/projects/${p.projectId}/api-keys`, owner.serviceKey, { name: "read", permissions: ["project:read"] })
      return { owner: owner.serviceKey, projectId: p.projectId as string, readKey: k.secret as string }
    }

    // A written record is kept out of the cache for one TTL: each write gets records of its own.
    it("a server that never hears the store's announcements still reads its own writes at once", async () => {
      {
        const { owner } = await setUp(deaf)
        expect((await call(deaf, "GET", "/v1/account", owner)).firstName).toBe(null)
        expect((await call(deaf, "GET", "/v1/account", owner)).firstName).toBe(null)
        await call(deaf, "PATCH", "/v1/account", owner, { firstName: "Renamed" })
        expect((await call(deaf, "GET", "/v1/account", owner)).firstName).toBe("Renamed")
      }
      {
        const { owner, projectId, readKey } = await setUp(deaf)
        expect((await call(deaf, "GET", `/v1/projects/${projectId}`, readKey)).name).toBe("Drop")
        const before = await cachedOn(deaf)
        expect((await call(deaf, "GET", `/v1/projects/${projectId}`, readKey)).name).toBe("Drop")
        expect(await cachedOn(deaf)).toBe(before) // served from the cache
        await call(deaf, "PATCH", `/v1/projects/${projectId}`, owner, { name: "Renamed project" })
        expect((await call(deaf, "GET", `/v1/projects/${projectId}`, readKey)).name).toBe("Renamed project")
      }
      {
        const { owner, projectId, readKey } = await setUp(deaf)
        expect((await call(deaf, "GET", `/v1/projects/${projectId}/agent-profile`, readKey)).firstName).not.toBe("Agent")
        await call(deaf, "PATCH", `/v1/projects/${projectId}/agent-profile`, owner, { firstName: "Agent" })
        expect((await call(deaf, "GET", `/v1/projects/${projectId}/agent-profile`, readKey)).firstName).toBe("Agent")
      }
      {
        const { owner, projectId, readKey } = await setUp(deaf)
        expect((await call(deaf, "GET", `/v1/projects/${projectId}`, readKey)).deletedAt).toBe(null)
        await call(deaf, "DELETE", `/v1/projects/${projectId}`, owner)
        expect((await call(deaf, "GET", `/v1/projects/${projectId}`, readKey)).deletedAt).not.toBe(null)
      }
    })

    it("requests that change no cached record leave the cache alone", async () => {
      const { owner, projectId, readKey } = await setUp(server)
      await call(server, "GET", "/v1/account", owner)
      await call(server, "GET", `/v1/projects/${projectId}`, readKey)
      const cached = await cachedOn(server)
      expect(cached).toBeGreaterThanOrEqual(2)
      const send = (method: string, path: string, init: RequestInit = {}) =>
        fetch(`${server.baseUrl}${path}`, { method, ...init }).then(async (res) => {
          await res.arrayBuffer()
          return res.status
        })
      // A failed write (invalid body), an unauthenticated write, an OAuth introspection without a
      // client, and a write of another record (a new API key).
      expect(await send("PATCH", "/v1/account", {
        headers: { authorization: `Bearer ${owner}`, "content-type": "application/json", "idempotency-key": `cache-${Date.now()}` },
        body: JSON.stringify({ firstName: 42 })
      })).toBe(422)
      expect(await send("POST", "/v1/organizations", { headers: { "content-type": "application/json" }, body: "{}" })).toBe(401)
      expect(await send("POST", "/api/auth/oauth2/introspect", {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "token=nothing"
      })).toBe(401)
      await call(server, "POST", `/v1/projects/${projectId}/api-keys`, owner, { name: "another", permissions: ["project:read"] })
      expect(await cachedOn(server)).toBe(cached)
    })
  })
}
