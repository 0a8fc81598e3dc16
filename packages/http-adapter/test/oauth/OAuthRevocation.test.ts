/**
 * Revocation across server processes (docs/api-notes/oauth.md: within
 * about a minute; docs/api-notes/credentials.md): two servers on one database, as two processes
 * would be. Server B has verified (and cached, for up to CREDENTIAL_CACHE_SECONDS = 60) a JWT
 * access token of a grant; the grant is withdrawn through server A; B refuses the token long before
 * its cache would expire, because A announced the revocation (`pg_notify` on PostgreSQL; in-process
 * on the shared PGlite).
 */
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CALLBACK, CHALLENGE, formPost as form, hiddenFields, newApp, newUser, sessionCookie, VERIFIER } from "../support/OAuthServer.js"
import { startTestServers, type TestServer } from "../support/TestServer.js"

/** The default configuration's API_URL (makeServerConfig). */
const API = "http://127.0.0.1"

for (const backend of testBackends()) {
  describe(`OAuth revocation across servers (${backend})`, () => {
    let cluster: Awaited<ReturnType<typeof startTestServers>>
    let a: TestServer
    let b: TestServer
    beforeAll(async () => {
      cluster = await startTestServers(backend, 2, { credentialCacheSeconds: 60 })
      a = cluster.servers[0]!
      b = cluster.servers[1]!
    })
    afterAll(() => cluster.close())

    it("a JWT access token cached by server B stops working there soon after the grant is withdrawn on server A", async () => {
      const user = await newUser(a)
      const app = await newApp(a, user.accountId, { redirectUris: [CALLBACK], scopes: ["openid", "projects:read"] })
      const cookie = await sessionCookie(a, user.accountId)
      const query = new URLSearchParams({
        response_type: "code",
        client_id: app.clientId,
        redirect_uri: CALLBACK,
        scope: "openid projects:read",
        nonce: "n-0S6_WzA2Mj",
        code_challenge: CHALLENGE,
        code_challenge_method: "S256",
        resource: API
      })
      const page = await fetch(`${a.baseUrl}/api/auth/oauth2/authorize?${query}`, { headers: { cookie }, redirect: "manual" })
      expect(page.status).toBe(200)
      const approved = await fetch(`${a.baseUrl}/api/auth/oauth2/consent`, form({ ...hiddenFields(await page.text()), decision: "approve" }, { cookie }))
      const code = new URL(approved.headers.get("location")!).searchParams.get("code")!
      const tokens = await fetch(`${a.baseUrl}/api/auth/oauth2/token`, form({
        grant_type: "authorization_code",
        code,
        redirect_uri: CALLBACK,
        code_verifier: VERIFIER,
        client_id: app.clientId,
        client_secret: app.secret!
      }))
      const jwt = (await tokens.json() as { access_token: string }).access_token
      const onB = () => fetch(`${b.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${jwt}` } })
      expect((await onB()).status).toBe(200)

      const withdrawn = await fetch(`${a.baseUrl}/v1/account/oauth/authorized-applications/${app.clientId}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${user.serviceKey}` }
      })
      expect(withdrawn.status).toBe(204)
      // B's cache would keep the grant for 60 s; the announcement drops it (waiting at most 15 s here).
      let status = 200
      for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
        status = (await onB()).status
        if (status !== 200) break
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(status).toBe(401)
    })
  })
}
