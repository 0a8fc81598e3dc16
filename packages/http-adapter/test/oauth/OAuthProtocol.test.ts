/**
 * The OAuth endpoints over raw HTTP, rule by rule (docs/api-notes/oauth.md): discovery and
 * JWKS, the authorization endpoint's order and redirect-versus-page rules (`iss` and `state` on
 * every redirect), prompts, the consent screen and its CSRF binding, the token endpoint's client
 * authentication and failure rules, userinfo challenges, and withdrawal through /v1.
 */
import { testBackends } from "@switchboard/sql-adapter"
import * as jose from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hiddenFields, newApp, newUser, type OAuthTestServer, sessionCookie, startOAuthServer } from "../support/OAuthServer.js"

const CALLBACK = "https://rp.example/cb?tenant=a%20b"
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
/** BASE64URL(SHA256(VERIFIER)) (RFC 7636 appendix B). */
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

const form = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  body: new URLSearchParams(fields).toString()
})

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`

/** The parameters of a redirect to the callback (which keeps its own query). */
const callbackParams = (res: Response) => {
  const location = res.headers.get("location")
  expect(location, `status ${res.status}`).not.toBeNull()
  expect(location!.startsWith(`${CALLBACK}&`)).toBe(true)
  return new URL(location!).searchParams
}

for (const backend of testBackends()) {
  describe(`OAuth endpoints over HTTP (${backend})`, () => {
    let s: OAuthTestServer
    let user: Awaited<ReturnType<typeof newUser>>
    let cookie: string
    let confidential: Awaited<ReturnType<typeof newApp>>
    beforeAll(async () => {
      s = await startOAuthServer(backend)
      user = await newUser(s)
      cookie = await sessionCookie(s, user.accountId)
      confidential = await newApp(s, user.accountId, {
        name: "Acme <Reports>",
        logoUri: "https://acme.example/logo.png",
        homepageUri: "https://acme.example",
        redirectUris: [CALLBACK]
      })
    })
    afterAll(() => s.close())

    const get = (path: string, headers: Record<string, string> = {}) => fetch(`${s.baseUrl}${path}`, { headers, redirect: "manual" })

    const authorizePath = (params: Record<string, string | null> = {}, clientId = confidential.clientId) => {
      const all: Record<string, string | null> = {
        response_type: "code",
        client_id: clientId,
        redirect_uri: CALLBACK,
        scope: "openid offline_access projects:read",
        state: "st-1",
        code_challenge: CHALLENGE,
        code_challenge_method: "S256",
        ...params
      }
      const q = new URLSearchParams(Object.entries(all).filter((e): e is [string, string] => e[1] !== null))
      return `/api/auth/oauth2/authorize?${q.toString()}`
    }

    /** Authorizes with the session (approving the consent screen if shown); the code. */
    const code = async (params: Record<string, string | null> = {}, app = confidential, withCookie = cookie) => {
      const res = await get(authorizePath(params, app.clientId), { cookie: withCookie })
      if (res.status === 200) {
        const fields = hiddenFields(await res.text())
        const approved = await fetch(`${s.baseUrl}/api/auth/oauth2/consent`, {
          ...form({ ...fields, decision: "approve" }, { cookie: withCookie }),
          redirect: "manual"
        })
        expect(approved.status).toBe(303)
        return callbackParams(approved).get("code")!
      }
      expect(res.status).toBe(302)
      return callbackParams(res).get("code")!
    }

    const token = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${s.baseUrl}/api/auth/oauth2/token`, form(fields, headers))

    const exchange = async (c: string, extra: Record<string, string> = {}) => {
      const res = await token({
        grant_type: "authorization_code",
        code: c,
        redirect_uri: CALLBACK,
        code_verifier: VERIFIER,
        client_id: confidential.clientId,
        client_secret: confidential.secret!,
        ...extra
      })
      return { res, body: await res.json() as Record<string, any> }
    }

    const introspect = async (t: string) => {
      const res = await fetch(`${s.baseUrl}/api/auth/oauth2/introspect`, form({ token: t }, { authorization: basic(confidential.clientId, confidential.secret!) }))
      expect(res.status).toBe(200)
      return await res.json() as Record<string, unknown>
    }

    const expectOAuthError = async (r: Response | { readonly res: Response; readonly body: Record<string, unknown> }, status: number, error: string) => {
      const res = r instanceof Response ? r : r.res
      const body = r instanceof Response ? await r.json() as Record<string, unknown> : r.body
      expect(res.status, JSON.stringify(body)).toBe(status)
      expect(body.error).toBe(error)
      expect(typeof body.error_description).toBe("string")
      expect(res.headers.get("cache-control")).toBe("no-store")
      return body
    }

    describe("discovery, JWKS, registration", () => {
      it("both path-insertion documents are the same, with the exact issuer; the appended form and the domain root are 404", async () => {
        const a = await get("/.well-known/oauth-authorization-server/api/auth")
        const b = await get("/.well-known/openid-configuration/api/auth")
        expect(a.status).toBe(200)
        expect(a.headers.get("content-type")).toMatch(/^application\/json/)
        const doc = await a.json() as Record<string, unknown>
        expect(await b.json()).toEqual(doc)
        expect(doc).toMatchObject({
          issuer: s.issuer,
          token_endpoint: `${s.issuer}/oauth2/token`,
          jwks_uri: `${s.issuer}/jwks`,
          registration_endpoint: `${s.issuer}/oauth2/register`,
          id_token_signing_alg_values_supported: ["EdDSA"],
          code_challenge_methods_supported: ["S256"],
          grant_types_supported: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
          authorization_response_iss_parameter_supported: true
        })
        for (const path of ["/api/auth/.well-known/openid-configuration", "/api/auth/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"]) {
          const res = await get(path)
          await res.arrayBuffer()
          expect(res.status, path).toBe(404)
        }
        const head = await fetch(`${s.baseUrl}/.well-known/openid-configuration/api/auth`, { method: "HEAD" })
        expect(head.status).toBe(200)
        expect(await head.text()).toBe("")
        const post = await fetch(`${s.baseUrl}/.well-known/openid-configuration/api/auth`, { method: "POST" })
        expect(post.status).toBe(405)
        expect(post.headers.get("allow")).toBe("GET, HEAD")
        expect((await post.json() as { error: string }).error).toBe("invalid_request")
      })

      it("the JWKS publishes Ed25519 keys with kid and no private member; id_tokens name one of them", async () => {
        const res = await get("/api/auth/jwks")
        expect(res.status).toBe(200)
        const { keys } = await res.json() as { keys: Array<Record<string, unknown>> }
        expect(keys.length).toBeGreaterThanOrEqual(2)
        for (const k of keys) {
          expect(k).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" })
          expect(typeof k.kid).toBe("string")
          expect(k).not.toHaveProperty("d")
        }
        const { body } = await exchange(await code())
        expect(keys.map((k) => k.kid)).toContain(jose.decodeProtectedHeader(body.id_token).kid)
      })

      it("the /v1 OpenAPI document describes the authorized-applications operations", async () => {
        const doc = await (await get("/openapi.json")).json() as { paths: Record<string, Record<string, { operationId: string }>> }
        expect(doc.paths["/v1/account/oauth/authorized-applications"]?.get?.operationId).toBe("oAuthProvider.listAuthorizedApplications")
        expect(doc.paths["/v1/account/oauth/authorized-applications/{applicationId}"]?.delete?.operationId).toBe("oAuthProvider.revokeAuthorizedApplication")
      })

      it("registration is advertised but disabled: 403 access_denied", async () => {
        const res = await fetch(`${s.baseUrl}/api/auth/oauth2/register`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
        await expectOAuthError(res, 403, "access_denied")
      })
    })

    describe("authorization endpoint", () => {
      it("an unknown client or a redirect URI not registered exactly shows an error page and never redirects", async () => {
        for (const path of [
          authorizePath({ client_id: "sb_app_unknown" }),
          authorizePath({ client_id: null }),
          authorizePath({ redirect_uri: "https://rp.example/cb?tenant=a+b" }),
          authorizePath({ redirect_uri: "https://evil.example/cb" }),
          authorizePath({ redirect_uri: "https://evil.example/cb", code_challenge: null, response_type: "token" })
        ]) {
          const res = await get(path, { cookie })
          expect(res.status, path).toBe(400)
          expect(res.headers.get("location")).toBeNull()
          expect(res.headers.get("content-type")).toMatch(/^text\/html/)
          expect(await res.text()).toContain("cannot be completed")
        }
      })

      it("later errors redirect to the callback with error, state and iss", async () => {
        const cases: ReadonlyArray<readonly [Record<string, string | null>, string]> = [
          [{ code_challenge: null }, "invalid_request"],
          [{ code_challenge_method: "plain" }, "invalid_request"],
          [{ code_challenge_method: null }, "invalid_request"],
          [{ response_type: "token" }, "unsupported_response_type"],
          [{ scope: "openid spectrum:write" }, "invalid_scope"],
          [{ scope: "openid admin" }, "invalid_scope"],
          [{ resource: "https://other.example" }, "invalid_target"],
          [{ prompt: "none login" }, "invalid_request"]
        ]
        for (const [params, error] of cases) {
          const res = await get(authorizePath(params), { cookie })
          expect(res.status).toBe(302)
          expect(res.headers.get("cache-control")).toBe("no-store")
          const q = callbackParams(res)
          expect(q.get("error"), JSON.stringify(params)).toBe(error)
          expect(q.get("state")).toBe("st-1")
          expect(q.get("iss")).toBe(s.issuer)
          expect(q.get("tenant")).toBe("a b")
        }
      })

      it("signed out: to the sign-in page and back (returnTo is this request); prompt=none: login_required", async () => {
        const path = authorizePath({ scope: "openid" })
        const res = await get(path)
        expect(res.status).toBe(303)
        const location = new URL(res.headers.get("location")!, s.baseUrl)
        expect(location.pathname).toBe("/sign-in")
        // The same request, marked as coming back from sign-in.
        expect(location.searchParams.get("returnTo")).toBe(`${path}&sb_signed_in=1`)
        const none = callbackParams(await get(authorizePath({ prompt: "none" })))
        expect(none.get("error")).toBe("login_required")
        expect(none.get("iss")).toBe(s.issuer)
        expect(none.get("state")).toBe("st-1")
      })

      it("the consent screen shows the app; deny is access_denied; approve gives a code; then consent is remembered", async () => {
        const other = await newUser(s)
        const otherCookie = await sessionCookie(s, other.accountId)
        const none = callbackParams(await get(authorizePath({ prompt: "none" }), { cookie: otherCookie }))
        expect(none.get("error")).toBe("consent_required")

        const page = await get(authorizePath(), { cookie: otherCookie })
        expect(page.status).toBe(200)
        expect(page.headers.get("cache-control")).toBe("no-store")
        expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
        const html = await page.text()
        expect(html).toContain("Acme &lt;Reports&gt;")
        expect(html).toContain("https://acme.example/logo.png")
        expect(html).toContain("href=\"https://acme.example\"")
        expect(html).toContain("View your projects")
        expect(html).toContain("offline_access")
        expect(html).toContain(other.email)
        const fields = hiddenFields(html)

        const denied = await fetch(`${s.baseUrl}/api/auth/oauth2/consent`, { ...form({ ...fields, decision: "deny" }, { cookie: otherCookie }), redirect: "manual" })
        expect(denied.status).toBe(303)
        expect(Object.fromEntries(callbackParams(denied))).toMatchObject({ error: "access_denied", state: "st-1", iss: s.issuer })

        // The form belongs to its session and its request.
        const stranger = await fetch(`${s.baseUrl}/api/auth/oauth2/consent`, { ...form({ ...fields, decision: "approve" }, { cookie }), redirect: "manual" })
        expect(stranger.status).toBe(403)
        const tampered = await fetch(`${s.baseUrl}/api/auth/oauth2/consent`, {
          ...form({ ...fields, request: fields.request!.replace("projects%3Aread", "projects%3Awrite"), decision: "approve" }, { cookie: otherCookie }),
          redirect: "manual"
        })
        expect(tampered.status).toBe(403)

        const approved = await fetch(`${s.baseUrl}/api/auth/oauth2/consent`, { ...form({ ...fields, decision: "approve" }, { cookie: otherCookie }), redirect: "manual" })
        const q = callbackParams(approved)
        expect(q.get("code")).toMatch(/^sb_oac_/)
        expect(q.get("state")).toBe("st-1")
        expect(q.get("iss")).toBe(s.issuer)

        // Remembered: a covered request redirects at once; prompt=consent shows the screen again.
        const again = await get(authorizePath({ scope: "openid projects:read" }), { cookie: otherCookie })
        expect(again.status).toBe(302)
        expect(callbackParams(again).get("code")).toMatch(/^sb_oac_/)
        expect((await get(authorizePath({ prompt: "consent" }), { cookie: otherCookie })).status).toBe(200)
        expect(callbackParams(await get(authorizePath({ prompt: "none" }), { cookie: otherCookie })).get("code")).toMatch(/^sb_oac_/)
        // A wider request asks again.
        expect((await get(authorizePath({ scope: "openid email" }), { cookie: otherCookie })).status).toBe(200)
      })

      it("prompt=login sends a signed-in user through sign-in once, without looping", async () => {
        const res = await get(authorizePath({ prompt: "login consent" }), { cookie })
        expect(res.status).toBe(303)
        const returnTo = new URL(res.headers.get("location")!, s.baseUrl).searchParams.get("returnTo")!
        const back = new URL(returnTo, s.baseUrl)
        expect(back.searchParams.get("prompt")).toBe("consent")
        expect(back.searchParams.get("sb_login_after")).toMatch(/^\d+$/)
        // The old session is older than the request: sign in again.
        expect((await get(returnTo, { cookie })).status).toBe(303)
        // A session signed in since: the request goes on (to the consent screen, prompt=consent).
        const fresh = await sessionCookie(s, user.accountId)
        expect((await get(returnTo, { cookie: fresh })).status).toBe(200)
      })
    })

    describe("token endpoint", () => {
      it("a code exchange answers the token response, no-store; the code is single-use and a replay revokes what it gave", async () => {
        const c = await code()
        const { body, res } = await exchange(c)
        expect(res.status).toBe(200)
        expect(res.headers.get("cache-control")).toBe("no-store")
        expect(res.headers.get("pragma")).toBe("no-cache")
        expect(body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "openid offline_access projects:read" })
        expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "id_token", "refresh_token", "scope", "token_type"])
        expect((await introspect(body.access_token)).active).toBe(true)
        const replay = await exchange(c)
        await expectOAuthError(replay, 400, "invalid_grant")
        expect(await introspect(body.access_token)).toEqual({ active: false })
      })

      it("wrong verifier, redirect mismatch, expired-or-unknown code, a malformed verifier", async () => {
        await expectOAuthError((await exchange(await code(), { code_verifier: VERIFIER.replace(/.$/, "Z") })), 400, "invalid_grant")
        await expectOAuthError((await exchange(await code(), { redirect_uri: "https://rp.example/cb" })), 400, "invalid_grant")
        await expectOAuthError(await exchange("sb_oac_0000"), 400, "invalid_grant")
        await expectOAuthError((await exchange(await code(), { code_verifier: "short" })), 400, "invalid_request")
      })

      it("client authentication: a wrong secret is 401 invalid_client with a Basic challenge; Basic plus body credentials is invalid_request", async () => {
        const c = await code()
        const fields = { grant_type: "authorization_code", code: c, redirect_uri: CALLBACK, code_verifier: VERIFIER }
        const wrong = await token({ ...fields, client_id: confidential.clientId, client_secret: "sb_cs_wrong" })
        await expectOAuthError(wrong, 401, "invalid_client")
        expect(wrong.headers.get("www-authenticate")).toMatch(/^Basic realm=/)
        const wrongBasic = await token(fields, { authorization: basic(confidential.clientId, "nope") })
        await expectOAuthError(wrongBasic, 401, "invalid_client")
        expect(wrongBasic.headers.get("www-authenticate")).toMatch(/^Basic /)
        const both = await token({ ...fields, client_secret: confidential.secret! }, { authorization: basic(confidential.clientId, confidential.secret!) })
        await expectOAuthError(both, 400, "invalid_request")
        await expectOAuthError(await token(fields), 401, "invalid_client")
        // None of these consumed the code: Basic alone (percent-encoded, as RFC 6749 §2.3.1 says) works.
        const ok = await token(fields, { authorization: basic(confidential.clientId, confidential.secret!) })
        expect(ok.status).toBe(200)
      })

      it("grant types: client_credentials, password and unknown ones are unsupported_grant_type; a missing one (or a missing device_code) invalid_request", async () => {
        const auth = { authorization: basic(confidential.clientId, confidential.secret!) }
        for (const grant of ["client_credentials", "password", "implicit"]) {
          await expectOAuthError(await token({ grant_type: grant }, auth), 400, "unsupported_grant_type")
        }
        await expectOAuthError(await token({}, auth), 400, "invalid_request")
        // The device grant (RFC 8628) is supported: without device_code it is invalid_request.
        await expectOAuthError(await token({ grant_type: "urn:ietf:params:oauth:grant-type:device_code" }, auth), 400, "invalid_request")
        await expectOAuthError(await token({ grant_type: "refresh_token" }, auth), 400, "invalid_request")
        const json = await fetch(`${s.baseUrl}/api/auth/oauth2/token`, {
          method: "POST",
          headers: { "content-type": "application/json", ...auth },
          body: JSON.stringify({ grant_type: "client_credentials" })
        })
        await expectOAuthError(json, 400, "invalid_request")
        const repeated = await fetch(`${s.baseUrl}/api/auth/oauth2/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", ...auth },
          body: "grant_type=refresh_token&refresh_token=a&refresh_token=b"
        })
        await expectOAuthError(repeated, 400, "invalid_request")
      })

      it("refresh: rotation, reuse revokes the family, scope widening is invalid_scope", async () => {
        const { body } = await exchange(await code())
        const auth = { authorization: basic(confidential.clientId, confidential.secret!) }
        const wider = await token({ grant_type: "refresh_token", refresh_token: body.refresh_token, scope: "openid projects:write" }, auth)
        await expectOAuthError(wider, 400, "invalid_scope")
        const next = await token({ grant_type: "refresh_token", refresh_token: body.refresh_token, scope: "openid projects:read" }, auth)
        const nextBody = await next.json() as Record<string, string>
        expect(next.status).toBe(200)
        expect(nextBody.scope).toBe("openid projects:read")
        await expectOAuthError(await token({ grant_type: "refresh_token", refresh_token: body.refresh_token }, auth), 400, "invalid_grant")
        expect(await introspect(nextBody.access_token!)).toEqual({ active: false })
        await expectOAuthError(await token({ grant_type: "refresh_token", refresh_token: nextBody.refresh_token! }, auth), 400, "invalid_grant")
      })
    })

    describe("userinfo, introspection and revocation", () => {
      it("userinfo: no token is a bare Bearer challenge; a bad one invalid_token; without openid 403 insufficient_scope", async () => {
        const none = await get("/api/auth/oauth2/userinfo")
        expect(none.status).toBe(401)
        expect(none.headers.get("www-authenticate")).toBe(`Bearer realm="switchboard"`)
        const bad = await get("/api/auth/oauth2/userinfo", { authorization: "Bearer sb_oat_nope" })
        expect(bad.status).toBe(401)
        expect(bad.headers.get("www-authenticate")).toContain(`error="invalid_token"`)
        const { body } = await exchange(await code({ scope: "projects:read" }))
        const noOpenid = await get("/api/auth/oauth2/userinfo", { authorization: `Bearer ${body.access_token}` })
        expect(noOpenid.status).toBe(403)
        expect(noOpenid.headers.get("www-authenticate")).toContain(`error="insufficient_scope", scope="openid"`)
        const query = await get(`/api/auth/oauth2/userinfo?access_token=${body.access_token}`)
        expect(query.status).toBe(400)
      })

      it("introspection and revocation need the client; another client's tokens are inactive to it and not revoked by it", async () => {
        const { body } = await exchange(await code())
        const pub = await newApp(s, user.accountId, { redirectUris: [CALLBACK], clientType: "public", scopes: ["openid"] })
        const unauth = await fetch(`${s.baseUrl}/api/auth/oauth2/introspect`, form({ token: body.access_token }))
        await expectOAuthError(unauth, 401, "invalid_client")
        const foreign = await fetch(`${s.baseUrl}/api/auth/oauth2/introspect`, form({ token: body.access_token, client_id: pub.clientId }))
        expect(await foreign.json()).toEqual({ active: false })
        const noToken = await fetch(`${s.baseUrl}/api/auth/oauth2/introspect`, form({ client_id: pub.clientId }))
        await expectOAuthError(noToken, 400, "invalid_request")
        const revokedByOther = await fetch(`${s.baseUrl}/api/auth/oauth2/revoke`, form({ token: body.refresh_token, client_id: pub.clientId }))
        expect(revokedByOther.status).toBe(200)
        expect((await introspect(body.access_token)).active).toBe(true)
        const revoke = await fetch(`${s.baseUrl}/api/auth/oauth2/revoke`, form({ token: body.access_token, token_type_hint: "refresh_token" }, { authorization: basic(confidential.clientId, confidential.secret!) }))
        expect(revoke.status).toBe(200)
        expect(await revoke.text()).toBe("")
        expect(await introspect(body.access_token)).toEqual({ active: false })
        expect((await introspect(body.refresh_token)).active).toBe(true)
      })
    })

    describe("JWT access tokens for /v1 and withdrawal", () => {
      it("resource={API_URL} gives a JWT /v1 accepts; withdrawing through /v1 stops it and every other token of the grant at once", async () => {
        const owner = await newUser(s)
        const app = await newApp(s, owner.accountId, { redirectUris: [CALLBACK], name: "Reporter" })
        const member = await newUser(s)
        const memberCookie = await sessionCookie(s, member.accountId)
        const jwtCode = await code({ scope: "openid projects:read offline_access", resource: s.baseUrl }, app, memberCookie)
        const jwtRes = await token({
          grant_type: "authorization_code",
          code: jwtCode,
          redirect_uri: CALLBACK,
          code_verifier: VERIFIER,
          client_id: app.clientId,
          client_secret: app.secret!
        })
        const jwt = await jwtRes.json() as Record<string, string>
        expect(jose.decodeProtectedHeader(jwt.access_token!).typ).toBe("at+jwt")
        const me = await get("/v1/account", { authorization: `Bearer ${jwt.access_token}` })
        expect(me.status).toBe(200)
        expect((await me.json() as { accountId: string }).accountId).toBe(member.accountId)

        const opaqueCode = await code({ scope: "openid offline_access" }, app, memberCookie)
        const opaque = await (await token({
          grant_type: "authorization_code",
          code: opaqueCode,
          redirect_uri: CALLBACK,
          code_verifier: VERIFIER,
          client_id: app.clientId,
          client_secret: app.secret!
        })).json() as Record<string, string>
        const pending = await code({ scope: "openid" }, app, memberCookie)

        const list = await get("/v1/account/oauth/authorized-applications", { authorization: `Bearer ${member.serviceKey}` })
        expect(list.status).toBe(200)
        const listed = await list.json() as { authorizedApplications: Array<any>; listMetadata: unknown }
        expect(listed.listMetadata).toEqual({ after: null, before: null })
        expect(listed.authorizedApplications).toHaveLength(1)
        expect(listed.authorizedApplications[0]).toMatchObject({
          application: {
            applicationType: "confidential",
            clientId: app.clientId,
            id: app.clientId,
            name: "Reporter",
            redirectUris: [{ default: true, uri: CALLBACK }],
            usesPkce: true,
            isFirstParty: false,
            description: null
          },
          grantedScopes: ["openid", "offline_access", "projects:read"],
          oauthResource: null
        })
        expect(listed.authorizedApplications[0].authorizationId).toMatch(/^sb_grt_/)

        const withdraw = await fetch(`${s.baseUrl}/v1/account/oauth/authorized-applications/${app.clientId}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${member.serviceKey}` }
        })
        expect(withdraw.status).toBe(204)
        const after = await get("/v1/account", { authorization: `Bearer ${jwt.access_token}` })
        expect(after.status).toBe(401)
        expect(after.headers.get("www-authenticate")).toContain("invalid_token")
        const introspected = await fetch(`${s.baseUrl}/api/auth/oauth2/introspect`, form({ token: opaque.access_token! }, { authorization: basic(app.clientId, app.secret!) }))
        expect(await introspected.json()).toEqual({ active: false })
        const auth = { authorization: basic(app.clientId, app.secret!) }
        await expectOAuthError(await token({ grant_type: "refresh_token", refresh_token: opaque.refresh_token! }, auth), 400, "invalid_grant")
        await expectOAuthError(await token({ grant_type: "refresh_token", refresh_token: jwt.refresh_token! }, auth), 400, "invalid_grant")
        await expectOAuthError(await token({ grant_type: "authorization_code", code: pending, redirect_uri: CALLBACK, code_verifier: VERIFIER }, auth), 400, "invalid_grant")
        const empty = await get("/v1/account/oauth/authorized-applications", { authorization: `Bearer ${member.serviceKey}` })
        expect((await empty.json() as { authorizedApplications: unknown[] }).authorizedApplications).toEqual([])
        const again = await fetch(`${s.baseUrl}/v1/account/oauth/authorized-applications/${app.clientId}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${member.serviceKey}` }
        })
        expect(again.status).toBe(404)
        expect((await again.json() as { code: string }).code).toBe("RESOURCE_NOT_FOUND")
        // The next request asks for consent again.
        expect((await get(authorizePath({ scope: "openid" }, app.clientId), { cookie: memberCookie })).status).toBe(200)
      })

      it("authorized applications: cursor pages; bad parameters and ids are 422", async () => {
        const member = await newUser(s)
        const memberCookie = await sessionCookie(s, member.accountId)
        const apps = []
        for (let i = 0; i < 3; i++) {
          const app = await newApp(s, member.accountId, { redirectUris: [CALLBACK], name: `App ${i}` })
          await code({ scope: "openid" }, app, memberCookie)
          apps.push(app)
        }
        const page = async (q: string) => {
          const res = await get(`/v1/account/oauth/authorized-applications${q}`, { authorization: `Bearer ${member.serviceKey}` })
          return { status: res.status, body: await res.json() as any }
        }
        const first = await page("?limit=2")
        expect(first.body.authorizedApplications.map((a: any) => a.application.name)).toEqual(["App 2", "App 1"])
        expect(first.body.listMetadata.before).toBeNull()
        const second = await page(`?limit=2&after=${first.body.listMetadata.after}`)
        expect(second.body.authorizedApplications.map((a: any) => a.application.name)).toEqual(["App 0"])
        expect(second.body.listMetadata).toEqual({ after: null, before: second.body.authorizedApplications[0].authorizationId })
        const back = await page(`?limit=2&before=${second.body.listMetadata.before}`)
        expect(back.body.authorizedApplications.map((a: any) => a.application.name)).toEqual(["App 2", "App 1"])
        expect((await page("?order=asc&limit=1")).body.authorizedApplications[0].application.name).toBe("App 0")
        for (const q of ["?limit=0", "?limit=101", "?order=sideways", "?after=a&before=b"]) expect((await page(q)).status, q).toBe(422)
        const malformed = await fetch(`${s.baseUrl}/v1/account/oauth/authorized-applications/not-an-app`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${member.serviceKey}` }
        })
        expect(malformed.status).toBe(422)
      })
    })
  })
}
