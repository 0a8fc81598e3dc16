/**
 * Introspection of opaque access tokens answered from memory (core
 * `OAuthTokenCache`) stays exact: two servers on one database, as two processes would be, both
 * with a 60 s credential cache, both having introspected (and so cached) the token. Whatever makes
 * the token dead on server A — RFC 7009 revocation of the token, reuse of a rotated-out refresh
 * token (its family), withdrawal of the grant, deletion of the account — A answers
 * `{"active":false}` on the very next request, and B long before its cache would expire (the
 * revocation is announced: `pg_notify` on PostgreSQL, in-process on the shared PGlite; account
 * changes through the store's change announcements).
 */
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CALLBACK, CHALLENGE, formPost as form, hiddenFields, newApp, newUser, sessionCookie, VERIFIER } from "../support/OAuthServer.js"
import { startTestServers, type TestServer } from "../support/TestServer.js"

interface Tokens {
  readonly access_token: string
  readonly refresh_token: string
}

for (const backend of testBackends()) {
  describe(`OAuth introspection cache across servers (${backend})`, () => {
    let cluster: Awaited<ReturnType<typeof startTestServers>>
    let a: TestServer
    let b: TestServer
    beforeAll(async () => {
      cluster = await startTestServers(backend, 2, { credentialCacheSeconds: 60 })
      a = cluster.servers[0]!
      b = cluster.servers[1]!
    })
    afterAll(() => cluster.close())

    /** An account, a confidential app and one code flow on A: the tokens and how to use them. */
    const issue = async () => {
      const user = await newUser(a)
      const app = await newApp(a, user.accountId, { redirectUris: [CALLBACK], scopes: ["openid", "offline_access"] })
      const cookie = await sessionCookie(a, user.accountId)
      const query = new URLSearchParams({
        response_type: "code",
        client_id: app.clientId,
        redirect_uri: CALLBACK,
        scope: "openid offline_access",
        code_challenge: CHALLENGE,
        code_challenge_method: "S256"
      })
      const page = await fetch(`${a.baseUrl}/api/auth/oauth2/authorize?${query}`, { headers: { cookie }, redirect: "manual" })
      expect(page.status).toBe(200)
      const approved = await fetch(`${a.baseUrl}/api/auth/oauth2/consent`, form({ ...hiddenFields(await page.text()), decision: "approve" }, { cookie }))
      const code = new URL(approved.headers.get("location")!).searchParams.get("code")!
      const client = { client_id: app.clientId, client_secret: app.secret! }
      const exchanged = await fetch(`${a.baseUrl}/api/auth/oauth2/token`, form({
        grant_type: "authorization_code",
        code,
        redirect_uri: CALLBACK,
        code_verifier: VERIFIER,
        ...client
      }))
      expect(exchanged.status).toBe(200)
      const tokens = await exchanged.json() as Tokens
      expect(tokens.access_token).toMatch(/^sb_oat_/)
      const introspect = async (server: TestServer, token = tokens.access_token) => {
        const res = await fetch(`${server.baseUrl}/api/auth/oauth2/introspect`, form({ token, ...client }))
        expect(res.status).toBe(200)
        return (await res.json() as { active: boolean }).active
      }
      const post = (server: TestServer, path: string, fields: Record<string, string>) =>
        fetch(`${server.baseUrl}/api/auth/oauth2/${path}`, form({ ...fields, ...client }))
      // Both servers have seen (and cached) the live token; twice, so B's second answer is a cached one.
      for (const server of [a, b, a, b]) expect(await introspect(server)).toBe(true)
      return { user, app, tokens, introspect, post }
    }

    /** B's answer turns inactive well before its 60 s cache would expire. */
    const inactiveSoonOnB = async (introspect: (s: TestServer) => Promise<boolean>) => {
      let active = true
      for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
        active = await introspect(b)
        if (!active) break
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(active).toBe(false)
    }

    it("revoking the access token (RFC 7009) on A: inactive on A at once, on B soon", async () => {
      const t = await issue()
      expect((await t.post(a, "revoke", { token: t.tokens.access_token })).status).toBe(200)
      expect(await t.introspect(a)).toBe(false)
      await inactiveSoonOnB(t.introspect)
    })

    it("reusing a rotated-out refresh token on A revokes the family: the cached access token is inactive on A at once, on B soon", async () => {
      const t = await issue()
      const first = await t.post(a, "token", { grant_type: "refresh_token", refresh_token: t.tokens.refresh_token })
      expect(first.status).toBe(200)
      const next = await first.json() as Tokens
      expect(await t.introspect(b, next.access_token)).toBe(true)
      const reused = await t.post(a, "token", { grant_type: "refresh_token", refresh_token: t.tokens.refresh_token })
      expect(reused.status).toBe(400)
      expect(await t.introspect(a)).toBe(false)
      expect(await t.introspect(a, next.access_token)).toBe(false)
      await inactiveSoonOnB(t.introspect)
      await inactiveSoonOnB((s) => t.introspect(s, next.access_token))
    })

    it("withdrawing the grant on A: inactive on A at once, on B soon", async () => {
      const t = await issue()
      const withdrawn = await fetch(`${a.baseUrl}/v1/account/oauth/authorized-applications/${t.app.clientId}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${t.user.serviceKey}` }
      })
      expect(withdrawn.status).toBe(204)
      expect(await t.introspect(a)).toBe(false)
      await inactiveSoonOnB(t.introspect)
    })

    it("deleting the account on A: its tokens are inactive on A at once, on B soon", async () => {
      const t = await issue()
      const deleted = await fetch(`${a.baseUrl}/v1/account`, { method: "DELETE", headers: { authorization: `Bearer ${t.user.serviceKey}` } })
      expect(deleted.ok).toBe(true)
      expect(await t.introspect(a)).toBe(false)
      await inactiveSoonOnB(t.introspect)
    })
  })
}
