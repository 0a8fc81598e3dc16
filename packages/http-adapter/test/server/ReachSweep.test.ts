/**
 * Every project-scoped route of every surface, taken from the route declarations (the versioned
 * API's `HttpApi` and the table of every other route — not a hand list), called with credentials
 * that must not reach project A:
 *
 * - (a) a stranger's account service key, (b) the stranger's Dashboard session (its session token
 *   on /v1, its cookie on the Dashboard API and the console), (c) an OAuth grant token of the
 *   stranger holding every scope, (d) the API key (and management secret) of the stranger's own
 *   project, (e) credentials of A's own members that hold nothing the route needs: a project key of
 *   A with a permission no route uses, and a member's grant token with no project scope.
 *
 * Each answer must be the reach table's refusal (docs/api-notes/credentials.md): 404 for what the
 * caller cannot see, 403 for a credential that may not do this, 401 where a surface does not take
 * that kind of credential at all. A route that answers anything else — a success above all — fails
 * the test, so a route added later without a reach decision fails it too. And nothing may be
 * written: the database's every table is fingerprinted before and after the sweep.
 */
import { SqlClient } from "effect/sql"
import { mintAccessToken } from "@switchboard/testkit"
import { testBackends } from "@switchboard/sql-adapter"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { featureRoutes, parameterValue, projectScoped, type Route, v1Routes } from "../support/DeclaredRoutes.js"
import { basic, httpsCall } from "../support/ManagementClient.js"
import { oauthAccessToken, signedUp } from "../support/DashboardClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const routes: ReadonlyArray<Route> = [
  ...v1Routes.filter((r) => projectScoped(r.path)),
  ...featureRoutes.filter((r) => projectScoped(r.path)).map((r) => {
    if (r.surface === "oauth" || r.surface === "v1") throw new Error(`a project-scoped ${r.surface} route outside the declarations? ${r.path}`)
    return r
  })
]

type Credential = "a" | "b" | "c" | "d" | "e-key" | "e-token"
const credentials: ReadonlyArray<Credential> = ["a", "b", "c", "d", "e-key", "e-token"]

/** The refusals the reach table allows, by surface and credential (`status code`, or `status` for a page). */
const allowed = ({ path, surface }: Route, credential: Credential): ReadonlyArray<string> => {
  const notFound = [
    "404 PROJECT_NOT_FOUND",
    "404 ORGANIZATION_NOT_FOUND",
    // An organization's billing answers an organization the caller is not in as RESOURCE_NOT_FOUND.
    ...(path.startsWith("/v1/organizations/") ? ["404 RESOURCE_NOT_FOUND"] : [])
  ]
  switch (surface) {
    case "v1":
      switch (credential) {
        // A full account credential passes every static rule: only membership can refuse it.
        case "a": return notFound
        // Session and grant tokens: scopes first (a route a grant may never use is 403), then membership.
        case "b": case "c": return [...notFound, "403 FORBIDDEN", "403 INSUFFICIENT_SCOPE"]
        case "d": return ["403 RESOURCE_MISMATCH", "403 FORBIDDEN"]
        case "e-key": return ["403 FORBIDDEN"]
        case "e-token": return ["403 INSUFFICIENT_SCOPE", "403 FORBIDDEN"]
      }
      break
    case "dashboard":
      switch (credential) {
        case "a": case "d": return ["401 NOT_AUTHENTICATED"]
        case "b": return notFound
        // A grant token: scopes first, and session-only routes refuse it whoever holds it.
        case "c": return [...notFound, "403 FORBIDDEN", "403 INSUFFICIENT_SCOPE", "403 SESSION_REQUIRED"]
        case "e-key": return ["401 NOT_AUTHENTICATED"]
        case "e-token": return ["403 INSUFFICIENT_SCOPE", "403 FORBIDDEN", "403 SESSION_REQUIRED"]
      }
      break
    case "management":
      // Basic credentials of the path's own project only; nothing else is a credential here.
      return ["401 NOT_AUTHENTICATED", "401 UNAUTHORIZED", "401 INVALID_CREDENTIALS", "401 undefined"]
    case "console":
      switch (credential) {
        // A stranger's session: the project does not exist for it. Console forms have no declared
        // schema to build a valid post from, and a form's fields are checked first (422), which
        // tells nothing of the project; its pages (GET) must answer 404.
        case "b": return ["404", "422"]
        // Not a console credential: the sign-in page (a script's endpoint answers 401 instead).
        default: return ["302", "303", "401"]
      }
  }
  return []
}

for (const backend of testBackends()) {
  describe(`reach sweep over every project-scoped route (${backend})`, () => {
    let s: TestServer
    let org = ""
    let projectA = ""
    const held: Partial<Record<Credential, { v1?: string; dashboard?: string; cookie?: string; csrf?: string; basic?: string }>> = {}
    let seq = 0

    const ok = async (method: string, path: string, credential: string, body?: unknown) => {
      const res = await fetch(`${s.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${credential}`,
          "idempotency-key": `sweep-setup-${++seq}`,
          ...(body === undefined ? {} : { "content-type": "application/json" })
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const json = await res.json() as any
      if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`)
      return json
    }

    /**
     * Every table's row count and a digest of its rows, once the event dispatcher has caught up (it
     * stamps `dispatched_at` in the background). Left out, as the caller's own bookkeeping:
     * `idempotency_records` (every definitive answer to a request with an Idempotency-Key — a
     * refusal too — is kept for the caller's replays, under the caller's scope) and
     * `rate_limit_counters` (on PostgreSQL, each caller's request count in its window).
     */
    const fingerprint = () =>
      s.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        for (let i = 0; i < 200; i++) {
          const [pending] = yield* sql<{ n: number }>`select count(*)::int as n from events where dispatched_at is null`
          if (pending!.n === 0) break
          yield* Effect.sleep("50 millis")
        }
        const tables = yield* sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema() and tablename not in ('idempotency_records', 'rate_limit_counters') order by 1`
        const out: Record<string, string> = {}
        for (const { name } of tables) {
          const [row] = yield* sql<{ n: string; h: string | null }>`select count(*)::text as n, md5(string_agg(t::text, E'\n' order by t::text)) as h from ${sql(name)} t`
          out[name] = `${row!.n} ${row!.h ?? "-"}`
        }
        return out
      }))

    beforeAll(async () => {
      s = await startTestServer(backend, { managementRateLimitQuota: 100_000 }, undefined, undefined, { tls: true })
      const owner = await s.newAccount("sweep-owner@example.com")
      org = (await ok("POST", "/v1/organizations", owner.serviceKey, { name: "Sweep org" })).organizationId
      projectA = (await ok("POST", `/v1/organizations/${org}/projects`, owner.serviceKey, { name: "A", slug: `sweep-a-${backend}` })).projectId
      await ok("POST", `/v1/projects/${projectA}/ingress-endpoints`, owner.serviceKey, { platform: "slack", sourceId: "a-source" })

      // The stranger: signed up through the Dashboard, in no organization of A's.
      const stranger = await signedUp(() => s, "sweep-stranger")
      const cookie = [...stranger.browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ")
      const sessionToken = ((await (await fetch(`${s.baseUrl}/api/auth/token`, { headers: { cookie } })).json()) as any).data.token as string
      const strangerKey = (await stranger.browser.fetch("/api/account/service-keys", {
        method: "POST",
        headers: { "x-csrf-token": stranger.csrf },
        json: { name: "sweep", expiresAt: null }
      })).body.data.secret as string
      const strangerOrg = (await ok("POST", "/v1/organizations", strangerKey, { name: "Stranger org" })).organizationId
      const projectB = (await ok("POST", `/v1/organizations/${strangerOrg}/projects`, strangerKey, { name: "B", slug: `sweep-b-${backend}` })).projectId
      const keyB = (await ok("POST", `/v1/projects/${projectB}/api-keys`, strangerKey, {
        name: "every permission",
        permissions: ["project:read", "project:write", "platforms:read", "platforms:write", "events:read", "events:write"]
      })).secret as string
      const secretB = (await ok("POST", `/v1/projects/${projectB}/secret-rotations`, strangerKey)).projectSecret as string
      const everyScope = [
        "projects:read", "projects:write", "members:read", "members:write", "webhooks:read", "webhooks:write",
        "spectrum:read", "spectrum:write", "billing:read", "billing:write", "payments:read", "payments:write"
      ]
      held.a = { v1: strangerKey, dashboard: strangerKey, basic: `Bearer ${strangerKey}` }
      held.b = { v1: sessionToken, cookie, csrf: stranger.csrf, basic: `Bearer ${sessionToken}` }
      const strangerGrantJwt = await s.run(mintAccessToken({ accountId: stranger.accountId, scopes: everyScope }))
      const strangerGrantOpaque = (await oauthAccessToken(s, stranger.accountId, everyScope)).token
      held.c = { v1: strangerGrantJwt, dashboard: strangerGrantOpaque, basic: `Bearer ${strangerGrantJwt}` }
      held.d = { v1: keyB, dashboard: keyB, basic: basic(projectB, secretB) }
      // A's own members, holding nothing a route needs.
      const uselessKey = (await ok("POST", `/v1/projects/${projectA}/api-keys`, owner.serviceKey, { name: "useless", permissions: ["nothing:none"] })).secret as string
      const secretA = (await ok("POST", `/v1/projects/${projectA}/secret-rotations`, owner.serviceKey)).projectSecret as string
      held["e-key"] = { v1: uselessKey, dashboard: uselessKey, basic: basic(projectA, `${secretA.slice(0, -4)}xxxx`) }
      held["e-token"] = {
        v1: await s.run(mintAccessToken({ accountId: owner.accountId, scopes: ["profile"] })),
        dashboard: (await oauthAccessToken(s, owner.accountId, ["openid"])).token,
        basic: basic(projectA, "")
      }
    })
    afterAll(() => s?.close())

    it("the declarations list the project-scoped routes of every surface", () => {
      const surfaces = new Set(routes.map((r) => r.surface))
      expect([...surfaces].sort()).toEqual(["console", "dashboard", "management", "v1"])
      for (const path of ["/v1/projects/:projectId/metrics/query", "/v1/projects/:projectId/metrics/backfill", "/v1/projects/:projectId/ingress-endpoints"]) {
        expect(routes.some((r) => r.path === path)).toBe(true)
      }
      expect(routes.length).toBeGreaterThan(150)
    })

    const pathOf = (route: Route) =>
      route.path.replace(/:([A-Za-z]+)/g, (_, name: string) =>
        name === "projectId" || (name === "id" && route.surface === "dashboard") ? projectA
        : name === "organizationId" ? org
        : encodeURIComponent(parameterValue(name, route.path)))

    const send = async (route: Route, credential: Credential): Promise<string> => {
      const c = held[credential]!
      const headers: Record<string, string> = { "idempotency-key": `sweep-${++seq}` }
      let body: string | undefined
      if (route.surface === "console") {
        if (c.cookie !== undefined) headers.cookie = c.cookie
        if (route.method === "POST") {
          headers["content-type"] = "application/x-www-form-urlencoded"
          body = new URLSearchParams({ _csrf: c.csrf ?? "", name: "x" }).toString()
        }
      } else if (route.raw !== undefined) {
        headers["content-type"] = route.raw.type
        body = route.raw.bytes
      } else if (route.body !== undefined) {
        headers["content-type"] = "application/json"
        body = JSON.stringify(route.body)
      }
      switch (route.surface) {
        case "v1": headers.authorization = `Bearer ${c.v1}`; break
        case "dashboard":
          if (c.cookie !== undefined) {
            headers.cookie = c.cookie
            headers["x-csrf-token"] = c.csrf!
          } else headers.authorization = `Bearer ${c.dashboard}`
          break
        case "management": {
          // Over HTTPS, as the management API requires.
          const r = await httpsCall(`${s.tlsBaseUrl}${pathOf(route)}`, {
            method: route.method,
            auth: c.basic!,
            headers,
            ca: s.tlsCa,
            ...(body === undefined ? {} : { json: body })
          })
          return `${r.status} ${r.body?.code}`
        }
      }
      const res = await fetch(`${s.baseUrl}${pathOf(route)}${route.query === undefined ? "" : `?${route.query}`}`, { method: route.method, headers, redirect: "manual", ...(body === undefined ? {} : { body }) })
      const text = await res.text()
      if (route.surface === "console") return `${res.status}`
      let code: string | undefined
      try {
        code = (JSON.parse(text) as { code?: string }).code
      } catch {
        code = `(not JSON: ${text.slice(0, 80)})`
      }
      return `${res.status} ${code}`
    }

    it("no credential that must not reach project A reaches it, on any route, and nothing is written", async () => {
      const before = await fingerprint()
      const wrong: Array<string> = []
      for (const route of routes) {
        for (const credential of credentials) {
          const got = await send(route, credential)
          if (!allowed(route, credential).includes(got)) wrong.push(`(${credential}) ${route.method} ${pathOf(route)} → ${got}`)
        }
      }
      expect(wrong).toEqual([])
      expect(await fingerprint()).toEqual(before)
    })
  })
}
