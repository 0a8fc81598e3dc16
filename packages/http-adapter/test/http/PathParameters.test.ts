/**
 * One rule for every path parameter of every surface (UrlChecks.ts): `.`, `..`, their
 * percent-encodings and a parameter over 100 characters are 422 (location `param` on /v1), checked
 * before routing — never a 404 after a lookup, nor a 405. Every declared route is walked, each
 * parameter in turn, the request sent raw (node:http does not normalise dot segments as fetch does).
 */
import { testBackends } from "@switchboard/sql-adapter"
import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { featureRoutes, parameterValue, type Route, typeId, v1Routes } from "../support/DeclaredRoutes.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const BAD = [".", "..", "%2e%2e", "%2E", "%2e.", "x".repeat(300)]
const PROJECT = "0190f5c2-7c1e-7a00-8000-000000000001"

/** A request as written: method, path and headers, the path not normalised. */
const raw = (baseUrl: string, method: string, path: string, headers: Record<string, string>) =>
  new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
    const url = new URL(baseUrl)
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => (body += c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), body }))
    })
    req.on("error", reject)
    if (method !== "GET" && method !== "HEAD" && method !== "DELETE") req.end("{}")
    else req.end()
  })

for (const backend of testBackends().slice(0, 1)) {
  describe(`path parameters: one rule on every route (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend)
    })
    afterAll(() => s.close())

    const routes: ReadonlyArray<Route> = [...v1Routes, ...featureRoutes].filter((r) => r.path.includes("/:"))
    const valueOf = (name: string, route: Route) =>
      name === "projectId" || name === "id" ? PROJECT
      : name === "organizationId" ? typeId("org")
      : name === "accountId" ? typeId("acc")
      : name === "invitationId" ? typeId("inv")
      : name === "serviceKeyId" ? typeId("ask")
      : name === "secret" || name === "token" || name === "uploadId" ? "a".repeat(43)
      : valueOrOther(name, route)

    /** The sweep's value of a parameter; one it does not know gets a plain well-formed word (the rule is checked before any lookup). */
    const valueOrOther = (name: string, route: Route) => {
      try {
        return encodeURIComponent(parameterValue(name, route.path))
      } catch {
        return `${name}-1`
      }
    }

    it("., .., their percent-encodings and an over-long id are 422 on every parameter of every route", async () => {
      expect(routes.length).toBeGreaterThan(100)
      const wrong: Array<string> = []
      for (const route of routes) {
        const names = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!)
        for (const target of names) {
          for (const bad of BAD) {
            const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => (name === target ? bad : valueOf(name, route)))
            const r = await raw(s.baseUrl, route.method, path, {
              authorization: `Bearer ${s.serviceKey}`,
              "content-type": "application/json",
              "idempotency-key": `params-${Math.random()}`
            })
            const v1 = route.surface === "v1" && path.startsWith("/v1/")
            const located = !v1 || (r.type.startsWith("application/problem+json") && JSON.parse(r.body).issues?.[0]?.location === "param")
            if (r.status !== 422 || !located) wrong.push(`${route.method} ${route.path} :${target}=${bad.slice(0, 12)} → ${r.status} ${r.body.slice(0, 120)}`)
          }
        }
      }
      expect(wrong).toEqual([])
    })

    it("the same values are fine in a query string, and a normal id still reaches its route", async () => {
      const r = await raw(s.baseUrl, "GET", `/v1/account?x=..`, { authorization: `Bearer ${s.serviceKey}` })
      expect(r.status).toBe(200)
      const missing = await raw(s.baseUrl, "GET", `/v1/organizations/${typeId("org")}`, { authorization: `Bearer ${s.serviceKey}` })
      expect(missing.status).not.toBe(422)
    })
  })
}
