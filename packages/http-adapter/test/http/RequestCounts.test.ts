/**
 * The requests counted per project (http/pipeline/RequestCounts.ts) and their flush
 * (server/RequestCountsWorker.ts): any sequence of counts drains as their sums per project, hour,
 * surface and outcome class; the tally's bound drops new keys only; a failed flush is put back and
 * stored by the next; the pipeline's step counts by the `projectId` of the route the router matched
 * and nothing else; the last flush happens when the layer closes; and the server counts its
 * answers end to end, served by Node and as a web handler.
 */
import { ProjectRequestCounts, type RequestCount } from "@switchboard/core/projects"
import type { ProjectId } from "@switchboard/core/shared"
import { Context, DateTime, Effect, Exit, Layer, Scope } from "effect"
import { HttpEffect, HttpMiddleware, HttpRouter } from "effect/http"
import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HttpAppLive } from "../../src/Http.js"
import { makeCountRequest, makeRequestTally, RequestCounter } from "../../src/http/pipeline/RequestCounts.js"
import { RequestCountsWorker } from "../../src/server/RequestCountsWorker.js"
import { managementClient } from "../support/ManagementClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const HOUR = 3_600_000
const ids = ["0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "0190a1b2-c3d4-7e5f-9a9b-0c1d2e3f4a5c"]
const T = Date.UTC(2030, 2, 1, 10, 0, 0)

const outcomeOf = (status: number) => (status >= 500 ? "server_error" : status >= 400 ? "client_error" : "success")
const keyOf = (r: { projectId: string; hour: number; surface: string; outcome: string }) => `${r.projectId} ${r.hour} ${r.surface} ${r.outcome}`
const sums = (rows: ReadonlyArray<RequestCount>) => {
  const m = new Map<string, number>()
  for (const r of rows) {
    const k = keyOf({ ...r, hour: DateTime.toEpochMillis(r.hour) })
    m.set(k, (m.get(k) ?? 0) + r.count)
  }
  return m
}

describe("request tally", () => {
  it("drains any sequence of counts as their sums per project, hour, surface and outcome (ids no project can have left out)", () => {
    const request = fc.record({
      projectId: fc.constantFrom(ids[0]!, ids[1]!, ids[0]!.toUpperCase(), "not-a-project"),
      surface: fc.constantFrom("v1" as const, "management" as const),
      status: fc.constantFrom(200, 201, 204, 301, 400, 401, 404, 422, 429, 500, 503, 504),
      at: fc.integer({ min: 0, max: 3 * HOUR })
    })
    fc.assert(
      fc.property(fc.array(request, { maxLength: 200 }), (requests) => {
        const tally = makeRequestTally()
        for (const r of requests) tally.count(r.projectId, r.surface, r.status, T + r.at)
        const expected = new Map<string, number>()
        for (const r of requests) {
          if (r.projectId === "not-a-project") continue
          const k = keyOf({ projectId: r.projectId.toLowerCase(), hour: T + Math.floor(r.at / HOUR) * HOUR, surface: r.surface, outcome: outcomeOf(r.status) })
          expected.set(k, (expected.get(k) ?? 0) + 1)
        }
        // Upper- and lower-case spellings of one id are two keys in the tally, one project in the store.
        expect(sums(tally.drain())).toEqual(expected)
        expect(tally.drain()).toEqual([])
      }),
      { seed: 20261204, numRuns: 200 }
    )
  })

  it("holds at most its bound of keys: a request of a further key is dropped, counted keys keep counting", () => {
    const tally = makeRequestTally(2)
    tally.count(ids[0]!, "v1", 200, T)
    tally.count(ids[0]!, "v1", 500, T)
    tally.count(ids[1]!, "v1", 200, T)
    tally.count(ids[0]!, "v1", 200, T)
    expect(tally.dropped()).toBe(1)
    expect([...sums(tally.drain()).values()].sort()).toEqual([1, 2])
    // Drained, the tally has room again.
    tally.count(ids[1]!, "v1", 200, T)
    expect(tally.drain().map((r) => r.projectId)).toEqual([ids[1]])
  })

  it("puts back what a drain took, added to what was counted since", () => {
    const tally = makeRequestTally()
    tally.count(ids[0]!, "management", 404, T)
    const batch = tally.drain()
    tally.count(ids[0]!, "management", 404, T + 10)
    tally.restore(batch)
    expect(tally.drain().map((r) => [r.surface, r.outcome, r.count])).toEqual([["management", "client_error", 2]])
  })
})

describe("the pipeline's count", () => {
  const routed = (path: string, params: Record<string, string>) =>
    Context.make(HttpRouter.RouteContext, { route: { path } as unknown as HttpRouter.Route<never, never>, params })

  it("counts by the projectId of the versioned or management route the router matched, and nothing else", () => {
    const tally = makeRequestTally()
    const count = makeCountRequest(tally)
    count(routed("/v1/projects/:projectId/calls", { projectId: ids[0]! }), 201)
    count(routed("/v1/projects/:projectId", { projectId: ids[0]! }), 404)
    count(routed("/projects/:projectId/webhooks", { projectId: ids[1]! }), 503)
    count(routed("/v1/account/service-keys", {}), 200)
    count(routed("/v1/projects", {}), 200)
    count(routed("/api/projects/:projectId", { projectId: ids[0]! }), 200)
    count(routed("/projects/*", { "*": "x" }), 404)
    count(Context.empty() as Context.Context<never>, 404)
    const rows = tally.drain().map((r) => [r.projectId, r.surface, r.outcome, r.count]).sort()
    expect(rows).toEqual([
      [ids[0], "v1", "client_error", 1],
      [ids[0], "v1", "success", 1],
      [ids[1], "management", "server_error", 1]
    ].sort())
  })
})

describe("the flush", () => {
  const storeOf = (stored: Array<RequestCount>, failures: { left: number }) =>
    Layer.succeed(ProjectRequestCounts, ProjectRequestCounts.of({
      add: (batch) => failures.left-- > 0 ? Effect.die(new Error("store down")) : Effect.sync(() => void stored.push(...batch)),
      last24h: () => Effect.succeed([]),
      purge: () => Effect.succeed(0)
    }))

  it("stores the tally; a flush the store refuses is put back and stored by the next; the layer's close flushes", async () => {
    const stored: Array<RequestCount> = []
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(Layer.buildWithScope(
      RequestCountsWorker({ requestCountsFlushSeconds: 300 }).pipe(Layer.provide(storeOf(stored, { left: 1 }))),
      scope
    ))
    const counter = Context.get(context as Context.Context<RequestCounter>, RequestCounter)
    counter.tally.count(ids[0]!, "v1", 200, Date.now())
    // The store refuses this flush: the counts stay in the tally.
    await Effect.runPromise(Effect.exit(counter.flush))
    expect(stored).toEqual([])
    await Effect.runPromise(counter.flush)
    expect(stored.map((r) => r.count)).toEqual([1])
    counter.tally.count(ids[0]!, "v1", 500, Date.now())
    await Effect.runPromise(Scope.close(scope, Exit.void))
    expect(stored.map((r) => [r.outcome, r.count])).toEqual([["success", 1], ["server_error", 1]])
  })

  it("counts nothing with REQUEST_COUNTS_FLUSH_SECONDS=0: there is no counter", async () => {
    const context = await Effect.runPromise(Effect.scoped(Layer.build(RequestCountsWorker({ requestCountsFlushSeconds: 0 }).pipe(Layer.provide(storeOf([], { left: 0 }))))))
    expect(Context.getOption(context as Context.Context<RequestCounter>, RequestCounter)._tag).toBe("None")
  })
})

describe("the server's requests, served by Node and as a web handler", () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer("pglite", { requestCountsFlushSeconds: 300 }, undefined, undefined, { tls: true })
  })
  afterAll(() => s.close())

  const rowsOf = (projectId: string) =>
    s.run(Effect.gen(function*() {
      yield* Effect.flatMap(RequestCounter, (c) => c.flush)
      const rows = yield* (yield* ProjectRequestCounts).last24h(projectId as ProjectId, yield* DateTime.now)
      return rows.map((r) => [r.surface, r.outcome, r.count])
    }))

  it("counts each answer toward the project of the route it matched, the unknown paths not", async () => {
    const auth = { authorization: `Bearer ${s.serviceKey}` }
    const post = (path: string, body: unknown) =>
      fetch(`${s.baseUrl}${path}`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify(body)
      }).then(async (r) => {
        expect(r.status).toBe(201)
        return (await r.json()) as Record<string, string>
      })
    const org = await post("/v1/organizations", { name: "Counted" })
    const project = await post(`/v1/organizations/${org.organizationId}/projects`, { name: "Counted", slug: `counted-${Date.now().toString(36)}` })
    const projectId = project.projectId!
    // Node: two answered, one unknown path (not counted).
    for (let i = 0; i < 2; i++) expect((await fetch(`${s.baseUrl}/v1/projects/${projectId}`, { headers: auth })).status).toBe(200)
    expect((await fetch(`${s.baseUrl}/v1/projects/${projectId}/no-such-thing`, { headers: auth })).status).toBe(404)
    // The same application as a web handler (the deadline's own fiber): one answered, one refused.
    type AppServices = Exclude<HttpRouter.Request.Without<Layer.Services<typeof HttpAppLive>>, HttpRouter.HttpRouter>
    const context = await s.run(Effect.context<AppServices>())
    const scope = Effect.runSync(Scope.make())
    const app = await Effect.runPromise(Scope.provide(HttpRouter.toHttpEffect(HttpAppLive.pipe(Layer.provide(Layer.succeedContext(context)))), scope))
    const web = HttpEffect.toWebHandler(app)
    const carried = Context.make(HttpMiddleware.TracerDisabledWhen, () => true) as Context.Context<never>
    expect((await web(new Request(`http://x/v1/projects/${projectId}`, { headers: auth }), carried)).status).toBe(200)
    expect((await web(new Request(`http://x/v1/projects/${projectId}`, { headers: { authorization: "Bearer sb_nope" } }), carried)).status).toBe(401)
    await Effect.runPromise(Scope.close(scope, Exit.void))
    // The management API (HTTPS): refused after routing, so counted.
    const management = await managementClient(() => s)(`/projects/${projectId}`, { auth: { username: projectId, password: "not-the-secret" } })
    expect(management.status).toBe(401)
    expect((await rowsOf(projectId)).sort()).toEqual([["management", "client_error", 1], ["v1", "client_error", 1], ["v1", "success", 3]])
  })
})
