/**
 * Independent OAuth clients drive the real server end to end (docs/api-notes/oauth.md):
 * openid-client v6 and oauth4webapi v3 go through discovery, authorization (sign-in and consent
 * done over HTTP with a cookie jar), the code exchange with id_token verification (EdDSA, from the
 * JWKS), userinfo, refresh rotation and reuse detection, introspection and revocation — as a
 * confidential client with HTTP Basic, one with credentials in the body, and a public client.
 *
 * The test server runs over plain http on 127.0.0.1, which both libraries refuse by default:
 * openid-client gets `execute: [allowInsecureRequests]` and oauth4webapi
 * `[allowInsecureRequests]: true` on every request. Discovery uses `algorithm: 'oauth2'`, because
 * our metadata lives at the path-insertion URL `/.well-known/oauth-authorization-server/api/auth`
 * (the default `oidc` algorithm fetches the appended form, which is a 404 by the spec).
 */
import { testBackends } from "@switchboard/sql-adapter"
import * as oauth from "oauth4webapi"
import * as client from "openid-client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CookieJar, driveAuthorization, newApp, newUser, type OAuthTestServer, startOAuthServer } from "../support/OAuthServer.js"

const CALLBACK = "https://rp.example/callback"
const SCOPE = "openid profile email offline_access projects:read"

for (const backend of testBackends()) {
  describe(`OAuth provider with independent clients (${backend})`, () => {
    let s: OAuthTestServer
    let user: Awaited<ReturnType<typeof newUser>>
    beforeAll(async () => {
      s = await startOAuthServer(backend)
      user = await newUser(s)
    })
    afterAll(() => s.close())

    /**
     * Authorizes through the sign-in page and (the first time an app asks) the consent screen; the
     * callback URL. Consent is remembered per grant: a later request for the same scopes skips it.
     */
    const authorize = async (url: URL, consent = true) => {
      const { callback, sawConsent, sawSignIn } = await driveAuthorization(s.baseUrl, url.toString(), new CookieJar(), {
        credentials: { email: user.email, password: user.password }
      })
      expect(sawSignIn).toBe(true)
      expect(sawConsent).toBe(consent)
      expect(callback.startsWith(`${CALLBACK}?`)).toBe(true)
      return new URL(callback)
    }

    const openidClientFlow = async (config: client.Configuration, clientId: string) => {
      const verifier = client.randomPKCECodeVerifier()
      const state = client.randomState()
      const nonce = client.randomNonce()
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: CALLBACK,
        scope: SCOPE,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state,
        nonce
      })
      const callback = await authorize(url)
      // Checks iss, state, PKCE, nonce and the EdDSA id_token against the JWKS.
      const tokens = await client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true
      })
      const claims = tokens.claims()!
      expect(claims.sub).toBe(user.accountId)
      expect(claims.aud).toBe(clientId)
      expect(claims.email).toBe(user.email)
      expect(tokens.expires_in).toBe(3600)
      expect(tokens.scope).toBe(SCOPE)
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub)
      expect(info).toMatchObject({ sub: user.accountId, email: user.email, email_verified: false })

      // Rotation: a new refresh token; the old one, used again, revokes the family.
      const next = await client.refreshTokenGrant(config, tokens.refresh_token!)
      expect(next.refresh_token).not.toBe(tokens.refresh_token)
      expect(next.claims()!.sub).toBe(user.accountId)
      expect((await client.tokenIntrospection(config, next.access_token)).active).toBe(true)
      const reuse = await client.refreshTokenGrant(config, tokens.refresh_token!).catch((e: unknown) => e)
      expect(reuse).toBeInstanceOf(client.ResponseBodyError)
      expect((reuse as client.ResponseBodyError).error).toBe("invalid_grant")
      expect((reuse as client.ResponseBodyError).status).toBe(400)
      expect(await client.tokenIntrospection(config, next.access_token)).toEqual({ active: false })

      // Revocation: a fresh grant's refresh token revoked takes its access token along; unknown tokens are fine.
      const again = await client.authorizationCodeGrant(config, await authorize(client.buildAuthorizationUrl(config, {
        redirect_uri: CALLBACK,
        scope: SCOPE,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state
      }), false), { pkceCodeVerifier: verifier, expectedState: state })
      expect((await client.tokenIntrospection(config, again.access_token)).active).toBe(true)
      await client.tokenRevocation(config, again.refresh_token!, { token_type_hint: "refresh_token" })
      expect((await client.tokenIntrospection(config, again.access_token)).active).toBe(false)
      await client.tokenRevocation(config, "sb_oat_unknown")
    }

    it("openid-client, confidential client with HTTP Basic (client_secret_basic)", async () => {
      const { clientId, secret } = await newApp(s, user.accountId, { redirectUris: [CALLBACK] })
      // The secret has '_' characters, which ClientSecretBasic percent-encodes: the server form-URL-decodes them.
      expect(secret).toMatch(/_/)
      const config = await client.discovery(new URL(s.issuer), clientId, undefined, client.ClientSecretBasic(secret!), {
        algorithm: "oauth2",
        execute: [client.allowInsecureRequests]
      })
      expect(config.serverMetadata().issuer).toBe(s.issuer)
      await openidClientFlow(config, clientId)
    })

    it("openid-client, confidential client with the secret in the body (client_secret_post)", async () => {
      const { clientId, secret } = await newApp(s, user.accountId, { redirectUris: [CALLBACK] })
      const config = await client.discovery(new URL(s.issuer), clientId, undefined, client.ClientSecretPost(secret!), {
        algorithm: "oauth2",
        execute: [client.allowInsecureRequests]
      })
      await openidClientFlow(config, clientId)
    })

    it("openid-client, public client (PKCE only, no secret)", async () => {
      const { clientId, secret } = await newApp(s, user.accountId, { redirectUris: [CALLBACK], clientType: "public" })
      expect(secret).toBeUndefined()
      const config = await client.discovery(new URL(s.issuer), clientId, undefined, client.None(), {
        algorithm: "oauth2",
        execute: [client.allowInsecureRequests]
      })
      await openidClientFlow(config, clientId)
    })

    it("oauth4webapi, confidential client with client_secret_post: the whole flow, then userinfo refuses a revoked token", async () => {
      const { clientId, secret } = await newApp(s, user.accountId, { redirectUris: [CALLBACK] })
      const insecure = { [oauth.allowInsecureRequests]: true }
      const issuer = new URL(s.issuer)
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }))
      expect(as.id_token_signing_alg_values_supported).toEqual(["EdDSA"])
      const rp: oauth.Client = { client_id: clientId }
      const auth = oauth.ClientSecretPost(secret!)
      const verifier = oauth.generateRandomCodeVerifier()
      const state = oauth.generateRandomState()
      const nonce = oauth.generateRandomNonce()
      const url = new URL(as.authorization_endpoint!)
      url.search = new URLSearchParams({
        client_id: clientId,
        redirect_uri: CALLBACK,
        response_type: "code",
        scope: SCOPE,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state,
        nonce
      }).toString()
      const params = oauth.validateAuthResponse(as, rp, await authorize(url), state)
      const response = await oauth.authorizationCodeGrantRequest(as, rp, auth, params, CALLBACK, verifier, insecure)
      const tokens = await oauth.processAuthorizationCodeResponse(as, rp, response, { expectedNonce: nonce, requireIdToken: true })
      const claims = oauth.getValidatedIdTokenClaims(tokens)!
      expect(claims.sub).toBe(user.accountId)

      const info = await oauth.processUserInfoResponse(as, rp, claims.sub, await oauth.userInfoRequest(as, rp, tokens.access_token, insecure))
      expect(info.name).toBeUndefined()
      expect(info.picture).toBe(`${s.baseUrl}/assets/default-avatar.svg`)

      const introspected = await oauth.processIntrospectionResponse(as, rp, await oauth.introspectionRequest(as, rp, auth, tokens.access_token, insecure))
      expect(introspected).toMatchObject({ active: true, client_id: clientId, sub: user.accountId, token_type: "Bearer", iss: s.issuer })

      const refreshed = await oauth.processRefreshTokenResponse(as, rp, await oauth.refreshTokenGrantRequest(as, rp, auth, tokens.refresh_token!, insecure))
      expect(refreshed.refresh_token).toBeDefined()

      await oauth.processRevocationResponse(await oauth.revocationRequest(as, rp, auth, refreshed.refresh_token!, {
        additionalParameters: { token_type_hint: "refresh_token" },
        ...insecure
      }))
      const after = await oauth.processIntrospectionResponse(as, rp, await oauth.introspectionRequest(as, rp, auth, refreshed.access_token, insecure))
      expect(after).toEqual({ active: false })
      const refused = await oauth.userInfoRequest(as, rp, refreshed.access_token, insecure)
        .then((res) => oauth.processUserInfoResponse(as, rp, claims.sub, res))
        .catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(oauth.WWWAuthenticateChallengeError)
      expect((refused as oauth.WWWAuthenticateChallengeError).cause[0]).toMatchObject({ scheme: "bearer", parameters: { error: "invalid_token" } })
    })
  })
}
