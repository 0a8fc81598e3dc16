import { AccountsRepo } from "@switchboard/core/accounts"
import { businessScopes, SigningKeys, SigningKeysRepo } from "@switchboard/core/oauth"
import { testBackends } from "@switchboard/sql-adapter"
import { accountFixture, forgeAccessToken, mintAccessToken, mintExpiredAccessToken } from "@switchboard/testkit"
import { DateTime, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { expectProblem } from "../support/HttpClient.js"

const INVALID_TOKEN = `Bearer realm="api", error="invalid_token"`

const call = async (s: TestServer, path: string, authorization?: string) => {
  const res = await fetch(`${s.baseUrl}${path}`, authorization === undefined ? {} : { headers: { authorization } })
  const text = await res.text()
  return { res, body: text === "" ? undefined : (JSON.parse(text) as any) }
}

for (const backend of testBackends()) {
  describe(`/v1 with JWT access tokens (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend)
    })
    afterAll(() => s.close())

    it("the server ensured a current and a next signing key while starting", async () => {
      const keys = await s.run(Effect.flatMap(SigningKeysRepo, (repo) => Effect.flatMap(DateTime.now, repo.listPublished)))
      expect(keys.map((k) => k.state)).toEqual(["current", "next"])
    })

    it("GET /v1/account with a minted (scope-less) access token is the token's account", async () => {
      const token = await s.run(mintAccessToken({ accountId: s.accountId }))
      const r = await call(s, "/v1/account", `Bearer ${token}`)
      expect(r.res.status).toBe(200)
      expect(r.body.accountId).toBe(s.accountId)
      const other = await s.newAccount(`jwt-${Date.now()}@example.com`)
      const theirs = await s.run(mintAccessToken({ accountId: other.accountId, scopes: ["projects:read"] }))
      expect((await call(s, "/v1/account", `Bearer ${theirs}`)).body.accountId).toBe(other.accountId)
    })

    it("an expired access token is 401 NOT_AUTHENTICATED with error=\"invalid_token\"", async () => {
      const token = await s.run(mintExpiredAccessToken({ accountId: s.accountId }))
      const r = await call(s, "/v1/account", `Bearer ${token}`)
      expectProblem(r, 401, "NOT_AUTHENTICATED")
      expect(r.res.headers.get("www-authenticate")).toBe(INVALID_TOKEN)
      expect(r.body.detail).toBe("The access token has expired.")
    })

    it("tokens the server did not issue for this API are 401 with error=\"invalid_token\"", async () => {
      const forged = await s.run(Effect.all([
        mintAccessToken({ accountId: s.accountId, audience: "https://api.other.example" }),
        mintAccessToken({ accountId: s.accountId, issuer: "https://evil.example/api/auth" }),
        forgeAccessToken({ accountId: s.accountId }, { signer: "none" }),
        forgeAccessToken({ accountId: s.accountId }, { signer: "hs256-public-key" }),
        forgeAccessToken({ accountId: s.accountId }, { signer: "foreign", kid: "current" }),
        forgeAccessToken({ accountId: s.accountId }, { signer: "foreign", kid: "own" })
      ]))
      for (const token of forged) {
        const r = await call(s, "/v1/account", `Bearer ${token}`)
        expectProblem(r, 401, "NOT_AUTHENTICATED")
        expect(r.res.headers.get("www-authenticate")).toBe(INVALID_TOKEN)
      }
    })

    it("a token of a deleted account is 410 ACCOUNT_DELETED", async () => {
      const now = Date.now()
      const deleted = accountFixture({
        createdAt: DateTime.makeUnsafe(now - 86_400_000) as DateTime.Utc,
        deletedAt: DateTime.makeUnsafe(now - 1000) as DateTime.Utc
      })
      await s.run(Effect.flatMap(AccountsRepo, (repo) => repo.insert(deleted)))
      const token = await s.run(mintAccessToken({ accountId: deleted.accountId }))
      expectProblem(await call(s, "/v1/account", `Bearer ${token}`), 410, "ACCOUNT_DELETED")
    })

    it("after a rotation, tokens of the previous key still work and new tokens use the promoted key", async () => {
      const before = await s.run(mintAccessToken({ accountId: s.accountId }))
      const rotated = await s.run(Effect.flatMap(SigningKeys, (keys) => keys.rotate()))
      const after = await s.run(mintAccessToken({ accountId: s.accountId }))
      const kidOf = (t: string) => JSON.parse(Buffer.from(t.split(".")[0]!, "base64url").toString()).kid
      expect(kidOf(before)).toBe(rotated.retired)
      expect(kidOf(after)).toBe(rotated.current)
      expect((await call(s, "/v1/account", `Bearer ${before}`)).res.status).toBe(200)
      expect((await call(s, "/v1/account", `Bearer ${after}`)).res.status).toBe(200)
    })

    it("GET /v1/auth/oauth/scopes is public: 200 with the business scopes, with no credential or any Authorization header", async () => {
      for (const authorization of [undefined, "Bearer garbage", "Bearer a.b.c", "Basic YTpi", "nonsense", `Bearer ${s.serviceKey}`]) {
        for (const path of ["/v1/auth/oauth/scopes"]) {
          const r = await call(s, path, authorization)
          expect(r.res.status).toBe(200)
          expect(r.res.headers.get("content-type")).toContain("application/json")
          expect(r.res.headers.get("www-authenticate")).toBeNull()
          expect(r.body).toEqual({ scopes: [...businessScopes] })
          for (const protocol of ["openid", "profile", "email", "offline_access"]) expect(r.body.scopes).not.toContain(protocol)
        }
      }
      const expired = await s.run(mintExpiredAccessToken({ accountId: s.accountId }))
      expect((await call(s, "/v1/auth/oauth/scopes", `Bearer ${expired}`)).res.status).toBe(200)
    })

    it("the OpenAPI document lists the public route without a security requirement", async () => {
      const doc = (await call(s, "/openapi.json")).body
      const op = doc.paths["/v1/auth/oauth/scopes"].get
      expect(op.operationId).toBe("accessTokens.listOauthScopes")
      expect(op.security ?? []).toEqual([])
      expect(Object.keys(op.responses)).toContain("200")
    })
  })

  describe(`access tokens follow the configured base URLs (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, { apiUrl: "https://api.example.com", dashboardUrl: "https://dash.example.com" })
    })
    afterAll(() => s.close())

    it("iss must be {DASHBOARD_URL}/api/auth and aud {API_URL}", async () => {
      const good = await s.run(mintAccessToken({ accountId: s.accountId }))
      const payload = JSON.parse(Buffer.from(good.split(".")[1]!, "base64url").toString())
      expect(payload).toMatchObject({ iss: "https://dash.example.com/api/auth", aud: "https://api.example.com" })
      expect((await call(s, "/v1/account", `Bearer ${good}`)).res.status).toBe(200)
      const loopback = await s.run(mintAccessToken({
        accountId: s.accountId,
        issuer: "http://127.0.0.1/api/auth",
        audience: "http://127.0.0.1"
      }))
      const r = await call(s, "/v1/account", `Bearer ${loopback}`)
      expectProblem(r, 401, "NOT_AUTHENTICATED")
      expect(r.res.headers.get("www-authenticate")).toBe(INVALID_TOKEN)
    })
  })
}
