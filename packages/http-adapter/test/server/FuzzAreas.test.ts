/**
 * The fuzz probe of `Fuzz.test.ts`, aimed past the credential check: every declared route of the
 * platforms, attachments, messages, metrics, ingress, SSO, device-flow and app-installation areas
 * (from the route declarations, `../support/DeclaredRoutes.ts`, so a route added to those areas is
 * covered without touching this file), called as a member who may use it — the owner's account
 * service key on /v1, the owner's Dashboard session on the Dashboard API and the console, the
 * project's Basic credential on the management API — on a project that exists, with the route's
 * valid example request mutated into a hostile one: a member of the body (nested ones too)
 * replaced by a wrong type, a huge or odd string (NUL, lone surrogates, 70 000 characters), an
 * out-of-range number; the body
 * not JSON at all, cut short, of another top-level type, or under a foreign media type; one path
 * parameter unusable; a query member with a bad value.
 *
 * A bounded number of cases per route (fast-check, seeded). Every answer: no 5xx; an error body in
 * its surface's format (problem+json on /v1, the envelope on the Dashboard and management APIs,
 * RFC 6749 JSON on OAuth endpoints; HTML only from the console's pages). A mutated request that
 * still decodes may succeed: that is not a failure here, a 5xx is.
 */
import { testBackends } from "@switchboard/sql-adapter"
import * as fc from "fast-check"
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { signedUp } from "../support/DashboardClient.js"
import { featureRoutes, parameterValue, type Route, typeId, v1Routes } from "../support/DeclaredRoutes.js"
import { basic } from "../support/ManagementClient.js"
import { surfaceOf } from "@switchboard/http-adapter"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/** The areas this suite covers, by path. */
const inAreas = (path: string) =>
  /platforms|attachments|messages|metrics|ingress|\/sso(\/|$)|device|install/i.test(path)

const routes: ReadonlyArray<Route> = [...v1Routes, ...featureRoutes].filter((r) => inAreas(r.path))

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: Buffer
}

const send = (
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  ca?: string
) =>
  new Promise<Answer>((resolve, reject) => {
    const url = new URL(base)
    // A body's length always said: Node's client frames a DELETE body by neither length nor chunks.
    const framed = body === undefined ? headers : { ...headers, "content-length": String(body.length) }
    const options = { host: url.hostname, port: url.port, method, path, headers: framed, ...(ca === undefined ? {} : { ca }) }
    const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(options, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.setTimeout(60_000, () => req.destroy(new Error(`no answer to ${method} ${path}`)))
    if (body !== undefined) req.write(body)
    req.end()
  })

/** Stands for a number JSON.stringify cannot write (1e400): replaced in the serialized body. */
const HUGE = "\u0001HUGE\u0001"

/** Values put in place of one member of a valid body. */
const hostileValue = fc.constantFrom<unknown>(
  null, true, 0, -1, 1.5, Number.MAX_SAFE_INTEGER + 2, HUGE, "", " ", "\u0000", "a\u0000b", "\ud800", "\udc00x",
  "a".repeat(70_000), "\u{1F600}".repeat(2_000), "../../etc/passwd", "%00%ff", "2026-13-45T99:99:99Z",
  "sb_xyz_01jdm8v6q0r5x3k2w9c7t4b1ze", [], [null], [1, "a", {}], {}, { a: { b: { c: [] } } },
  Array.from({ length: 2_000 }, (_, i) => `v${i}`)
)

const badParam = fc.constantFrom(
  "a".repeat(150), "%ff", "..", "%00", "%ED%A0%80", "x%2Fy", "%", "%zz", "a%00b", "-1", "0", "default",
  typeId("zzz"), "sb_msg_%00", "0190a8d4-5b6c-7d8e-9f01-23456789abcd", encodeURIComponent("\u00e9t\u00e9")
)

const badQueryValue = fc.constantFrom(
  "", "%00", "%ff", "-1", "0", "1e400", "9".repeat(400), "abc", "true", "2026-99-99", "%ED%A0%80", "a".repeat(5_000)
)
const queryMember = fc.constantFrom("pageSize", "pageToken", "after", "before", "from", "to", "status", "limit", "platform", "cursor")

const deep = (n: number) => "[".repeat(n) + "]".repeat(n)

type Mutation =
  | { readonly kind: "member"; readonly pick: number; readonly value: unknown }
  | { readonly kind: "extra"; readonly value: unknown }
  | { readonly kind: "top"; readonly value: unknown }
  | { readonly kind: "raw"; readonly type: string; readonly bytes: string }
  | { readonly kind: "media"; readonly type: string }
  | { readonly kind: "param"; readonly pick: number; readonly value: string }
  | { readonly kind: "query"; readonly member: string | undefined; readonly value: string; readonly pick: number }
  | { readonly kind: "nocredential" }

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("member" as const), pick: fc.nat(1_000), value: hostileValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("extra" as const), value: hostileValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("top" as const), value: hostileValue }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("raw" as const),
      type: fc.constantFrom("application/json", "application/json; charset=utf-8", "application/merge-patch+json"),
      bytes: fc.constantFrom(`{"a":`, `{`, `}`, `{"a":1,}`, `{'a':1}`, `nul`, "", "\u0000", deep(3_000), `{"a":"\\ud800"}`, `{"a":1e400}`, `\ufeff{}`)
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("media" as const),
      type: fc.constantFrom(
        "text/plain", "application/xml", "multipart/form-data", "application/x-www-form-urlencoded", "application/octet-stream",
        "application/json; charset=utf-16", "image/png", "", ";;;", "application/json; boundary="
      )
    })
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("param" as const), pick: fc.nat(1_000), value: badParam }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("query" as const), member: fc.option(queryMember, { nil: undefined }), value: badQueryValue, pick: fc.nat(1_000) })
  },
  { weight: 1, arbitrary: fc.constant({ kind: "nocredential" as const }) }
)

/** Every member of a JSON value, nested ones too, as paths of keys and indexes. */
const memberPaths = (value: unknown): ReadonlyArray<ReadonlyArray<string | number>> => {
  if (Array.isArray(value)) return value.flatMap((v, i) => [[i], ...memberPaths(v).map((p) => [i, ...p])])
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => [[k], ...memberPaths(v).map((p) => [k, ...p])])
  }
  return []
}

/** `value` with the member at `path` replaced by `by`. */
const replaced = (value: unknown, path: ReadonlyArray<string | number>, by: unknown): unknown => {
  if (path.length === 0) return by
  const [head, ...rest] = path
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaced(v, rest, by) : v))
  const record = value as Record<string, unknown>
  return { ...record, [head!]: replaced(record[head!], rest, by) }
}

const serialize = (value: unknown) => JSON.stringify(value).split(JSON.stringify(HUGE)).join("1e400")

/**
 * The format a route's errors take: its path's surface's (`surfaceOf`; the console's paths answer
 * the global middleware's refusals as problems), HTML only from the server-rendered pages.
 */
const formatOf = (route: Route, path: string, contentType: string): "v1" | "dashboard" | "management" | "oauth" | "html" => {
  const page = route.surface === "console" || path === "/device"
  if (page && contentType.startsWith("text/html")) return "html"
  return surfaceOf(path)
}

for (const backend of testBackends()) {
  // Cases per route: fewer on PostgreSQL (the same code paths, another store).
  const perRoute = backend === "pglite" ? 8 : 4
  describe(`fuzzed requests past the credential check on the newer routes (${backend})`, () => {
    let s: TestServer
    let org = ""
    let project = ""
    let cookie = ""
    let csrf = ""
    let basicAuth = ""
    let key = ""
    let seq = 0

    const ok = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${s.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "idempotency-key": `fuzz-areas-setup-${++seq}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const json = await res.json() as any
      if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`)
      return json
    }

    beforeAll(async () => {
      s = await startTestServer(backend, { managementRateLimitQuota: 100_000 }, undefined, undefined, { tls: true })
      const owner = await signedUp(() => s, "fuzz-areas")
      cookie = [...owner.browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ")
      csrf = owner.csrf
      // The signed-up owner's service key holds the project the requests go to.
      key = (await owner.browser.fetch("/api/account/service-keys", {
        method: "POST",
        headers: { "x-csrf-token": csrf },
        json: { name: "fuzz", expiresAt: null }
      })).body.data.secret as string
      org = (await ok("POST", "/v1/organizations", { name: "Fuzz org" })).organizationId
      project = (await ok("POST", `/v1/organizations/${org}/projects`, { name: "Fuzz", slug: `fuzz-areas-${backend}` })).projectId
      await ok("POST", `/v1/projects/${project}/ingress-endpoints`, { platform: "slack", sourceId: "fuzz-source" })
      const secret = (await ok("POST", `/v1/projects/${project}/secret-rotations`)).projectSecret as string
      basicAuth = basic(project, secret)
    }, 120_000)
    afterAll(() => s?.close())

    it("the declarations give the routes of every area", () => {
      for (const path of [
        "/v1/projects/:projectId/platforms", "/v1/projects/:projectId/attachments", "/v1/projects/:projectId/metrics/query",
        "/v1/projects/:projectId/ingress-endpoints", "/v1/auth/device/code", "/v1/installation-requests", "/api/auth/sso/start"
      ]) expect(routes.some((r) => r.path === path), path).toBe(true)
      expect(new Set(routes.map((r) => r.surface)).size).toBeGreaterThanOrEqual(3)
      expect(routes.length).toBeGreaterThan(60)
    })

    it(`${perRoute} hostile requests per route: no 5xx, every error in its surface's format`, async () => {
      const valueOf = (name: string, route: Route) => {
        if (name === "projectId" || (name === "id" && route.surface === "dashboard")) return project
        if (name === "organizationId") return org
        try {
          return encodeURIComponent(parameterValue(name, route.path))
        } catch {
          return typeId("x")
        }
      }
      const failures: Array<string> = []
      // Answers to a credentialed request that the credential check let through.
      let past = 0
      let credentialed = 0
      const cases = routes.flatMap((route, index) =>
        fc.sample(mutation, { seed: 20261204 + index, numRuns: perRoute }).map((m) => ({ route, m }))
      )
      const check = async ({ m, route }: (typeof cases)[number]) => {
        // The path, one parameter possibly replaced.
        const names = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((x) => x[1]!)
        let i = 0
        const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
          const at = i++
          return m.kind === "param" && at === m.pick % names.length ? m.value : valueOf(name, route)
        })
        // The query: the valid one, possibly with a bad member.
        let query = route.query ?? ""
        if (m.kind === "query") {
          const members = query === "" ? [] : query.split("&").map((p) => p.split("=")[0]!)
          const member = m.member ?? members[m.pick % Math.max(members.length, 1)] ?? "pageSize"
          const kept = query === "" ? [] : query.split("&").filter((p) => p.split("=")[0] !== member)
          query = [...kept, `${member}=${m.value}`, ...(m.pick % 3 === 0 ? [`${member}=${m.value}`] : [])].join("&")
        }
        // The body: the valid example, mutated.
        let contentType: string | undefined
        let bytes: string | undefined
        if (route.raw !== undefined) {
          contentType = route.raw.type
          bytes = route.raw.bytes
        } else if (route.surface === "console" && route.method === "POST") {
          contentType = "application/x-www-form-urlencoded"
          bytes = new URLSearchParams({ _csrf: csrf, name: "x" }).toString()
        } else if (route.body !== undefined) {
          contentType = "application/json"
          bytes = serialize(route.body)
        }
        const example = route.body
        switch (m.kind) {
          case "member": {
            const at = memberPaths(example)
            bytes = serialize(at.length === 0 ? { value: m.value } : replaced(example, at[m.pick % at.length]!, m.value))
            contentType = "application/json"
            break
          }
          case "extra":
            bytes = serialize({ ...(typeof example === "object" && example !== null ? example : {}), ["x\u0000".repeat(3)]: m.value, __proto__x: m.value })
            contentType = "application/json"
            break
          case "top":
            bytes = serialize(m.value)
            contentType = "application/json"
            break
          case "raw":
            bytes = m.bytes
            contentType = m.type
            break
          case "media":
            bytes ??= "{}"
            contentType = m.type
            break
        }
        const headers: Record<string, string> = { "idempotency-key": `fuzz-areas-${++seq}` }
        if (contentType !== undefined && contentType !== "") headers["content-type"] = contentType
        let base = s.baseUrl
        let ca: string | undefined
        if (m.kind !== "nocredential") {
          switch (route.surface) {
            case "v1": case "oauth":
              headers.authorization = `Bearer ${key}`
              break
            case "dashboard": case "console":
              headers.cookie = cookie
              headers["x-csrf-token"] = csrf
              break
            case "management":
              headers.authorization = basicAuth
              break
          }
        }
        if (route.surface === "management") {
          base = s.tlsBaseUrl!
          ca = s.tlsCa
        }
        const withBody = route.method !== "GET" && route.method !== "HEAD" && bytes !== undefined
        const target = `${path}${query === "" ? "" : `?${query}`}`
        let answer: Answer
        try {
          answer = await send(base, route.method, target, headers, withBody ? Buffer.from(bytes!, "utf8") : undefined, ca)
        } catch (e) {
          failures.push(`${route.method} ${target.slice(0, 200)}: ${String(e)}`)
          return
        }
        const where = `${route.method} ${target.slice(0, 200)} [${m.kind}${m.kind === "member" || m.kind === "top" || m.kind === "extra" ? ` ${String(serialize(m.value)).slice(0, 40)}` : ""}, ${contentType ?? "-"}] → ${answer.status}`
        if (m.kind !== "nocredential") {
          credentialed++
          if (answer.status !== 401 && answer.status !== 403) past++
        }
        if (answer.status >= 500) failures.push(`${where}: ${answer.body.toString("utf8").slice(0, 300)}`)
        if (answer.status < 400) return
        const type = String(answer.headers["content-type"] ?? "")
        const text = answer.body.toString("utf8")
        const format = formatOf(route, path, type)
        if (format === "html") return
        let json: any
        try {
          json = JSON.parse(text)
        } catch {
          failures.push(`${where}: body is not JSON (${type}): ${text.slice(0, 120)}`)
          return
        }
        if (format === "v1") {
          if (!type.startsWith("application/problem+json") || typeof json.code !== "string" || json.status !== answer.status) {
            failures.push(`${where}: not a problem document (${type}): ${text.slice(0, 200)}`)
          }
        } else if (format === "oauth") {
          if (!type.startsWith("application/json") || typeof json.error !== "string") {
            failures.push(`${where}: not an OAuth error: ${text.slice(0, 200)}`)
          }
        } else if (!type.startsWith("application/json") || json.succeed !== false || typeof json.code !== "string") {
          failures.push(`${where}: not an envelope (${type}): ${text.slice(0, 200)}`)
        }
      }
      // Four at a time, as a few clients would.
      for (let k = 0; k < cases.length; k += 4) await Promise.all(cases.slice(k, k + 4).map(check))
      expect(failures.slice(0, 40)).toEqual([])
      // The probe reaches the routes' own decoding and checks, not just the credential check.
      expect(past).toBeGreaterThan(credentialed * 0.9)
    }, 600_000)
  })
}
