import { Account, AccountServiceKey } from "@switchboard/core/accounts"
import { problemCodes, problemEntry } from "../../src/http/ProblemCatalog.js"
import { testBackends } from "@switchboard/sql-adapter"
import { Result, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { expectProblem, httpClient } from "../support/HttpClient.js"

const json = (body: unknown) => JSON.stringify(body)
let seq = 0
const idem = () => `key-${Date.now()}-${++seq}`

for (const backend of testBackends()) {
  describe(`/v1 account and service keys (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend)
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    const create = (payload: unknown, key = idem(), credential?: string) =>
      call("/v1/account/service-keys", {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": key },
        body: typeof payload === "string" ? payload : json(payload),
        ...(credential === undefined ? {} : { key: credential })
      })

    it("GET /v1/account returns the caller's Account with request and trace ids", async () => {
      const r = await call("/v1/account")
      expect(r.res.status).toBe(200)
      const account = Schema.decodeUnknownResult(Account)(r.body)
      expect(Result.isSuccess(account)).toBe(true)
      expect(r.body.accountId).toBe(s.accountId)
      expect(r.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      expect(r.res.headers.get("x-request-id")).toMatch(/^sb_req_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      expect(r.res.headers.get("x-trace-id")).toMatch(/^(?!0{32}$)[0-9a-f]{32}$/)
      const picture = await fetch(r.body.pictureUrl.replace(/^https?:\/\/[^/]+/, s.baseUrl))
      expect(picture.status).toBe(200)
      expect(picture.headers.get("content-type")).toBe("image/svg+xml")
    })

    it("a deprecated operation announces Deprecation, Sunset and Link, and OpenAPI marks it", async () => {
      const r = await call("/v1/me")
      expect(r.res.status).toBe(200)
      expect(r.body.accountId).toBe(s.accountId)
      expect(r.res.headers.get("deprecation")).toBe(`@${Date.UTC(2026, 9, 1) / 1000}`)
      expect(r.res.headers.get("sunset")).toBe("Wed, 30 Jun 2027 00:00:00 GMT")
      expect(r.res.headers.get("link")).toMatch(/^<[^>]+\/deprecations#account\.getMe>; rel="deprecation"/)
      // Errors of the operation carry them too; other operations do not.
      const unauthenticated = await call("/v1/me", { key: null })
      expect(unauthenticated.res.status).toBe(401)
      expect(unauthenticated.res.headers.get("sunset")).not.toBeNull()
      expect((await call("/v1/account")).res.headers.get("deprecation")).toBeNull()
      const spec = await call("/openapi.json", { key: null })
      expect(spec.body.paths["/v1/me"].get.deprecated).toBe(true)
      expect(spec.body.paths["/v1/account"].get.deprecated).toBeUndefined()
      const page = await fetch(`${s.baseUrl}/deprecations`)
      expect(await page.text()).toContain("account.getMe")
    })

    it("keeps a valid traceparent's trace id and ignores an invalid one", async () => {
      const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
      const kept = await call("/v1/account", { headers: { traceparent: `00-${trace}-00f067aa0ba902b7-01` } })
      expect(kept.res.headers.get("x-trace-id")).toBe(trace)
      const ignored = await call("/v1/account", { headers: { traceparent: `00-${"0".repeat(32)}-00f067aa0ba902b7-01` } })
      expect(ignored.res.headers.get("x-trace-id")).not.toBe("0".repeat(32))
      expect(ignored.res.headers.get("x-trace-id")).toMatch(/^[0-9a-f]{32}$/)
    })

    it("401 NOT_AUTHENTICATED with WWW-Authenticate for a missing, malformed, unknown or wrong-scheme credential", async () => {
      const none = await call("/v1/account", { key: null })
      expectProblem(none, 401, "NOT_AUTHENTICATED")
      expect(none.res.headers.get("www-authenticate")).toBe(`Bearer realm="api"`)
      for (const bad of ["garbage", `${s.serviceKey.slice(0, -1)}${s.serviceKey.endsWith("0") ? "1" : "0"}`, "sb_ask_01m7zvg8epecnadf5bkm51v23z_" + "a".repeat(52)]) {
        const r = await call("/v1/account", { key: bad })
        expectProblem(r, 401, "NOT_AUTHENTICATED")
        expect(r.res.headers.get("www-authenticate")).toBe(`Bearer realm="api", error="invalid_token"`)
      }
      const basic = await call("/v1/account", { key: null, headers: { authorization: `Basic ${btoa("a:b")}` } })
      expectProblem(basic, 401, "NOT_AUTHENTICATED")
      expect(basic.res.headers.get("www-authenticate")).toContain("Bearer")
    })

    it("creates a key (shown once) that works, lists newest first, revokes idempotently, and refuses it afterwards", async () => {
      const { serviceKey } = await s.newAccount("lifecycle@example.com")
      const a = await create({ name: "first", expiresAt: null }, idem(), serviceKey)
      expect(a.res.status).toBe(201)
      expect(a.res.headers.get("cache-control")).toBe("no-store")
      expect(Result.isSuccess(Schema.decodeUnknownResult(AccountServiceKey, { onExcessProperty: "error" })(a.body.serviceKey))).toBe(true)
      expect(a.body.secret.startsWith(`${a.body.serviceKey.serviceKeyId}_`)).toBe(true)
      const b = await create({ name: "second", expiresAt: "2999-01-01T00:00:00Z" }, idem(), serviceKey)
      expect(b.body.serviceKey.expiresAt).toBe("2999-01-01T00:00:00.000Z")
      const me = await call("/v1/account", { key: b.body.secret })
      expect(me.res.status).toBe(200)
      const list = await call("/v1/account/service-keys", { key: serviceKey })
      expect(list.body.serviceKeys.map((k: any) => k.name)).toEqual(["second", "first", "test"])
      expect(JSON.stringify(list.body)).not.toContain(a.body.secret)

      const id = a.body.serviceKey.serviceKeyId
      const revoke = (key = idem()) =>
        call(`/v1/account/service-keys/${id}`, { method: "DELETE", key: serviceKey, headers: { "idempotency-key": key } })
      const first = await revoke()
      expect(first.res.status).toBe(200)
      expect(first.body.serviceKey.revokedAt).toMatch(/Z$/)
      await new Promise((r) => setTimeout(r, 5))
      const again = await revoke()
      expect(again.body.serviceKey.revokedAt).toBe(first.body.serviceKey.revokedAt)
      const refused = await call("/v1/account", { key: a.body.secret })
      expectProblem(refused, 401, "NOT_AUTHENTICATED")
      expect(refused.body.detail).toMatch(/revoked/)
      const after = await call("/v1/account/service-keys", { key: serviceKey })
      expect(after.body.serviceKeys.map((k: any) => k.serviceKeyId)).not.toContain(id)
      const missing = await call("/v1/account/service-keys/sb_ask_01m7zvg8epecnadf5bkm51v23z", {
        method: "DELETE", key: serviceKey, headers: { "idempotency-key": idem() }
      })
      expectProblem(missing, 404, "ACCOUNT_SERVICE_KEY_NOT_FOUND")
      // Another account's key is not found either.
      const foreign = await call(`/v1/account/service-keys/${b.body.serviceKey.serviceKeyId}`, {
        method: "DELETE", headers: { "idempotency-key": idem() }
      })
      expectProblem(foreign, 404, "ACCOUNT_SERVICE_KEY_NOT_FOUND")
    })

    it("422 VALIDATION_FAILED names the field for each bad body", async () => {
      const cases: Array<[unknown, string, string]> = [
        [{ name: "x", expiresAt: "2000-01-01T00:00:00Z" }, "/expiresAt", "json"],
        [{ name: "x" }, "/expiresAt", "json"],
        [{ name: "", expiresAt: null }, "/name", "json"],
        [{ name: "n".repeat(129), expiresAt: null }, "/name", "json"],
        [{ name: "x", expiresAt: "2999-01-01T00:00:00+01:00" }, "/expiresAt", "json"],
        [{ name: "x", expiresAt: "2999-01-01t00:00:00z" }, "/expiresAt", "json"],
        [{ name: "x", expiresAt: null, extra: 1 }, "/extra", "json"],
        ["{\"name\":", "", "body"],
        ["", "", "body"]
      ]
      for (const [payload, path, location] of cases) {
        const r = await create(payload)
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues.some((i: any) => i.path === path && i.location === location), JSON.stringify([payload, r.body])).toBe(true)
      }
      const ok = await create({ name: "n".repeat(128), expiresAt: null })
      expect(ok.res.status).toBe(201)
      const wrongType = await call("/v1/account/service-keys", {
        method: "POST", headers: { "content-type": "text/plain", "idempotency-key": idem() }, body: "name=x"
      })
      expectProblem(wrongType, 422, "VALIDATION_FAILED")
      expect(wrongType.body.issues[0]).toMatchObject({ location: "header", path: "/content-type" })
      const badParam = await call("/v1/account/service-keys/not-a-key", { method: "DELETE", headers: { "idempotency-key": idem() } })
      expectProblem(badParam, 422, "VALIDATION_FAILED")
      expect(badParam.body.issues[0]).toMatchObject({ location: "param", path: "/serviceKeyId" })
    })

    it("413 PAYLOAD_TOO_LARGE over the 1 MiB body limit", async () => {
      const r = await create(json({ name: "x", expiresAt: null, pad: "p".repeat(1024 * 1024) }))
      expectProblem(r, 413, "PAYLOAD_TOO_LARGE")
    })

    it("Idempotency-Key: required, validated, replayed with the same secret, refused for a different request", async () => {
      const { serviceKey } = await s.newAccount("idem@example.com")
      const missing = await call("/v1/account/service-keys", {
        method: "POST", key: serviceKey, headers: { "content-type": "application/json" }, body: json({ name: "x", expiresAt: null })
      })
      expectProblem(missing, 400, "IDEMPOTENCY_KEY_REQUIRED")
      const invalid = await create({ name: "x", expiresAt: null }, "k".repeat(256), serviceKey)
      expectProblem(invalid, 400, "IDEMPOTENCY_KEY_INVALID")
      const key = idem()
      const first = await create({ name: "once", expiresAt: null }, key, serviceKey)
      expect(first.res.status).toBe(201)
      expect(first.res.headers.get("idempotent-replayed")).toBeNull()
      // Same request with the members in another order and the key as an sf-string: a replay.
      const replay = await create(`{ "expiresAt": null, "name": "once" }`, `"${key}"`, serviceKey)
      expect(replay.res.status).toBe(201)
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body).toEqual(first.body)
      expect(replay.res.headers.get("x-request-id")).not.toBe(first.res.headers.get("x-request-id"))
      const list = await call("/v1/account/service-keys", { key: serviceKey })
      expect(list.body.serviceKeys.filter((k: any) => k.name === "once")).toHaveLength(1)
      const reused = await create({ name: "other", expiresAt: null }, key, serviceKey)
      expectProblem(reused, 422, "IDEMPOTENCY_KEY_REUSED")
      // Keys are scoped to the principal: the same key from another account is a new request.
      const elsewhere = await create({ name: "once", expiresAt: null }, key)
      expect(elsewhere.res.status).toBe(201)
      expect(elsewhere.res.headers.get("idempotent-replayed")).toBeNull()
      // A definitive 4xx outcome is stored and replayed too.
      const k404 = idem()
      const gone = () => call("/v1/account/service-keys/sb_ask_01m7zvg8epecnadf5bkm51v23z", {
        method: "DELETE", key: serviceKey, headers: { "idempotency-key": k404 }
      })
      expectProblem(await gone(), 404, "ACCOUNT_SERVICE_KEY_NOT_FOUND")
      const again = await gone()
      expect(again.res.status).toBe(404)
      expect(again.res.headers.get("idempotent-replayed")).toBe("true")
    })

    it("Idempotency-Key: a refused request (malformed, or invalid for the schema) keeps nothing, so the corrected retry runs", async () => {
      const { serviceKey } = await s.newAccount("idem-refused@example.com")
      const key = idem()
      expectProblem(await create(`{ "name": `, key, serviceKey), 422, "VALIDATION_FAILED")
      const refused = await create({ name: "", expiresAt: null, extra: 1 }, key, serviceKey)
      expectProblem(refused, 422, "VALIDATION_FAILED")
      expect(refused.res.headers.get("idempotent-replayed")).toBeNull()
      expect([...new Set(refused.body.issues.map((i: any) => i.location))]).toEqual(["json"])
      // Refused by the operation's own check (an expiry in the past), inside the protocol.
      const past = await create({ name: "past", expiresAt: "2001-01-01T00:00:00Z" }, key, serviceKey)
      expectProblem(past, 422, "VALIDATION_FAILED")
      const corrected = await create({ name: "corrected", expiresAt: null }, key, serviceKey)
      expect(corrected.res.status).toBe(201)
      expect(corrected.res.headers.get("idempotent-replayed")).toBeNull()
      // The operation's own answer is kept from then on.
      const replay = await create({ name: "corrected", expiresAt: null }, key, serviceKey)
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body).toEqual(corrected.body)
    })

    it("409 ACCOUNT_SERVICE_KEY_LIMIT_REACHED past 20 live keys; revoking frees a slot", async () => {
      const { serviceKey } = await s.newAccount("limit@example.com")
      // The account starts with one key from provisioning.
      const ids: Array<string> = []
      for (let i = 0; i < 19; i++) {
        const r = await create({ name: `k${i}`, expiresAt: null }, idem(), serviceKey)
        expect(r.res.status).toBe(201)
        ids.push(r.body.serviceKey.serviceKeyId)
      }
      const over = await create({ name: "one too many", expiresAt: null }, idem(), serviceKey)
      expectProblem(over, 409, "ACCOUNT_SERVICE_KEY_LIMIT_REACHED")
      await call(`/v1/account/service-keys/${ids[0]}`, { method: "DELETE", key: serviceKey, headers: { "idempotency-key": idem() } })
      const room = await create({ name: "fits again", expiresAt: null }, idem(), serviceKey)
      expect(room.res.status).toBe(201)
    })

    it("unknown routes are 404 RESOURCE_NOT_FOUND and wrong methods 405 with Allow, both with X-Request-ID", async () => {
      const nf = await call("/v1/nothing-here", { key: null })
      expectProblem(nf, 404, "RESOURCE_NOT_FOUND")
      const na = await call("/v1/account/service-keys", { method: "PUT", key: null })
      expectProblem(na, 405, "METHOD_NOT_ALLOWED")
      expect(na.res.headers.get("allow")).toBe("GET, HEAD, POST")
    })

    it("serves OpenAPI 3.1 from the same schemas, with problem responses and Idempotency-Key", async () => {
      const r = await call("/openapi.json", { key: null })
      expect(r.res.status).toBe(200)
      expect(r.body.openapi).toBe("3.1.0")
      const create = r.body.paths["/v1/account/service-keys"].post
      expect(create.operationId).toBe("account.createAccountServiceKey")
      expect(create.responses["201"].content["application/json"]).toBeDefined()
      expect(create.responses["409"].content["application/problem+json"].schema.$ref).toBe("#/components/schemas/Problem")
      expect(create.parameters.some((p: any) => p.name === "Idempotency-Key" && p.required)).toBe(true)
      expect(r.body.paths["/v1/account/service-keys/{serviceKeyId}"].delete).toBeDefined()
      expect(r.body.components.schemas.AccountServiceKey).toBeDefined()
      expect(JSON.stringify(r.body)).not.toContain("HttpApiDecodeError")
    })

    it("serves a page for every problem code, the catalog, and 404 for an unknown slug", async () => {
      for (const code of problemCodes) {
        const e = problemEntry(code)
        const page = await fetch(`${s.baseUrl}/problems/${e.slug}`)
        expect(page.status, code).toBe(200)
        expect(page.headers.get("content-type")).toContain("text/html")
        expect(await page.text()).toContain(code)
      }
      const catalog = await fetch(`${s.baseUrl}/problems/catalog`)
      const html = await catalog.text()
      expect(problemCodes.every((c) => html.includes(c))).toBe(true)
      expectProblem(await call("/problems/no-such-problem", { key: null }), 404, "RESOURCE_NOT_FOUND")
    })
  })
}
