/**
 * The black-box probe of bad input, kept in the suite: fast-check (seeded, bounded) sends bad
 * requests to every operation of `/openapi.json` and every Dashboard, OAuth, management and page
 * route — unusable path parameters, bad queries, bad bodies (NUL, lone surrogates, deep nesting,
 * invalid UTF-8, wrong types, huge numbers, foreign media types, multipart without a boundary,
 * unknown or corrupt content codings), odd and oversized headers, with and without a credential.
 *
 * 3 000 requests on PGlite and 1 000 on PostgreSQL per run. Every answer: no 5xx; an `X-Request-ID`; an error body in its surface's format and content type
 * (problem+json on /v1, the envelope on the Dashboard and management APIs, RFC 6749 JSON on OAuth
 * endpoints; HTML only from the server-rendered pages). Nothing is written: every table holds the
 * same rows afterwards (bookkeeping of refusals — rate-limit counters, sign-in failure windows — aside).
 */
import { SqlClient } from "effect/sql"
import { rawRoutes, surfaceOf } from "@switchboard/http-adapter"
import { testBackends } from "@switchboard/sql-adapter"
import { Effect } from "effect"
import * as fc from "fast-check"
import { request as httpRequest } from "node:http"
import { gzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"

interface Route {
  readonly method: string
  /** With `{name}` placeholders. */
  readonly path: string
}

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: Buffer
}

const send = (base: string, method: string, path: string, headers: Record<string, string>, body?: Buffer) =>
  new Promise<Answer>((resolve, reject) => {
    const url = new URL(base)
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer to ${method} ${path}`)))
    if (body !== undefined) req.write(body)
    req.end()
  })

const ulidish = "0" + "a".repeat(25)

/** Path parameter values nobody can use (and a few well-formed ids that exist nowhere). */
const badParam = fc.constantFrom(
  "a".repeat(150), "%ff", "..", "%00", "%ED%A0%80", "x%2Fy", "%", "%zz", "a%00b", "-1", "0", "default",
  `sb_whd_${ulidish}`, `sb_call_${ulidish}`, "0190a8d4-5b6c-7d8e-9f01-23456789abcd", "%F0%9F%98%80", "\u00e9t\u00e9"
).map((s) => (/^[\x21-\x7e]*$/.test(s) ? s : encodeURIComponent(s)))

const badQuery = fc.constantFrom(
  "", "", "?pageSize=%00", "?after=%00", "?pageSize=-1", "?pageSize=1e400", "?x=%ff", "?status=%ED%A0%80",
  "?client_id=%00", "?pageToken=a%00b", `?pageSize=${"9".repeat(400)}`, "?a=1&a=2", "?%00=1"
)

const deep = (n: number) => "[".repeat(n) + "]".repeat(n)

interface BadBody {
  readonly contentType?: string
  readonly encoding?: string
  readonly bytes?: Buffer
}

const badBody: fc.Arbitrary<BadBody> = fc.oneof(
  fc.constant({}),
  fc.constant({ contentType: "application/json", bytes: Buffer.from(`{"name":"a\\u0000b","email":"x\\u0000@example.com"}`) }),
  fc.constant({ contentType: "application/json", bytes: Buffer.from(`{"name":"a\\ud800b","firstName":"\\udc00"}`) }),
  fc.constant({ contentType: "application/json", bytes: Buffer.from(`{"a\\u0000":1}`) }),
  fc.integer({ min: 65, max: 5000 }).map((n) => ({ contentType: "application/json", bytes: Buffer.from(deep(n)) })),
  fc.constant({ contentType: "application/json", bytes: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) }),
  fc.constant({ contentType: "application/json", bytes: Buffer.from(`{"name":1e400,"pageSize":1e400,"quantity":-1e400}`) }),
  fc.constant({ contentType: "application/json", bytes: Buffer.from(`{"name":123,"enabledEvents":"*","permissions":{}}`) }),
  fc.constant({ contentType: "application/json", bytes: Buffer.from(`[1,2,3]`) }),
  fc.constant({ contentType: "application/json", bytes: Buffer.from(`null`) }),
  fc.constant({ contentType: "application/json", bytes: Buffer.from(`{"name":`) }),
  fc.constant({ contentType: "application/json", bytes: Buffer.from("") }),
  fc.constant({ contentType: "text/plain", bytes: Buffer.from("hello") }),
  fc.constant({ contentType: "multipart/form-data", bytes: Buffer.from("--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--x--\r\n") }),
  fc.constant({ contentType: "application/x-www-form-urlencoded", bytes: Buffer.from("email=a%00%40example.com&password=%ED%A0%80&client_id=%00") }),
  fc.constant({ contentType: "application/json", encoding: "zstd", bytes: Buffer.from(`{}`) }),
  fc.constant({ contentType: "application/json", encoding: "gzip", bytes: Buffer.from("not gzip") }),
  fc.constant({ contentType: "application/json", encoding: "gzip", bytes: gzipSync(Buffer.from(`{"name":"a\\u0000"}`)) }),
  fc.string({ maxLength: 40 }).map((s) => ({ contentType: "application/json", bytes: Buffer.from(JSON.stringify({ name: s + "\u0000" })) }))
)

type Credential = "none" | "valid" | "garbage" | "basic-nul" | "bearer-nul-ish"
const credential = fc.constantFrom<Credential>("none", "valid", "garbage", "basic-nul", "bearer-nul-ish")

const extraHeaders = fc.constantFrom<Record<string, string>>(
  {},
  {},
  { "idempotency-key": "k".repeat(300) },
  { "idempotency-key": "fuzz key\twith tab" },
  { "if-none-match": "\"x\"" },
  { "content-length-ish": "x".repeat(4096) },
  { "x-oversized": "x".repeat(20 * 1024) },
  { origin: "https://evil.example" },
  { traceparent: "00-zzzz-zzzz-01" }
)

const pagesWithHtml = (path: string) =>
  path === "/sign-in" || path.startsWith("/api/auth/oauth2/authorize") || path.startsWith("/api/auth/oauth2/consent") ||
  path.startsWith("/billing/") || path.startsWith("/problems") || path === "/" || path.startsWith("/api/auth/oauth2/end-session") ||
  path.startsWith("/console") || path === "/device" || path.startsWith("/device?")

/** Tables whose rows a refusal may legitimately touch: counters of refusals themselves. */
const bookkeeping = new Set(["rate_limit_counters", "rate_limits", "sign_in_failures", "idempotency_records"])

const tableCounts = (s: TestServer) =>
  s.run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* sql<{ tableName: string }>`
      select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`
    const counts: Record<string, number> = {}
    for (const { tableName } of tables) {
      if (bookkeeping.has(tableName)) continue
      const [row] = yield* sql<{ n: number }>`select count(*)::int as n from ${sql(tableName)}`
      counts[tableName] = row!.n
    }
    return counts
  }))

for (const backend of testBackends()) {
  // A few thousand requests on PGlite; fewer on PostgreSQL (the same code paths, another store).
  const runs = backend === "pglite" ? 3000 : 1000
  describe(`fuzzed bad requests on every route (${backend})`, () => {
    let s: TestServer
    let routes: ReadonlyArray<Route> = []
    beforeAll(async () => {
      s = await startTestServer(backend)
      const doc = await (await fetch(`${s.baseUrl}/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> }
      const v1 = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => ({ method: m.toUpperCase(), path })))
      const raw = rawRoutes.map(([method, path]) => ({ method, path: path.replace(/:(\w+)/g, "{$1}") }))
      routes = [...v1, ...raw]
      expect(v1.length).toBeGreaterThan(80)
      expect(raw.length).toBeGreaterThan(40)
    }, 120_000)
    afterAll(() => s.close())

    it(`${runs} requests: no 5xx, X-Request-ID, errors in the surface's format, nothing written`, async () => {
      const before = await tableCounts(s)
      const sample = fc.sample(
        fc.record({
          route: fc.integer({ min: 0, max: 1_000_000 }),
          params: fc.array(badParam, { minLength: 6, maxLength: 6 }),
          query: badQuery,
          body: badBody,
          credential,
          headers: extraHeaders
        }),
        { seed: 20261124, numRuns: runs }
      )
      const failures: Array<string> = []
      const check = async (c: (typeof sample)[number]) => {
        const route = routes[c.route % routes.length]!
        let i = 0
        const path = route.path.replace(/\{\w+\}/g, () => c.params[i++ % c.params.length]!)
        const hasParams = i > 0
        // The valid credential only where nothing can succeed: a path parameter nobody can use, or a read.
        const cred: Credential = c.credential === "valid" && !hasParams && route.method !== "GET" ? "garbage" : c.credential
        const headers: Record<string, string> = { ...c.headers }
        if (cred === "valid") headers.authorization = `Bearer ${s.serviceKey}`
        if (cred === "garbage") headers.authorization = "Bearer sb_ask_0aaaaaaaaaaaaaaaaaaaaaaaaa_notasecret"
        if (cred === "basic-nul") headers.authorization = `Basic ${Buffer.from("sb_app_x\u0000:s\u0000").toString("base64")}`
        if (cred === "bearer-nul-ish") headers.authorization = "Bearer %00%ff"
        if (c.body.contentType !== undefined) headers["content-type"] = c.body.contentType
        if (c.body.encoding !== undefined) headers["content-encoding"] = c.body.encoding
        const withBody = route.method !== "GET" && route.method !== "HEAD" && c.body.bytes !== undefined
        // A read with the valid credential and no bad parameter could succeed: it must change nothing anyway.
        const target = `${path}${c.query}`
        let answer: Answer
        try {
          answer = await send(s.baseUrl, route.method, target, headers, withBody ? c.body.bytes : undefined)
        } catch (e) {
          failures.push(`${route.method} ${target}: ${String(e)}`)
          return
        }
        const where = `${route.method} ${target} [${cred}, ${c.body.contentType ?? "-"}${c.body.encoding === undefined ? "" : `/${c.body.encoding}`}] → ${answer.status}`
        if (answer.status >= 500) failures.push(`${where}: ${answer.body.toString("utf8").slice(0, 300)}`)
        if (answer.headers["x-request-id"] === undefined) failures.push(`${where}: no X-Request-ID`)
        if (answer.status < 400) return
        const contentType = String(answer.headers["content-type"] ?? "")
        const text = answer.body.toString("utf8")
        if (contentType.startsWith("text/html") && pagesWithHtml(path)) return
        // The console's one JSON route (the events page's stream token) answers its own refusals in
        // the Dashboard envelope; the global middleware's (bad bytes in the path) are problems, as on
        // every console path.
        const bare = path.split("?")[0]!
        const consoleJson = /^\/console\/projects\/[^/]+\/events\/token$/.test(bare) && contentType.startsWith("application/json")
        const surface = consoleJson ? "dashboard" : surfaceOf(bare)
        let json: any
        try {
          json = JSON.parse(text)
        } catch {
          failures.push(`${where}: body is not JSON (${contentType}): ${text.slice(0, 120)}`)
          return
        }
        if (surface === "v1") {
          if (!contentType.startsWith("application/problem+json") || typeof json.code !== "string" || json.status !== answer.status) {
            failures.push(`${where}: not a problem document (${contentType}): ${text.slice(0, 200)}`)
          }
        } else if (surface === "oauth") {
          if (!contentType.startsWith("application/json") || typeof json.error !== "string") failures.push(`${where}: not an OAuth error: ${text.slice(0, 200)}`)
        } else if (!contentType.startsWith("application/json") || json.succeed !== false || typeof json.code !== "string") {
          failures.push(`${where}: not an envelope (${contentType}): ${text.slice(0, 200)}`)
        }
      }
      // Four at a time, as a few clients would.
      for (let k = 0; k < sample.length; k += 4) await Promise.all(sample.slice(k, k + 4).map(check))
      expect(failures.slice(0, 25)).toEqual([])
      expect(await tableCounts(s)).toEqual(before)
    }, 600_000)
  })
}
