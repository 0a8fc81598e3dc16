import {
  Account,
  decodeBase32Rfc4648,
  SmsSender,
  TotpEnrollment,
  TotpFactors,
  TotpFactorsRepo,
  totp
} from "@switchboard/core/accounts"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import {
  type AccountId,
  formatTypeId,
  IdKinds,
  OrganizationId,
  type TotpFactorId,
  uuidv7Bytes
} from "@switchboard/core/shared"
import { makeServerConfig } from "@switchboard/http-adapter"
import { testBackends } from "@switchboard/sql-adapter"
import { makeSmsInbox } from "@switchboard/testkit"
import { DateTime, Effect, Logger, Option, References, Result, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AccountSecurityServerAdapters } from "../../src/server/AccountSecurityAdapters.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { expectProblem } from "../support/HttpClient.js"

let seq = 0
const idem = () => `as-${Date.now()}-${++seq}`
let emails = 0
const email = (what: string) => `${what}.${Date.now()}.${++emails}@example.com`

for (const backend of testBackends()) {
  describe(`/v1 account security (${backend})`, () => {
    const sms = makeSmsInbox()
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, {}, sms.layer)
    })
    afterAll(() => s.close())

    const call = async (
      method: string,
      path: string,
      init: { key: string | null; body?: unknown; idempotencyKey?: string; headers?: Record<string, string> }
    ) => {
      const headers = new Headers(init.headers)
      if (init.key !== null) headers.set("authorization", `Bearer ${init.key}`)
      if (init.idempotencyKey !== undefined) headers.set("idempotency-key", init.idempotencyKey)
      if (init.body !== undefined) headers.set("content-type", "application/json")
      const res = await fetch(`${s.baseUrl}${path}`, {
        method,
        headers,
        ...(init.body === undefined ? {} : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) })
      })
      const text = await res.text()
      return { res, body: text === "" ? undefined : (JSON.parse(text) as any) }
    }
    const expectIssue = (r: { res: Response; body: any }, path: string, issueCode?: string) => {
      expectProblem(r, 422, "VALIDATION_FAILED")
      const issue = r.body.issues.find((i: any) => i.path === path)
      expect(issue, JSON.stringify(r.body)).toBeDefined()
      if (issueCode !== undefined) expect(issue.code).toBe(issueCode)
    }
    const isAccount = (body: unknown) => Result.isSuccess(Schema.decodeUnknownResult(Account)(body))
    const newOrganization = (owner: string) =>
      s.run(Effect.gen(function*() {
        const now = yield* DateTime.now
        const organizationId = OrganizationId.make(
          formatTypeId(IdKinds.organization, uuidv7Bytes(DateTime.toEpochMillis(now), crypto.getRandomValues(new Uint8Array(10))))
        )
        yield* (yield* OrganizationsRepo).insert({ organizationId, name: "Acme", createdAt: now, updatedAt: now }, owner as AccountId)
        return organizationId
      }))

    describe("PATCH /v1/account", () => {
      it("updates the names given, sets updatedAt, and replays under the same Idempotency-Key", async () => {
        const { serviceKey } = await s.newAccount(email("names"))
        const before = await call("GET", "/v1/account", { key: serviceKey })
        await new Promise((r) => setTimeout(r, 5))
        const key = idem()
        const r = await call("PATCH", "/v1/account", { key: serviceKey, idempotencyKey: key, body: { firstName: "Ada", lastName: "Lovelace" } })
        expect(r.res.status).toBe(200)
        expect(isAccount(r.body)).toBe(true)
        expect(r.body).toMatchObject({ accountId: before.body.accountId, firstName: "Ada", lastName: "Lovelace", email: before.body.email })
        expect(Date.parse(r.body.updatedAt)).toBeGreaterThan(Date.parse(before.body.updatedAt))
        const replay = await call("PATCH", "/v1/account", { key: serviceKey, idempotencyKey: key, body: { lastName: "Lovelace", firstName: "Ada" } })
        expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
        expect(replay.body).toEqual(r.body)
        const cleared = await call("PATCH", "/v1/account", { key: serviceKey, idempotencyKey: idem(), body: { lastName: null } })
        expect(cleared.body).toMatchObject({ firstName: "Ada", lastName: null })
        const me = await call("GET", "/v1/account", { key: serviceKey })
        expect(me.body).toEqual(cleared.body)
      })

      it("requires an Idempotency-Key and refuses bad bodies naming the field", async () => {
        expectProblem(await call("PATCH", "/v1/account", { key: s.serviceKey, body: { firstName: "X" } }), 400, "IDEMPOTENCY_KEY_REQUIRED")
        const cases: Array<[unknown, string]> = [
          [{ firstName: "" }, "/firstName"],
          [{ firstName: null }, "/firstName"],
          [{ firstName: "x".repeat(257) }, "/firstName"],
          [{ lastName: "" }, "/lastName"],
          [{ lastName: 5 }, "/lastName"],
          [{ email: "new@example.com" }, "/email"]
        ]
        for (const [body, path] of cases) {
          expectIssue(await call("PATCH", "/v1/account", { key: s.serviceKey, idempotencyKey: idem(), body }), path)
        }
        const longest = await call("PATCH", "/v1/account", { key: s.serviceKey, idempotencyKey: idem(), body: { firstName: "x".repeat(256) } })
        expect(longest.res.status).toBe(200)
        expectProblem(await call("PATCH", "/v1/account", { key: null, idempotencyKey: idem(), body: {} }), 401, "NOT_AUTHENTICATED")
      })
    })

    describe("DELETE /v1/account", () => {
      it("returns the tombstone; every key of the account, one just used included, then gets 410 ACCOUNT_DELETED", async () => {
        const { accountId, serviceKey } = await s.newAccount(email("leaving"))
        const second = await call("POST", "/v1/account/service-keys", {
          key: serviceKey, idempotencyKey: idem(), body: { name: "second", expiresAt: null }
        })
        // Both keys verified (and cached by the server) just before the deletion.
        expect((await call("GET", "/v1/account", { key: serviceKey })).res.status).toBe(200)
        expect((await call("GET", "/v1/account", { key: second.body.secret })).res.status).toBe(200)
        const r = await call("DELETE", "/v1/account", { key: serviceKey })
        expect(r.res.status).toBe(200)
        expect(isAccount(r.body)).toBe(true)
        expect(r.body.accountId).toBe(accountId)
        expect(r.body.deletedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        for (const key of [serviceKey, second.body.secret]) {
          expectProblem(await call("GET", "/v1/account", { key }), 410, "ACCOUNT_DELETED")
        }
        expectProblem(await call("DELETE", "/v1/account", { key: serviceKey }), 410, "ACCOUNT_DELETED")
      })

      it("409 ACCOUNT_OWNS_ORGANIZATIONS while the account owns one; the account stays", async () => {
        const { accountId, serviceKey } = await s.newAccount(email("owner"))
        await newOrganization(accountId)
        expectProblem(await call("DELETE", "/v1/account", { key: serviceKey }), 409, "ACCOUNT_OWNS_ORGANIZATIONS")
        const me = await call("GET", "/v1/account", { key: serviceKey })
        expect(me.res.status).toBe(200)
        expect(me.body.deletedAt).toBeNull()
      })
    })

    describe("phone verification", () => {
      it("sends a code, refuses a resend within 60 s with 429 and Retry-After, and binds the number on the right code", async () => {
        const { serviceKey } = await s.newAccount(email("phone"))
        const started = await call("POST", "/v1/account/phone/verifications", { key: serviceKey, body: { phoneNumber: "+1 (555) 010-7001" } })
        expect(started.res.status).toBe(201)
        expect(Object.keys(started.body).sort()).toEqual(["channel", "expiresAt", "resendAvailableAt"])
        expect(started.body.channel).toBe("sms")
        const now = Date.now()
        expect(Date.parse(started.body.resendAvailableAt) - now).toBeGreaterThan(50_000)
        expect(Date.parse(started.body.resendAvailableAt) - now).toBeLessThanOrEqual(60_000)
        expect(Date.parse(started.body.expiresAt) - Date.parse(started.body.resendAvailableAt)).toBe(540_000)
        const code = sms.lastCode("+15550107001")!
        expect(code).toMatch(/^\d{6}$/)

        const again = await call("POST", "/v1/account/phone/verifications", { key: serviceKey, body: { phoneNumber: "+15550107001" } })
        expectProblem(again, 429, "RATE_LIMITED")
        const retryAfter = Number(again.res.headers.get("retry-after"))
        expect(retryAfter).toBeGreaterThanOrEqual(1)
        expect(retryAfter).toBeLessThanOrEqual(60)

        const wrong = await call("PUT", "/v1/account/phone", {
          key: serviceKey, body: { phoneNumber: "+15550107001", code: code === "000000" ? "000001" : "000000" }
        })
        expectIssue(wrong, "/code", "invalid_code")
        expect(wrong.body.issues[0].message).toMatch(/4 attempts left/)
        const bound = await call("PUT", "/v1/account/phone", { key: serviceKey, body: { phoneNumber: "+1 555 010 7001", code } })
        expect(bound.res.status).toBe(200)
        expect(isAccount(bound.body)).toBe(true)
        expect(bound.body.phoneNumber).toBe("+15550107001")
        expect(bound.body.phoneVerifiedAt).toMatch(/Z$/)
        // Confirming the bound number again returns the bound account.
        const repeat = await call("PUT", "/v1/account/phone", { key: serviceKey, body: { phoneNumber: "+15550107001", code } })
        expect(repeat.res.status).toBe(200)
        expect(repeat.body).toEqual(bound.body)
      })

      it("a code dies after five wrong attempts; a number with nothing pending is named", async () => {
        const { serviceKey } = await s.newAccount(email("attempts"))
        const nothing = await call("PUT", "/v1/account/phone", { key: serviceKey, body: { phoneNumber: "+15550107002", code: "123456" } })
        expectIssue(nothing, "/phoneNumber", "no_pending_verification")
        // A captcha is accepted (and not checked: no provider is configured).
        const started = await call("POST", "/v1/account/phone/verifications", {
          key: serviceKey, body: { phoneNumber: "+15550107002", captcha: { challengeContext: "ctx", token: "tok" } }
        })
        expect(started.res.status).toBe(201)
        const code = sms.lastCode("+15550107002")!
        const wrongCode = String((Number(code) + 1) % 1_000_000).padStart(6, "0")
        for (let i = 0; i < 5; i++) {
          expectIssue(await call("PUT", "/v1/account/phone", { key: serviceKey, body: { phoneNumber: "+15550107002", code: wrongCode } }), "/code", "invalid_code")
        }
        const dead = await call("PUT", "/v1/account/phone", { key: serviceKey, body: { phoneNumber: "+15550107002", code } })
        expectIssue(dead, "/code", "attempts_exhausted")
        expect((await call("GET", "/v1/account", { key: serviceKey })).body.phoneNumber).toBeNull()
      })

      it("502 UPSTREAM_FAILURE when the SMS cannot be sent, and the next attempt is not held back", async () => {
        const { serviceKey } = await s.newAccount(email("smsdown"))
        sms.failNext()
        const failed = await call("POST", "/v1/account/phone/verifications", { key: serviceKey, body: { phoneNumber: "+15550107003" } })
        expectProblem(failed, 502, "UPSTREAM_FAILURE")
        const retried = await call("POST", "/v1/account/phone/verifications", { key: serviceKey, body: { phoneNumber: "+15550107003" } })
        expect(retried.res.status).toBe(201)
      })

      it("422 names the field for a bad phone number, code or extra property", async () => {
        const cases: Array<[string, string, unknown, string]> = [
          ["POST", "/v1/account/phone/verifications", { phoneNumber: "call me" }, "/phoneNumber"],
          ["POST", "/v1/account/phone/verifications", { phoneNumber: "+------" }, "/phoneNumber"],
          ["POST", "/v1/account/phone/verifications", { phoneNumber: "1".repeat(26) }, "/phoneNumber"],
          ["POST", "/v1/account/phone/verifications", {}, "/phoneNumber"],
          ["POST", "/v1/account/phone/verifications", { phoneNumber: "+15550107004", extra: true }, "/extra"],
          ["POST", "/v1/account/phone/verifications", { phoneNumber: "+15550107004", captcha: { challengeContext: "", token: "t" } }, "/captcha/challengeContext"],
          ["PUT", "/v1/account/phone", { phoneNumber: "+15550107004", code: "12345" }, "/code"],
          ["PUT", "/v1/account/phone", { phoneNumber: "+15550107004", code: "12345a" }, "/code"],
          ["PUT", "/v1/account/phone", { code: "123456" }, "/phoneNumber"]
        ]
        for (const [method, path, body, field] of cases) expectIssue(await call(method, path, { key: s.serviceKey, body }), field)
      })
    })

    describe("TOTP", () => {
      const enroll = async (key: string) => {
        const r = await call("POST", "/v1/account/mfa/totp", { key, body: {} })
        expect(r.res.status, JSON.stringify(r.body)).toBe(201)
        return r
      }

      it("enrolls with a one-time secret and URI, confirms with a current code, and stores the secret sealed", async () => {
        const address = email("mfa")
        const { accountId, serviceKey } = await s.newAccount(address)
        const r = await enroll(serviceKey)
        expect(r.res.headers.get("cache-control")).toBe("no-store")
        expect(Result.isSuccess(Schema.decodeUnknownResult(TotpEnrollment)(r.body))).toBe(true)
        expect(Object.keys(r.body).sort()).toEqual(["enrollmentToken", "expiresAt", "factorId", "secret", "uri"])
        expect(r.body.factorId).toMatch(/^auth_factor_[A-Za-z0-9]+$/)
        expect(r.body.secret).toMatch(/^[A-Z2-7]{32}$/)
        expect(r.body.uri).toBe(
          `otpauth://totp/Switchboard:${encodeURIComponent(address)}?secret=${r.body.secret}&issuer=Switchboard&algorithm=SHA1&digits=6&period=30`
        )
        expect(Date.parse(r.body.expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000)

        const stored = await s.run(Effect.flatMap(TotpFactorsRepo, (repo) => repo.find(r.body.factorId as TotpFactorId)))
        const sealed = Option.getOrThrow(stored).secretSealed!
        const key = decodeBase32Rfc4648(r.body.secret)!
        const hex = (b: Uint8Array) => Buffer.from(b).toString("hex")
        expect(hex(sealed)).not.toContain(hex(key))
        expect(Buffer.from(sealed).toString("latin1")).not.toContain(r.body.secret)

        const code = await Effect.runPromise(totp(key, Date.now()))
        // Six digits that match no step of the window (checked locally first).
        const steps = [-30_000, 0, 30_000]
        const taken = new Set(await Promise.all(steps.map((d) => Effect.runPromise(totp(key, Date.now() + d)))))
        const wrongCode = ["000000", "111111", "222222", "333333"].find((c) => !taken.has(c))!
        const wrong = await call("POST", "/v1/account/mfa/totp/verify", { key: serviceKey, body: { enrollmentToken: r.body.enrollmentToken, code: wrongCode } })
        expectIssue(wrong, "/code", "invalid_code")
        const confirmed = await call("POST", "/v1/account/mfa/totp/verify", { key: serviceKey, body: { enrollmentToken: r.body.enrollmentToken, code } })
        expect(confirmed.res.status).toBe(200)
        expect(confirmed.body.factorId).toBe(r.body.factorId)
        expect(confirmed.body.verifiedAt).toMatch(/Z$/)
        expect(Object.keys(confirmed.body).sort()).toEqual(["factorId", "verifiedAt"])
        // The step just used is spent: sign-in's check refuses the same code.
        const reuse = await s.run(Effect.result(Effect.flatMap(TotpFactors, (t) => t.verifyTotp(accountId as AccountId, code))))
        expect(Result.isFailure(reuse) && reuse.failure).toMatchObject({ _tag: "TotpCodeRejected", reason: "reused" })
      })

      it("refuses an unknown or foreign enrollment token and malformed bodies", async () => {
        const a = await s.newAccount(email("mfa-a"))
        const b = await s.newAccount(email("mfa-b"))
        const r = await enroll(a.serviceKey)
        const code = await Effect.runPromise(totp(decodeBase32Rfc4648(r.body.secret)!, Date.now()))
        const foreign = await call("POST", "/v1/account/mfa/totp/verify", { key: b.serviceKey, body: { enrollmentToken: r.body.enrollmentToken, code } })
        expectIssue(foreign, "/enrollmentToken", "unknown_enrollment")
        const garbage = await call("POST", "/v1/account/mfa/totp/verify", { key: a.serviceKey, body: { enrollmentToken: "nope", code } })
        expectIssue(garbage, "/enrollmentToken", "unknown_enrollment")
        const cases: Array<[string, unknown, string]> = [
          ["/v1/account/mfa/totp", { issuer: "me" }, "/issuer"],
          ["/v1/account/mfa/totp", [], ""],
          ["/v1/account/mfa/totp/verify", { enrollmentToken: r.body.enrollmentToken, code: "1234567" }, "/code"],
          ["/v1/account/mfa/totp/verify", { enrollmentToken: "", code: "123456" }, "/enrollmentToken"],
          ["/v1/account/mfa/totp/verify", { enrollmentToken: "x".repeat(4097), code: "123456" }, "/enrollmentToken"],
          ["/v1/account/mfa/totp/verify", { code: "123456" }, "/enrollmentToken"]
        ]
        for (const [path, body, field] of cases) expectIssue(await call("POST", path, { key: a.serviceKey, body }), field)
        // The enrollment is still usable after all that.
        const ok = await call("POST", "/v1/account/mfa/totp/verify", { key: a.serviceKey, body: { enrollmentToken: r.body.enrollmentToken, code } })
        expect(ok.res.status).toBe(200)
      })

      it("deletes a factor idempotently (the same deletedAt on repeat); 404 for an unknown one, 422 for a bad id", async () => {
        const { serviceKey } = await s.newAccount(email("mfa-del"))
        const r = await enroll(serviceKey)
        const path = `/v1/account/mfa/factors/${r.body.factorId}`
        expectProblem(await call("DELETE", path, { key: serviceKey }), 400, "IDEMPOTENCY_KEY_REQUIRED")
        const key = idem()
        const first = await call("DELETE", path, { key: serviceKey, idempotencyKey: key })
        expect(first.res.status).toBe(200)
        expect(first.body).toEqual({ factorId: r.body.factorId, deletedAt: expect.stringMatching(/Z$/) })
        const replay = await call("DELETE", path, { key: serviceKey, idempotencyKey: key })
        expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
        await new Promise((res) => setTimeout(res, 5))
        const again = await call("DELETE", path, { key: serviceKey, idempotencyKey: idem() })
        expect(again.body).toEqual(first.body)
        expect(again.res.headers.get("idempotent-replayed")).toBeNull()
        // Another account cannot see it.
        expectProblem(await call("DELETE", path, { key: s.serviceKey, idempotencyKey: idem() }), 404, "RESOURCE_NOT_FOUND")
        expectProblem(await call("DELETE", "/v1/account/mfa/factors/auth_factor_unknown1", { key: serviceKey, idempotencyKey: idem() }), 404, "RESOURCE_NOT_FOUND")
        const bad = await call("DELETE", "/v1/account/mfa/factors/factor-1", { key: serviceKey, idempotencyKey: idem() })
        expectProblem(bad, 422, "VALIDATION_FAILED")
        expect(bad.body.issues[0]).toMatchObject({ location: "param", path: "/factorId" })
        // The deleted enrollment cannot be confirmed any more.
        const code = await Effect.runPromise(totp(decodeBase32Rfc4648(r.body.secret)!, Date.now()))
        expectIssue(await call("POST", "/v1/account/mfa/totp/verify", { key: serviceKey, body: { enrollmentToken: r.body.enrollmentToken, code } }), "/enrollmentToken")
      })
    })

    it("every route needs an account credential; /v1/account answers 405 with Allow for other methods", async () => {
      const routes: Array<[string, string]> = [
        ["PATCH", "/v1/account"], ["DELETE", "/v1/account"], ["POST", "/v1/account/phone/verifications"], ["PUT", "/v1/account/phone"],
        ["POST", "/v1/account/mfa/totp"], ["POST", "/v1/account/mfa/totp/verify"], ["DELETE", "/v1/account/mfa/factors/auth_factor_x1"]
      ]
      for (const [method, path] of routes) {
        const r = await call(method, path, { key: null, idempotencyKey: idem(), body: {} })
        expectProblem(r, 401, "NOT_AUTHENTICATED")
        expect(r.res.headers.get("www-authenticate")).toContain("Bearer")
      }
      const na = await call("PUT", "/v1/account", { key: null })
      expectProblem(na, 405, "METHOD_NOT_ALLOWED")
      expect(na.res.headers.get("allow")).toBe("DELETE, GET, HEAD, PATCH")
    })

    it("documents the operations in OpenAPI with their problems and Idempotency-Key", async () => {
      const spec = (await call("GET", "/openapi.json", { key: null })).body
      const patch = spec.paths["/v1/account"].patch
      expect(patch.operationId).toBe("accountSecurity.updateAccount")
      expect(patch.parameters.some((p: any) => p.name === "Idempotency-Key" && p.required)).toBe(true)
      expect(spec.paths["/v1/account"].delete.responses["409"].description).toContain("ACCOUNT_OWNS_ORGANIZATIONS")
      expect(spec.paths["/v1/account/phone/verifications"].post.responses["429"]).toBeDefined()
      expect(spec.paths["/v1/account/phone/verifications"].post.responses["201"]).toBeDefined()
      expect(spec.paths["/v1/account/mfa/totp"].post.responses["201"]).toBeDefined()
      expect(spec.paths["/v1/account/mfa/factors/{factorId}"].delete.parameters.some((p: any) => p.name === "Idempotency-Key")).toBe(true)
      expect(spec.paths["/v1/account/phone"].put.parameters ?? []).not.toContainEqual(expect.objectContaining({ name: "Idempotency-Key" }))
    })
  })
}

describe("the standalone server's SMS sender", () => {
  it("writes the message, code included, to the log at info level instead of sending it", async () => {
    const lines: Array<{ level: string; message: unknown; annotations: Record<string, unknown> }> = []
    const capture = Logger.make(({ fiber, logLevel, message }) => {
      lines.push({ level: logLevel.toUpperCase(), message, annotations: { ...fiber.getRef(References.CurrentLogAnnotations) } })
    })
    await Effect.runPromise(
      Effect.flatMap(SmsSender, (sender) => sender.send("+15550109999", "Your Switchboard verification code is 424242.")).pipe(
        Effect.provide(AccountSecurityServerAdapters(makeServerConfig())),
        Effect.provide(Logger.layer([capture]))
      )
    )
    expect(lines).toHaveLength(1)
    expect(lines[0]!.level).toBe("INFO")
    expect(lines[0]!.annotations).toEqual({ to: "+15550109999", text: "Your Switchboard verification code is 424242." })
  })
})
