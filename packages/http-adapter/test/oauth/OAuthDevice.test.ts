/**
 * The device authorization grant (RFC 8628) end to end, on every backend: openid-client's
 * `initiateDeviceAuthorization` / `pollDeviceAuthorizationGrant` against a real server — through
 * the discovery metadata (`device_authorization_endpoint`, the OAuth token endpoint) and against the
 * contract's `/v1/auth/device/code` and `/v1/auth/device/token` — with the user's approval done over
 * HTTP on the `/device` page (the consent screen). Then the rules one by one: `authorization_pending`,
 * `slow_down` (+5 s), `access_denied`, `expired_token` (a code started with a 1 ms lifetime, no
 * sleeping), `invalid_grant` for a used code, user codes typed in any case, the CSRF binding and the
 * rate limit of code entry. The server polls at 1 s intervals (DEVICE_POLL_INTERVAL_SECONDS) so the
 * library's waits stay short.
 */
import { DeviceFlowPolicy, OAuthProvider } from "@switchboard/core/oauth"
import { testBackends } from "@switchboard/sql-adapter"
import { Effect, Option, Redacted } from "effect"
import * as client from "openid-client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { formPost, hiddenFields, newApp, newUser, type OAuthTestServer, sessionCookie, startOAuthServer } from "../support/OAuthServer.js"

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"

for (const backend of testBackends()) {
  describe(`device authorization grant (${backend})`, { timeout: 60_000 }, () => {
    let s: OAuthTestServer
    let user: Awaited<ReturnType<typeof newUser>>
    let cookie: string
    let cli: Awaited<ReturnType<typeof newApp>>
    beforeAll(async () => {
      s = await startOAuthServer(backend, { devicePollIntervalSeconds: 1 })
      user = await newUser(s)
      cookie = await sessionCookie(s, user.accountId)
      cli = await newApp(s, user.accountId, { name: "Switchboard CLI", redirectUris: ["https://rp.example/unused"], clientType: "public" })
    })
    afterAll(() => s.close())

    const json = (body: Record<string, string>) => ({
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    const v1Code = async (body: Record<string, string> = { client_id: cli.clientId }) => {
      const res = await fetch(`${s.baseUrl}/v1/auth/device/code`, json(body))
      return { status: res.status, body: await res.json() as Record<string, any> }
    }
    const v1Token = async (body: Record<string, string>) => {
      const res = await fetch(`${s.baseUrl}/v1/auth/device/token`, json(body))
      expect(res.headers.get("cache-control")).toBe("no-store")
      return { status: res.status, body: await res.json() as Record<string, any> }
    }
    const poll = (deviceCode: string) => v1Token({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: cli.clientId })

    /** Opens the verification page for `url` with the session, and answers the consent screen. */
    const answer = async (url: string, decision: "approve" | "deny" = "approve", withCookie = cookie) => {
      const page = await fetch(url, { headers: { cookie: withCookie }, redirect: "manual" })
      const html = await page.text()
      expect(page.status, html.slice(0, 300)).toBe(200)
      expect(html).toContain("wants to access your Switchboard account")
      const res = await fetch(`${s.baseUrl}/device`, formPost({ ...hiddenFields(html), decision }, { cookie: withCookie }))
      return { status: res.status, html: await res.text(), fields: hiddenFields(html) }
    }

    it("discovery advertises the device authorization endpoint and grant type", async () => {
      const res = await fetch(`${s.baseUrl}/.well-known/oauth-authorization-server/api/auth`)
      const metadata = await res.json() as Record<string, any>
      expect(metadata.device_authorization_endpoint).toBe(`${s.issuer}/oauth2/device_authorization`)
      expect(metadata.grant_types_supported).toContain(DEVICE_GRANT)
    })

    it("openid-client through discovery: initiate, the user approves on /device, the poll gets tokens once; refresh rotates", async () => {
      const config = await client.discovery(new URL(s.issuer), cli.clientId, undefined, client.None(), {
        algorithm: "oauth2",
        execute: [client.allowInsecureRequests]
      })
      const started = await client.initiateDeviceAuthorization(config, { scope: "openid email offline_access projects:read" })
      expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/)
      expect(started.verification_uri).toBe(`${s.baseUrl}/device`)
      expect(started.verification_uri_complete).toBe(`${s.baseUrl}/device?user_code=${started.user_code}`)
      expect(started.interval).toBe(1)
      expect(started.expires_in).toBe(600)
      const approved = await answer(started.verification_uri_complete!)
      expect(approved.html).toContain("Switchboard CLI")
      expect(approved.fields.user_code).toBe(started.user_code)
      expect(approved.status).toBe(200)
      expect(approved.html).toContain("Device connected")

      const tokens = await client.pollDeviceAuthorizationGrant(config, started)
      expect(tokens.access_token).toMatch(/^sb_oat_/)
      expect(tokens.scope).toBe("openid email offline_access projects:read")
      expect(tokens.claims()?.sub).toBe(user.accountId)
      expect(tokens.claims()?.email).toBe(user.email)
      expect((await client.fetchUserInfo(config, tokens.access_token, user.accountId)).email).toBe(user.email)

      // Issued once: polling again with the same device code is invalid_grant.
      const again = await client.pollDeviceAuthorizationGrant(config, started).catch((e: unknown) => e)
      expect(again).toBeInstanceOf(client.ResponseBodyError)
      expect((again as client.ResponseBodyError).error).toBe("invalid_grant")

      const next = await client.refreshTokenGrant(config, tokens.refresh_token!)
      expect(next.refresh_token).not.toBe(tokens.refresh_token)
      const reuse = await client.refreshTokenGrant(config, tokens.refresh_token!).catch((e: unknown) => e)
      expect((reuse as client.ResponseBodyError).error).toBe("invalid_grant")
    })

    it("openid-client against /v1/auth/device/code and /token: tokens for the API with the user; refresh rotates through /v1", async () => {
      const config = new client.Configuration(
        {
          issuer: s.issuer,
          device_authorization_endpoint: `${s.baseUrl}/v1/auth/device/code`,
          token_endpoint: `${s.baseUrl}/v1/auth/device/token`,
          // The app may ask for openid, so an id_token comes along: EdDSA, as discovery says.
          id_token_signing_alg_values_supported: ["EdDSA"]
        },
        cli.clientId,
        undefined,
        client.None()
      )
      client.allowInsecureRequests(config)
      const started = await client.initiateDeviceAuthorization(config, {})
      // Typed in lower case without the dash: the same code.
      const typed = started.user_code.replace("-", "").toLowerCase()
      await answer(`${s.baseUrl}/device?user_code=${typed}`)
      const tokens = await client.pollDeviceAuthorizationGrant(config, started)
      expect(tokens.token_type).toBe("bearer")
      expect(tokens.refresh_token).toMatch(/^sb_ort_/)
      expect(tokens.user).toEqual({ id: user.accountId, email: user.email, first_name: null, last_name: null })
      // A JWT for the API: it works on /v1 as the user.
      const account = await fetch(`${s.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
      expect(account.status).toBe(200)
      expect((await account.json() as { accountId: string }).accountId).toBe(user.accountId)

      const refreshed = await v1Token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: cli.clientId })
      expect(refreshed.status).toBe(200)
      expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token)
      expect(refreshed.body.user.id).toBe(user.accountId)
      const reuse = await v1Token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: cli.clientId })
      expect(reuse).toMatchObject({ status: 400, body: { error: "invalid_grant" } })
      // The whole family went with the reuse.
      const dead = await v1Token({ grant_type: "refresh_token", refresh_token: refreshed.body.refresh_token, client_id: cli.clientId })
      expect(dead.body.error).toBe("invalid_grant")
    })

    it("pending, then slow_down when polled sooner than the interval (+5 s each time), form bodies too", async () => {
      const started = await v1Code()
      expect(started.status).toBe(200)
      expect(Object.keys(started.body).sort()).toEqual(["device_code", "expires_in", "interval", "user_code", "verification_uri", "verification_uri_complete"])
      const first = await poll(started.body.device_code)
      expect(first).toMatchObject({ status: 400, body: { error: "authorization_pending" } })
      expect(typeof first.body.error_description).toBe("string")
      const fast = await poll(started.body.device_code)
      expect(fast).toMatchObject({ status: 400, body: { error: "slow_down" } })
      expect(fast.body.error_description).toContain("6 seconds")
      const form = await fetch(`${s.baseUrl}/v1/auth/device/token`, formPost({ grant_type: DEVICE_GRANT, device_code: started.body.device_code, client_id: cli.clientId }))
      const faster = await form.json() as Record<string, string>
      expect(faster.error).toBe("slow_down")
      expect(faster.error_description).toContain("11 seconds")
    })

    it("denied on the consent screen: access_denied; a second answer finds the code gone", async () => {
      const started = await v1Code()
      const denied = await answer(started.body.verification_uri_complete, "deny")
      expect(denied.html).toContain("Request denied")
      expect(await poll(started.body.device_code)).toMatchObject({ status: 400, body: { error: "access_denied" } })
      // The same form again (approve this time): the code is decided.
      const replay = await fetch(`${s.baseUrl}/device`, formPost({ ...denied.fields, decision: "approve" }, { cookie }))
      expect(replay.status).toBe(400)
      expect(await replay.text()).toContain("not valid")
    })

    it("expired: expired_token on the poll, and the page no longer knows the code", async () => {
      const started = await s.run(Effect.gen(function*() {
        const provider = yield* OAuthProvider
        const app = Option.getOrThrow(yield* provider.findClient(cli.clientId))
        return yield* provider.startDevice({ client: app }).pipe(Effect.provideService(DeviceFlowPolicy, { lifetimeMs: 1, intervalSeconds: 1 }))
      }))
      await new Promise((resolve) => setTimeout(resolve, 5))
      expect(await poll(Redacted.value(started.deviceCode))).toMatchObject({ status: 400, body: { error: "expired_token" } })
      const page = await fetch(`${s.baseUrl}/device?user_code=${started.userCode}`, { headers: { cookie } })
      expect(page.status).toBe(400)
      expect(await page.text()).toContain("not valid, has expired")
    })

    it("refusals: unknown device code, another client's code, no client, unknown scope, unsupported grant", async () => {
      expect(await poll("sb_odc_nope")).toMatchObject({ status: 400, body: { error: "invalid_grant" } })
      const other = await newApp(s, user.accountId, { redirectUris: ["https://rp.example/x"], clientType: "public" })
      const started = await v1Code({ client_id: other.clientId })
      expect(await poll(started.body.device_code)).toMatchObject({ status: 400, body: { error: "invalid_grant" } })
      // No client_id and no DEVICE_CLIENT_ID on this server.
      expect(await v1Code({})).toMatchObject({ status: 400, body: { error: "invalid_client" } })
      expect(await v1Code({ client_id: "sb_oauth_nope" })).toMatchObject({ status: 400, body: { error: "invalid_client" } })
      expect(await v1Code({ client_id: cli.clientId, scope: "projects:read nonsense" })).toMatchObject({ status: 400, body: { error: "invalid_scope" } })
      expect(await v1Token({ grant_type: "password", client_id: cli.clientId })).toMatchObject({ status: 400, body: { error: "unsupported_grant_type" } })
      expect(await v1Token({ grant_type: DEVICE_GRANT, client_id: cli.clientId })).toMatchObject({ status: 400, body: { error: "invalid_request" } })
      // The OAuth endpoint authenticates the client like the token endpoint does.
      const noClient = await fetch(`${s.issuer}/oauth2/device_authorization`, formPost({ scope: "openid" }))
      expect(noClient.status).toBe(401)
      expect((await noClient.json() as Record<string, string>).error).toBe("invalid_client")
    })

    it("the verification page: sign-in first, a form without a code, a forged answer refused, code entry rate limited", async () => {
      const signedOut = await fetch(`${s.baseUrl}/device?user_code=BCDF-GHJK`, { redirect: "manual" })
      expect(signedOut.status).toBe(303)
      expect(signedOut.headers.get("location")).toBe(`/sign-in?returnTo=${encodeURIComponent("/device?user_code=BCDF-GHJK")}`)
      const blank = await fetch(`${s.baseUrl}/device`, { headers: { cookie } })
      expect(blank.status).toBe(200)
      expect(await blank.text()).toContain("name=\"user_code\"")

      const started = await v1Code()
      const page = await fetch(started.body.verification_uri_complete, { headers: { cookie } })
      const fields = hiddenFields(await page.text())
      const forged = await fetch(`${s.baseUrl}/device`, formPost({ ...fields, proof: "x".repeat(43), decision: "approve" }, { cookie }))
      expect(forged.status).toBe(403)
      // Another session cannot answer this session's screen.
      const other = await newUser(s)
      const otherCookie = await sessionCookie(s, other.accountId)
      const stolen = await fetch(`${s.baseUrl}/device`, formPost({ ...fields, decision: "approve" }, { cookie: otherCookie }))
      expect(stolen.status).toBe(403)
      expect(await poll(started.body.device_code)).toMatchObject({ body: { error: "authorization_pending" } })

      // 20 lookups per 5 minutes per account; the 21st is refused even for a real code.
      const guesser = await newUser(s)
      const guesserCookie = await sessionCookie(s, guesser.accountId)
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${s.baseUrl}/device?user_code=BCDF-GHJ${"BCDFGHJKLMNPQRSTVWXZ"[i]}`, { headers: { cookie: guesserCookie } })
        expect(res.status).toBe(400)
        await res.arrayBuffer()
      }
      const limited = await fetch(started.body.verification_uri_complete, { headers: { cookie: guesserCookie } })
      expect(limited.status).toBe(429)
      expect(await limited.text()).toContain("Too many codes")
    })
  })
}
