/**
 * Bad input on every surface: each answers in its own format, never 5xx,
 * and nothing is written.
 * - U+0000 and lone surrogates in bodies, forms, queries and client credentials → 422 (/v1
 *   problem naming the field; envelope on the Dashboard and management APIs; `invalid_request` /
 *   `invalid_client` on OAuth);
 * - JSON nested deeper than 64 levels → 422 `too_deep`; invalid UTF-8 → 422;
 * - multipart without a boundary → 422 envelope (sign-in and sign-up included);
 * - unusable path parameters (over 100 characters, `%ff`, `..`) → 422 `param`, unknown paths 404;
 * - Content-Encoding gzip/deflate/br decoded with the limit after decompression (a zip bomb is
 *   413), any other coding refused.
 */
import { testBackends } from "@switchboard/sql-adapter"
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"

interface Raw {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
  readonly json: any
}

/** A request exactly as given (no URL normalization, any bytes). */
const raw = (base: string, method: string, path: string, headers: Record<string, string> = {}, body?: Uint8Array | string) =>
  new Promise<Raw>((resolve, reject) => {
    const url = new URL(base)
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        let json: any
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json })
      })
    })
    req.on("error", reject)
    if (body !== undefined) req.write(body)
    req.end()
  })

/** Sends raw bytes on a fresh connection; resolves with everything the server wrote before closing. */
const rawSocket = (base: string, bytes: string) =>
  new Promise<string>((resolve, reject) => {
    const url = new URL(base)
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes))
    const chunks: Array<Buffer> = []
    socket.on("data", (c: Buffer) => chunks.push(c))
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    socket.on("error", reject)
    socket.setTimeout(20_000, () => socket.destroy(new Error("no answer")))
  })

const deep = (n: number) => "[".repeat(n) + "]".repeat(n)

for (const backend of testBackends()) {
  describe(`bad input on every surface (${backend})`, () => {
    let s: TestServer
    let seq = 0
    const v1 = (method: string, path: string, body?: Uint8Array | string, headers: Record<string, string> = {}) =>
      raw(s.baseUrl, method, path, {
        authorization: `Bearer ${s.serviceKey}`,
        "content-type": "application/json",
        "idempotency-key": `bad-${++seq}`,
        ...headers
      }, body)
    const expectProblem = (r: Raw, status: number, code: string) => {
      expect(r.status, r.text).toBe(status)
      expect(r.headers["content-type"]).toBe("application/problem+json")
      expect(r.json.code).toBe(code)
      expect(r.headers["x-request-id"]).toMatch(/^sb_req_/)
    }
    const expectEnvelope = (r: Raw, status: number) => {
      expect(r.status, r.text).toBe(status)
      expect(r.headers["content-type"]).toMatch(/^application\/json/)
      expect(r.json.succeed).toBe(false)
      expect(r.headers["x-request-id"]).toMatch(/^sb_req_/)
    }

    beforeAll(async () => {
      s = await startTestServer(backend, { maxBodyBytes: 64 * 1024 })
    })
    afterAll(() => s.close())

    it("/v1: NUL and lone surrogates in a JSON body are 422 naming the field, and nothing is created", async () => {
      const before = JSON.stringify((await v1("GET", "/v1/organizations")).json)
      const nul = await v1("POST", "/v1/organizations", `{"name":"a\\u0000b"}`)
      expectProblem(nul, 422, "VALIDATION_FAILED")
      expect(nul.json.issues[0]).toMatchObject({ code: "invalid_text", location: "body", path: "/name" })
      const surrogate = await v1("POST", "/v1/organizations", `{"name":"a\\ud800b"}`)
      expectProblem(surrogate, 422, "VALIDATION_FAILED")
      expect(surrogate.json.issues[0]).toMatchObject({ code: "invalid_text", path: "/name" })
      const key = await v1("POST", "/v1/organizations", `{"na\\u0000me":"x"}`)
      expectProblem(key, 422, "VALIDATION_FAILED")
      expect(JSON.stringify((await v1("GET", "/v1/organizations")).json)).toBe(before)
    })

    it("/v1: deep JSON is 422 too_deep (no stack overflow); invalid UTF-8 is 422", async () => {
      const tooDeep = await v1("POST", "/v1/organizations", deep(5000))
      expectProblem(tooDeep, 422, "VALIDATION_FAILED")
      expect(tooDeep.json.issues[0].code).toBe("too_deep")
      // 64 levels are still JSON (the schema then refuses the shape).
      expectProblem(await v1("POST", "/v1/organizations", deep(64)), 422, "VALIDATION_FAILED")
      const badUtf8 = await v1("POST", "/v1/organizations", Buffer.concat([Buffer.from(`{"name":"a`), Buffer.from([0xff, 0xfe]), Buffer.from(`"}`)]))
      expectProblem(badUtf8, 422, "VALIDATION_FAILED")
      expect(badUtf8.json.detail).toContain("UTF-8")
    })

    it("/v1: NUL in a query parameter is 422 location query; bad path parameters are 422 param, unknown paths 404", async () => {
      const query = await v1("GET", "/v1/organizations?after=%00")
      expectProblem(query, 422, "VALIDATION_FAILED")
      expect(query.json.issues[0]).toMatchObject({ location: "query", path: "/after" })
      for (const path of ["/v1/projects/%ff", `/v1/projects/${"a".repeat(150)}`, "/v1/projects/..", "/v1/projects/%00", "/v1/projects/%ED%A0%80"]) {
        const r = await v1("GET", path)
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.json.issues[0].location, path).toBe("param")
        expect(r.headers.allow).toBeUndefined()
      }
      expectProblem(await v1("GET", "/v1/no-such-thing/here"), 404, "RESOURCE_NOT_FOUND")
      // A genuinely different method is still 405 with Allow.
      const wrong = await v1("PUT", "/v1/organizations")
      expectProblem(wrong, 405, "METHOD_NOT_ALLOWED")
    })

    it("/v1: gzip, deflate and br bodies are decoded; the limit counts decompressed bytes (zip bomb → 413); other codings refused", async () => {
      const body = JSON.stringify({ name: "Compressed org" })
      for (const [coding, bytes] of [["gzip", gzipSync(body)], ["deflate", deflateSync(body)], ["br", brotliCompressSync(body)]] as const) {
        const r = await v1("POST", "/v1/organizations", bytes, { "content-encoding": coding })
        expect(r.status, `${coding}: ${r.text}`).toBe(201)
        expect(r.json.name).toBe("Compressed org")
      }
      const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20))
      expect(bomb.length).toBeLessThan(64 * 1024)
      expectProblem(await v1("POST", "/v1/organizations", bomb, { "content-encoding": "gzip" }), 413, "PAYLOAD_TOO_LARGE")
      const corrupt = await v1("POST", "/v1/organizations", Buffer.from("not gzip at all"), { "content-encoding": "gzip" })
      expectProblem(corrupt, 422, "VALIDATION_FAILED")
      const unknown = await v1("POST", "/v1/organizations", body, { "content-encoding": "zstd" })
      expectProblem(unknown, 422, "VALIDATION_FAILED")
      expect(unknown.json.issues[0]).toMatchObject({ location: "header", path: "/content-encoding" })
    })

    it("Dashboard: NUL, surrogates, deep JSON and multipart without a boundary are 422 envelopes (sign-in and sign-up too)", async () => {
      const cookieless = (path: string, body: string | Uint8Array, contentType: string, headers: Record<string, string> = {}) =>
        raw(s.baseUrl, "POST", path, { "content-type": contentType, origin: s.baseUrl, ...headers }, body)
      for (const path of ["/api/auth/sign-in/email", "/api/auth/sign-up/email"]) {
        expectEnvelope(await cookieless(path, "--x\r\n", "multipart/form-data"), 422)
        expectEnvelope(await cookieless(path, `{"email":"a\\u0000@example.com","password":"x"}`, "application/json"), 422)
        expectEnvelope(await cookieless(path, "email=a%00%40example.com&password=x", "application/x-www-form-urlencoded"), 422)
        expectEnvelope(await cookieless(path, deep(3000), "application/json"), 422)
        expectEnvelope(await cookieless(path, Buffer.from([0x7b, 0xff, 0x7d]), "application/json"), 422)
        expectEnvelope(await cookieless(path, "{}", "application/json", { "content-encoding": "compress" }), 415)
      }
      const bearer = { authorization: `Bearer ${s.serviceKey}` }
      const projects = await raw(s.baseUrl, "POST", "/api/projects/", { "content-type": "application/json", ...bearer }, `{"name":"x\\ud800"}`)
      expect(projects.status).toBeLessThan(500)
      expect(projects.json?.succeed).toBe(false)
      const query = await raw(s.baseUrl, "GET", "/api/projects/?x=%00", bearer)
      expectEnvelope(query, 422)
    })

    it("headers over the limit: 431 in the surface's format with X-Request-ID (item 9)", async () => {
      const big = "x".repeat(32 * 1024)
      const onV1 = await rawSocket(s.baseUrl, `GET /v1/account HTTP/1.1\r\nHost: a\r\nX-Big: ${big}\r\n\r\n`)
      const [head, body] = onV1.split("\r\n\r\n")
      expect(head).toMatch(/^HTTP\/1.1 431 /)
      expect(head).toMatch(/content-type: application\/problem\+json/i)
      expect(head).toMatch(/x-request-id: sb_req_[0-9a-z]{26}/i)
      expect(JSON.parse(body!)).toMatchObject({ code: "REQUEST_HEADERS_TOO_LARGE", status: 431 })
      const onDashboard = await rawSocket(s.baseUrl, `GET /api/projects/ HTTP/1.1\r\nHost: a\r\nX-Big: ${big}\r\n\r\n`)
      expect(onDashboard).toMatch(/^HTTP\/1.1 431 /)
      expect(JSON.parse(onDashboard.split("\r\n\r\n")[1]!)).toMatchObject({ succeed: false, code: "REQUEST_HEADERS_TOO_LARGE" })
      const onOAuth = await rawSocket(s.baseUrl, `POST /api/auth/oauth2/token HTTP/1.1\r\nHost: a\r\nX-Big: ${big}\r\n\r\n`)
      expect(JSON.parse(onOAuth.split("\r\n\r\n")[1]!)).toMatchObject({ error: "invalid_request" })
      // Under the limit, the same request is served.
      expect((await v1("GET", "/v1/account", undefined, { "x-big": "x".repeat(8 * 1024) })).status).toBe(200)
    })

    it("OAuth: NUL in client_id or in client credentials is invalid_request / invalid_client, never 500", async () => {
      const authorize = await raw(s.baseUrl, "GET", "/api/auth/oauth2/authorize?client_id=%00")
      expect(authorize.status).toBe(422)
      expect(authorize.json.error).toBe("invalid_request")
      const form = await raw(s.baseUrl, "POST", "/api/auth/oauth2/token", { "content-type": "application/x-www-form-urlencoded" }, "grant_type=authorization_code&client_id=a%00b&code=x")
      expect(form.status).toBe(400)
      expect(form.json.error).toBe("invalid_request")
      const basic = await raw(s.baseUrl, "POST", "/api/auth/oauth2/token", {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from("sb_app_x\u0000:secret").toString("base64")}`
      }, "grant_type=authorization_code&code=x")
      expect(basic.status).toBeLessThan(500)
      expect(["invalid_client", "invalid_request"]).toContain(basic.json.error)
      const introspect = await raw(s.baseUrl, "POST", "/api/auth/oauth2/introspect", { "content-type": "application/x-www-form-urlencoded" }, Buffer.from([0x74, 0x6f, 0x6b, 0x65, 0x6e, 0x3d, 0xff]))
      expect(introspect.status).toBeLessThan(500)
      expect(introspect.json.error).toBe("invalid_request")
    })
  })
}
