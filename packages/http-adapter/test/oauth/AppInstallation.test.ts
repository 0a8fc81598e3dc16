/**
 * App installation over HTTP (docs/app-installation.md), on every backend: an app registers its
 * public keys in the Dashboard, asks to be installed with a client assertion signed with `jose`, a
 * customer approves it in the console (CSRF-checked forms) or through the Dashboard API, and the
 * app redeems the code for a project API key shown once. Every refused assertion (replayed,
 * expired, too long-lived, wrong audience, wrong key, unknown app) answers its problem and creates
 * nothing.
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Browser, expectData, expectEnvelopeError, signedUp } from "../support/DashboardClient.js"
import { expectProblem, httpClient } from "../support/HttpClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const API_URL = "https://api.switchboard.test"
const CREATE_AUD = `${API_URL}/v1/installation-requests`
const REDEEM_AUD = `${API_URL}/v1/installation-requests/redeem`
const REDIRECT = "https://app.example/installed?tenant=7"
const xhr = { "x-requested-with": "test" }
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? ""

type Key = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"]
let jtiSeq = 0

/** A client assertion (RFC 7523) of `appId`, overridable claim by claim. */
const assertion = async (key: Key, appId: string, o: { aud?: string; exp?: number; iss?: string; jti?: string; alg?: string } = {}) => {
  const now = Math.floor(Date.now() / 1000)
  return await new SignJWT({})
    .setProtectedHeader({ alg: o.alg ?? "EdDSA" })
    .setIssuer(o.iss ?? appId)
    .setSubject(appId)
    .setAudience(o.aud ?? CREATE_AUD)
    .setIssuedAt(now)
    .setExpirationTime(o.exp ?? now + 120)
    .setJti(o.jti ?? `jti-${Date.now()}-${++jtiSeq}`)
    .sign(key)
}

for (const backend of testBackends()) {
  describe(`app installation (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend, { apiUrl: API_URL, privacyJobEnabled: false, webhookDeliveryEnabled: false })
    })
    afterAll(() => s.close())
    const server = () => s
    const call = httpClient(server)

    /** A developer's app with a registered Ed25519 key. */
    const registeredApp = async () => {
      const dev = await signedUp(server, "dev")
      const created = expectData(await dev.browser.fetch("/api/oauth-apps", {
        method: "POST",
        headers: xhr,
        json: { name: "Acme Sync", redirectUris: [REDIRECT], clientType: "confidential", scopes: ["openid"] }
      }))
      const appId = created.app.clientId as string
      const { privateKey, publicKey } = await generateKeyPair("EdDSA", { extractable: true })
      const jwk = { ...(await exportJWK(publicKey)), kid: "k1" }
      const keys = expectData(await dev.browser.fetch(`/api/oauth-apps/${appId}/jwks`, { method: "PUT", headers: xhr, json: { keys: [jwk] } }))
      expect(keys.keys).toEqual([jwk])
      return { dev: dev.browser, appId, privateKey }
    }

    /** A customer with an organization and a project made through the console. */
    const customer = async (what: string) => {
      const user = await signedUp(server, what)
      const b = user.browser
      const csrf = csrfOf((await b.fetch("/console")).text)
      const org = await b.fetch("/console/organizations", { method: "POST", form: { _csrf: csrf, name: `${what} org` } })
      const organizationId = /\/console\/organizations\/([^?]+)/.exec(org.res.headers.get("location") ?? "")![1]!
      const project = await b.fetch("/console/projects", { method: "POST", form: { _csrf: csrf, organizationId, name: `${what} project` } })
      const projectId = /\/console\/projects\/([^?]+)/.exec(project.res.headers.get("location") ?? "")![1]!
      return { b, csrf, projectId }
    }

    const createRequest = async (app: { appId: string; privateKey: Key }, state = "st-1") =>
      await call("/v1/installation-requests", {
        method: "POST",
        key: null,
        json: { appId: app.appId, clientAssertion: await assertion(app.privateKey, app.appId), redirectUri: REDIRECT, state }
      })

    const redeem = async (app: { appId: string; privateKey: Key }, code: string, jwt?: string) =>
      await call("/v1/installation-requests/redeem", {
        method: "POST",
        key: null,
        json: { appId: app.appId, clientAssertion: jwt ?? await assertion(app.privateKey, app.appId, { aud: REDEEM_AUD }), code }
      })

    /** Approves through the console's form; answers the code from the redirect to the app. */
    const approveInConsole = async (c: { b: Browser; csrf: string; projectId: string }, requestId: string, permissions: Array<string>) => {
      const page = await c.b.fetch(`/console/installations/${requestId}`)
      expect(page.res.status, page.text).toBe(200)
      const r = await c.b.fetch(`/console/installations/${requestId}/approve`, {
        method: "POST",
        form: { _csrf: csrfOf(page.text), projectId: c.projectId, permissions }
      })
      expect(r.res.status, r.text).toBe(303)
      const to = new URL(r.res.headers.get("location")!)
      expect(`${to.origin}${to.pathname}`).toBe("https://app.example/installed")
      expect(to.searchParams.get("tenant")).toBe("7")
      return to
    }

    it("the whole flow: request, console approval (CSRF-checked), one delivery of a working key, then only the status", async () => {
      const app = await registeredApp()
      const created = await createRequest(app, "state-xyz")
      expect(created.res.status, created.text).toBe(201)
      expect(created.body).toMatchObject({ appId: app.appId, redirectUri: REDIRECT, state: "state-xyz" })
      expect(created.body.requestId).toMatch(/^sb_air_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      expect(created.body.appVersion).toMatch(/^[1-9][0-9]*$/)
      const requestId = created.body.requestId as string

      const c = await customer("installer")
      const page = await c.b.fetch(`/console/installations/${requestId}`)
      expect(page.res.status).toBe(200)
      expect(page.text).toContain("Acme Sync asks to be installed")
      const listed = await c.b.fetch("/console/installations")
      expect(listed.text).toContain(requestId)
      // Another account does not see a request someone opened.
      const other = await signedUp(server, "other")
      expect((await other.browser.fetch(`/console/installations/${requestId}`)).res.status).toBe(404)
      expectEnvelopeError(await other.browser.fetch(`/api/installation-requests/${requestId}`), 404, "INSTALLATION_REQUEST_NOT_FOUND")
      // A form without the session's CSRF token is refused and decides nothing.
      const forged = await c.b.fetch(`/console/installations/${requestId}/approve`, {
        method: "POST",
        form: { _csrf: "forged-token-forged-token-forged-token", projectId: c.projectId, permissions: ["events:read"] }
      })
      expect(forged.res.status).toBe(403)
      expect(expectData(await c.b.fetch(`/api/installation-requests/${requestId}`)).status).toBe("pending")

      const to = await approveInConsole(c, requestId, ["events:read"])
      expect(to.searchParams.get("state")).toBe("state-xyz")
      const code = to.searchParams.get("code")!
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect((await c.b.fetch("/console/installations")).text).not.toContain(requestId)

      const delivered = await redeem(app, code)
      expect(delivered.res.status, delivered.text).toBe(200)
      expect(delivered.res.headers.get("cache-control")).toBe("no-store")
      expect(delivered.body.status).toBe("created")
      expect(delivered.body.installationId).toMatch(/^sb_ain_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      expect(delivered.body.clientId).toMatch(/^client_[A-Za-z0-9]+$/)
      expect(delivered.body.clientSecret).toMatch(/^sb_sk_/)
      // The credential works on the approved project, with the approved permission.
      const used = await call(`/v1/projects/${c.projectId}/webhooks/destinations`, { key: delivered.body.clientSecret })
      expect(used.res.status, used.text).toBe(200)

      // A second redemption shows the status, never the credential again.
      const again = await redeem(app, code)
      expect(again.res.status).toBe(200)
      expect(again.body).toEqual({ installationId: delivered.body.installationId, status: "delivery_consumed" })
      expect(again.text).not.toContain(delivered.body.clientSecret)
      // Once the customer revokes the key, the status says so.
      const keys = await c.b.fetch(`/console/projects/${c.projectId}/keys`)
      const apiKeyId = /name="apiKeyId" value="([^"]+)"/.exec(keys.text)![1]!
      const revoked = await c.b.fetch(`/console/projects/${c.projectId}/keys/revoke`, { method: "POST", form: { _csrf: csrfOf(keys.text), apiKeyId } })
      expect(revoked.res.status).toBe(303)
      expect((await redeem(app, code)).body.status).toBe("revoked")
    })

    it("races: one assertion sent twice at once is accepted once; one code redeemed twice at once delivers once", async () => {
      const app = await registeredApp()
      const jwt = await assertion(app.privateKey, app.appId)
      const body = { appId: app.appId, clientAssertion: jwt, redirectUri: REDIRECT, state: "race" }
      const raced = await Promise.all([1, 2].map(() => call("/v1/installation-requests", { method: "POST", key: null, json: body })))
      expect(raced.map((r) => r.res.status).sort()).toEqual([201, 409])
      const requestId = raced.find((r) => r.res.status === 201)!.body.requestId as string
      const c = await customer("racer")
      const code = (await approveInConsole(c, requestId, ["project:read"])).searchParams.get("code")!
      const redeemed = await Promise.all([1, 2].map(() => redeem(app, code)))
      expect(redeemed.map((r) => r.body.status).sort()).toEqual(["created", "delivery_consumed"])
      expect(redeemed.filter((r) => r.body.clientSecret !== undefined)).toHaveLength(1)
    })

    it("refuses each bad assertion with its problem and records nothing", async () => {
      const app = await registeredApp()
      const create = async (clientAssertion: string, appId = app.appId) =>
        await call("/v1/installation-requests", { method: "POST", key: null, json: { appId, clientAssertion, redirectUri: REDIRECT, state: "s" } })
      const now = Math.floor(Date.now() / 1000)
      const invalid = async (jwt: string, appId?: string) => {
        const r = await create(jwt, appId)
        expectProblem(r, 401, "APP_INSTALLATION_ASSERTION_INVALID")
        expect(r.res.headers.get("www-authenticate")).toContain("Bearer")
        return r.body.detail as string
      }
      // The problem's page tells the app what to fix (not to send a bearer credential).
      const page = await fetch(`${s.baseUrl}/problems/app-installation-assertion-invalid`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain("client assertion")
      // Valid once; the same assertion again is a replay.
      const once = await assertion(app.privateKey, app.appId)
      expect((await create(once)).res.status).toBe(201)
      expectProblem(await create(once), 409, "APP_INSTALLATION_ASSERTION_REPLAYED")
      expect(await invalid(await assertion(app.privateKey, app.appId, { exp: now - 120 }))).toContain("expired")
      expect(await invalid(await assertion(app.privateKey, app.appId, { exp: now + 3600 }))).toContain("within 300 seconds")
      expect(await invalid(await assertion(app.privateKey, app.appId, { aud: "https://elsewhere.example" }))).toContain("aud")
      expect(await invalid(await assertion(app.privateKey, app.appId, { iss: "sb_app_someoneelse" }))).toContain("iss")
      const stranger = await generateKeyPair("EdDSA", { extractable: true })
      expect(await invalid(await assertion(stranger.privateKey, app.appId))).toContain("not signed by a key the app registered")
      const unknown = "sb_app_0000000000000000000000000z"
      expect(await invalid(await assertion(app.privateKey, unknown), unknown)).toContain("no such app")
      expect(await invalid("not-a-jwt")).toContain("not a valid signed JWT")
      // An app without keys cannot authenticate.
      const dev = await signedUp(server, "keyless")
      const keyless = expectData(await dev.browser.fetch("/api/oauth-apps", {
        method: "POST",
        headers: xhr,
        json: { name: "Keyless", redirectUris: [REDIRECT], clientType: "public", scopes: ["openid"] }
      })).app.clientId as string
      expect(await invalid(await assertion(app.privateKey, keyless), keyless)).toContain("no keys")
      // A redirect URI the app did not register.
      const r = await call("/v1/installation-requests", {
        method: "POST",
        key: null,
        json: { appId: app.appId, clientAssertion: await assertion(app.privateKey, app.appId), redirectUri: "https://evil.example/cb", state: "s" }
      })
      expectProblem(r, 422, "VALIDATION_FAILED")
      // Bounded input.
      expectProblem(
        await call("/v1/installation-requests", { method: "POST", key: null, json: { appId: app.appId, clientAssertion: "x".repeat(16385), redirectUri: REDIRECT, state: "s" } }),
        422,
        "VALIDATION_FAILED"
      )
      // The redeem endpoint checks its own audience and the code.
      expectProblem(await redeem(app, "A".repeat(43), await assertion(app.privateKey, app.appId, { aud: CREATE_AUD + "/other" })), 401, "APP_INSTALLATION_ASSERTION_INVALID")
      expectProblem(await redeem(app, "A".repeat(43)), 409, "APP_INSTALLATION_DELIVERY_UNAVAILABLE")
    })

    it("refuses key sets that are not public signing keys", async () => {
      const app = await registeredApp()
      const { privateKey } = await generateKeyPair("EdDSA", { extractable: true })
      const put = async (keys: unknown) => await app.dev.fetch(`/api/oauth-apps/${app.appId}/jwks`, { method: "PUT", headers: xhr, json: { keys } })
      expectEnvelopeError(await put([await exportJWK(privateKey)]), 422)
      expectEnvelopeError(await put([{ kty: "oct", k: "c2VjcmV0" }]), 422)
      expectEnvelopeError(await put([]), 422)
      expectEnvelopeError(await put([{ kty: "EC", crv: "P-256", x: "AAAA", y: "AAAA" }]), 422)
      // Another account cannot see or set them.
      const other = await signedUp(server, "intruder")
      expectEnvelopeError(await other.browser.fetch(`/api/oauth-apps/${app.appId}/jwks`), 404)
      // The registered key still works.
      expect((await createRequest(app)).res.status).toBe(201)
      // The console's keys page (linked from the OAuth apps page) shows and replaces the set.
      expect((await app.dev.fetch("/console/account/apps")).text).toContain(`/console/account/apps/${app.appId}/keys`)
      const page = await app.dev.fetch(`/console/account/apps/${app.appId}/keys`)
      expect(page.res.status).toBe(200)
      expect(page.text).toContain("&quot;kid&quot;: &quot;k1&quot;")
      const post = (jwks: string, csrf = csrfOf(page.text)) => app.dev.fetch(`/console/account/apps/${app.appId}/keys`, { method: "POST", form: { _csrf: csrf, jwks } })
      const notJson = await post("{not json")
      expect(notJson.res.status).toBe(422)
      expect(notJson.text).toContain("jwks: must be JSON")
      expect((await post(JSON.stringify({ keys: [await exportJWK(privateKey)] }))).res.status).toBe(422)
      expect((await post(JSON.stringify({ keys: [] }), "forged-token-forged-token-forged-token")).res.status).toBe(403)
      const next = await generateKeyPair("ES256", { extractable: true })
      const saved = await post(JSON.stringify({ keys: [{ ...(await exportJWK(next.publicKey)), kid: "k2" }] }))
      expect(saved.res.status, saved.text).toBe(303)
      expect((await app.dev.fetch(`/console/account/apps/${app.appId}/keys`)).text).toContain("&quot;kid&quot;: &quot;k2&quot;")
      // The old key no longer authenticates; the new one does.
      expectProblem(await createRequest(app), 401, "APP_INSTALLATION_ASSERTION_INVALID")
      const jwt = await assertion(next.privateKey, app.appId, { alg: "ES256" })
      expect((await call("/v1/installation-requests", { method: "POST", key: null, json: { appId: app.appId, clientAssertion: jwt, redirectUri: REDIRECT, state: "s" } })).res.status).toBe(201)
      expect((await other.browser.fetch(`/console/account/apps/${app.appId}/keys`)).res.status).toBe(404)
    })

    it("a denial, a changed app and the Dashboard API's approval", async () => {
      const app = await registeredApp()
      const c = await customer("decider")
      // Denied in the console: the app is told access_denied, and nothing can be redeemed.
      const denied = (await createRequest(app, "deny-me")).body.requestId as string
      const page = await c.b.fetch(`/console/installations/${denied}`)
      const d = await c.b.fetch(`/console/installations/${denied}/deny`, { method: "POST", form: { _csrf: csrfOf(page.text) } })
      expect(d.res.status).toBe(303)
      const to = new URL(d.res.headers.get("location")!)
      expect(to.searchParams.get("error")).toBe("access_denied")
      expect(to.searchParams.get("state")).toBe("deny-me")
      expect(to.searchParams.get("code")).toBeNull()
      expectEnvelopeError(
        await c.b.fetch(`/api/installation-requests/${denied}/approve`, { method: "POST", headers: xhr, json: { projectId: c.projectId, permissions: ["project:read"] } }),
        409,
        "INSTALLATION_REQUEST_DECIDED"
      )

      // Approved through the Dashboard API (listed first), then the app's settings change: no delivery.
      const requestId = (await createRequest(app, "api")).body.requestId as string
      expect(expectData(await c.b.fetch(`/api/installation-requests/${requestId}`)).status).toBe("pending")
      expect(expectData(await c.b.fetch("/api/installation-requests")).map((r: { requestId: string }) => r.requestId)).toContain(requestId)
      const decision = expectData(await c.b.fetch(`/api/installation-requests/${requestId}/approve`, {
        method: "POST",
        headers: xhr,
        json: { projectId: c.projectId, permissions: ["project:read"] }
      }))
      expect(decision.status).toBe("approved")
      const code = new URL(decision.redirectTo).searchParams.get("code")!
      await new Promise((r) => setTimeout(r, 5))
      expectData(await app.dev.fetch(`/api/oauth-apps/${app.appId}`, { method: "PATCH", headers: xhr, json: { name: "Acme Sync 2" } }))
      expectProblem(await redeem(app, code), 409, "APP_INSTALLATION_CONFIG_CHANGED")
      // A request made after the change is approvable again, but one made before is not.
      const stale = (await createRequest(app, "stale")).body.requestId as string
      await c.b.fetch(`/api/installation-requests/${stale}`)
      await new Promise((r) => setTimeout(r, 5))
      expectData(await app.dev.fetch(`/api/oauth-apps/${app.appId}`, { method: "PATCH", headers: xhr, json: { name: "Acme Sync 3" } }))
      expectEnvelopeError(
        await c.b.fetch(`/api/installation-requests/${stale}/approve`, { method: "POST", headers: xhr, json: { projectId: c.projectId, permissions: ["project:read"] } }),
        409,
        "APP_INSTALLATION_CONFIG_CHANGED"
      )
      // A project the customer cannot write is refused.
      const fresh = (await createRequest(app, "foreign")).body.requestId as string
      await c.b.fetch(`/api/installation-requests/${fresh}`)
      const stranger = await customer("stranger")
      expectEnvelopeError(
        await c.b.fetch(`/api/installation-requests/${fresh}/approve`, { method: "POST", headers: xhr, json: { projectId: stranger.projectId, permissions: ["project:read"] } }),
        404
      )
    })
  })
}
