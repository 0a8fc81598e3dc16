import { describe, expect, it } from "@effect/vitest"
import {
  checkAuthorizationRequest,
  clientCredentials,
  discoveryDocument,
  formUrlDecode,
  isCodeChallenge,
  isCodeVerifier,
  type OAuthApp,
  parseBasic,
  type Params,
  s256,
  verifierMatches
} from "@switchboard/core/oauth"
import { AccountId } from "@switchboard/core/shared"
import { DateTime, Effect, Redacted } from "effect"
import * as fc from "fast-check"
import { runLikeTest } from "../Properties.js"

const API = "https://api.example"
const REDIRECT = "https://rp.example/cb"
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

const app: OAuthApp = {
  clientId: "sb_app_01jd0000000000000000000000",
  ownerAccountId: AccountId.make("sb_acc_01jd0000000000000000000000"),
  name: "RP",
  logoUri: null,
  homepageUri: null,
  redirectUris: [REDIRECT, "http://127.0.0.1:8123/cb"],
  clientType: "public",
  scopes: ["openid", "email", "offline_access", "projects:read"],
  createdAt: DateTime.makeUnsafe(0) as DateTime.Utc,
  updatedAt: DateTime.makeUnsafe(0) as DateTime.Utc
}

const base: Record<string, string> = {
  response_type: "code",
  client_id: app.clientId,
  redirect_uri: REDIRECT,
  scope: "openid email",
  state: "xyz",
  code_challenge: CHALLENGE,
  code_challenge_method: "S256"
}

/** The base request with changes: a value replaces, null removes; `extra` appends (repeats). */
const params = (changes: Record<string, string | null> = {}, extra: Params = []): Params => {
  const merged: Record<string, string | null> = { ...base, ...changes }
  return [...Object.entries(merged).filter((e): e is [string, string] => e[1] !== null), ...extra]
}

const check = (p: Params) => checkAuthorizationRequest(p, app, API)

describe("authorization request (docs/api-notes/oauth.md)", () => {
  it("a valid request: scopes in catalog order, PKCE kept, no prompt, no resource", () => {
    const r = check(params({ scope: "email openid email", nonce: "n1" }))
    expect(r).toEqual({
      _tag: "Valid",
      request: {
        clientId: app.clientId,
        redirectUri: REDIRECT,
        scopes: ["openid", "email"],
        state: "xyz",
        codeChallenge: CHALLENGE,
        nonce: "n1",
        prompt: new Set(),
        resource: null
      }
    })
  })

  it("steps 1–2 show an error page and never redirect: client_id and redirect_uri", () => {
    const page = (p: Params, error: string) => expect(check(p)).toMatchObject({ _tag: "ShowError", error })
    page(params({ client_id: null }), "invalid_request")
    page(params({}, [["client_id", app.clientId]]), "invalid_request")
    page(params({ client_id: "sb_app_unknown" }), "invalid_client")
    expect(checkAuthorizationRequest(params(), undefined, API)).toMatchObject({ _tag: "ShowError", error: "invalid_client" })
    page(params({ redirect_uri: null }), "invalid_request")
    page(params({}, [["redirect_uri", REDIRECT]]), "invalid_request")
    // Exact, character for character: no trailing slash, case or port normalisation.
    for (const near of [`${REDIRECT}/`, "https://RP.example/cb", "https://rp.example:443/cb", `${REDIRECT}?x=1`, "http://127.0.0.1:8124/cb"]) {
      page(params({ redirect_uri: near }), "invalid_request")
    }
    // Even a broken response_type or missing PKCE shows the page when the redirect URI is not trusted.
    page(params({ redirect_uri: "https://evil.example/cb", response_type: "token", code_challenge: null }), "invalid_request")
  })

  const redirected: ReadonlyArray<readonly [string, Params, string]> = [
    ["a repeated parameter", params({}, [["scope", "openid"]]), "invalid_request"],
    ["a request object", params({ request: "eyJ.x.y" }), "request_not_supported"],
    ["a request_uri", params({ request_uri: "urn:x" }), "request_uri_not_supported"],
    ["no response_type", params({ response_type: null }), "invalid_request"],
    ["response_type=token", params({ response_type: "token" }), "unsupported_response_type"],
    ["response_type=code id_token", params({ response_type: "code id_token" }), "unsupported_response_type"],
    ["response_mode=fragment", params({ response_mode: "fragment" }), "invalid_request"],
    ["no scope", params({ scope: null }), "invalid_scope"],
    ["an unknown scope", params({ scope: "openid admin" }), "invalid_scope"],
    ["a scope beyond the app's set", params({ scope: "openid billing:write" }), "invalid_scope"],
    ["no code_challenge", params({ code_challenge: null }), "invalid_request"],
    ["no code_challenge_method", params({ code_challenge_method: null }), "invalid_request"],
    ["code_challenge_method=plain", params({ code_challenge_method: "plain" }), "invalid_request"],
    ["a challenge that is not an S256 digest", params({ code_challenge: "short" }), "invalid_request"],
    ["an unknown prompt", params({ prompt: "select_account" }), "invalid_request"],
    ["prompt=none with another", params({ prompt: "none consent" }), "invalid_request"],
    ["another resource", params({ resource: "https://other.example" }), "invalid_target"],
    ["an overlong nonce", params({ nonce: "n".repeat(513) }), "invalid_request"]
  ]
  it.each(redirected)("from step 3 errors redirect with state: %s", (_, p, error) => {
    expect(check(p)).toMatchObject({ _tag: "RedirectError", redirectUri: REDIRECT, state: "xyz", error })
  })

  it("an overlong state is refused without being echoed", () => {
    expect(check(params({ state: "s".repeat(2049) }))).toMatchObject({ _tag: "RedirectError", state: null, error: "invalid_request" })
    expect(check(params({ state: null, scope: null }))).toMatchObject({ _tag: "RedirectError", state: null, error: "invalid_scope" })
  })

  it("prompt values and the API resource are accepted", () => {
    const r = check(params({ prompt: "login consent", resource: API }))
    expect(r._tag).toBe("Valid")
    if (r._tag === "Valid") {
      expect([...r.request.prompt].sort()).toEqual(["consent", "login"])
      expect(r.request.resource).toBe(API)
    }
  })
})

describe("PKCE S256", () => {
  it.effect("the RFC 7636 appendix B example", () =>
    Effect.gen(function*() {
      expect(yield* s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(CHALLENGE)
      expect(yield* verifierMatches("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", CHALLENGE)).toBe(true)
      expect(yield* verifierMatches("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXl", CHALLENGE)).toBe(false)
      // A malformed verifier never matches, even its own digest.
      expect(yield* verifierMatches("short", yield* s256("short"))).toBe(false)
    }))

  it("every well-formed verifier matches its own S256 challenge, which is a valid challenge", () =>
    fc.assert(fc.asyncProperty(fc.stringMatching(/^[A-Za-z0-9._~-]{43,128}$/), (verifier) =>
      runLikeTest(Effect.gen(function*() {
        expect(isCodeVerifier(verifier)).toBe(true)
        const challenge = yield* s256(verifier)
        expect(isCodeChallenge(challenge)).toBe(true)
        expect(yield* verifierMatches(verifier, challenge)).toBe(true)
      })))))
})

describe("client credentials (RFC 6749 §2.3.1)", () => {
  /** What oauth4webapi's ClientSecretBasic sends: form-URL-encoded id and secret, then base64. */
  const formEncode = (s: string) =>
    encodeURIComponent(s).replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, "+")
  const basic = (id: string, secret: string) =>
    `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`, "utf8").toString("base64")}`

  it("Basic credentials are form-URL-decoded back to what was encoded", () => {
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 40, unit: "grapheme" }), fc.string({ maxLength: 60, unit: "grapheme" }), (id, secret) => {
      expect(parseBasic(basic(id, secret))).toEqual({ clientId: id, secret })
    }))
  })

  it("a secret with - _ . ~ survives percent-encoding; + is a space; a raw colon in the secret is kept", () => {
    expect(parseBasic(basic("sb_app_x", "sb_cs_a-b.c~d"))).toEqual({ clientId: "sb_app_x", secret: "sb_cs_a-b.c~d" })
    expect(parseBasic(`Basic ${btoa("a+b:c%2Bd")}`)).toEqual({ clientId: "a b", secret: "c+d" })
    expect(parseBasic(`Basic ${btoa("id:se:cret")}`)).toEqual({ clientId: "id", secret: "se:cret" })
    for (const bad of ["Basic", "Basic !!!", `Basic ${btoa("nocolon")}`, `Basic ${btoa(":secret")}`, `Basic ${btoa("%zz:x")}`, "Bearer abc"]) {
      expect(parseBasic(bad)).toBeUndefined()
    }
    expect(formUrlDecode("%E2%82%AC+")).toBe("€ ")
  })

  it("unencoded UTF-8 in the Basic credentials is decoded; bytes that are not UTF-8 are malformed", () => {
    const b64 = (bytes: ReadonlyArray<number>) => `Basic ${btoa(String.fromCharCode(...bytes))}`
    expect(parseBasic(b64([0xc3, 0xa9, 0x3a, 0xe2, 0x82, 0xac]))).toEqual({ clientId: "é", secret: "€" })
    expect(parseBasic(b64([0x69, 0x64, 0x3a, 0xff]))).toBeUndefined()
    expect(parseBasic(b64([0xc3, 0x3a, 0x78]))).toBeUndefined()
  })

  it("exactly one method: Basic plus a body secret is invalid_request; a mismatching body client_id too", () => {
    const auth = basic("sb_app_x", "s3cret")
    expect(clientCredentials({ authorization: auth, bodyClientId: undefined, bodyClientSecret: "s3cret" })).toMatchObject({
      _tag: "Invalid",
      error: "invalid_request"
    })
    expect(clientCredentials({ authorization: auth, bodyClientId: "sb_app_y", bodyClientSecret: undefined })).toMatchObject({
      _tag: "Invalid",
      error: "invalid_request"
    })
    const same = clientCredentials({ authorization: auth, bodyClientId: "sb_app_x", bodyClientSecret: undefined })
    expect(same._tag).toBe("Presented")
    if (same._tag === "Presented") {
      expect(same.client.clientId).toBe("sb_app_x")
      expect(same.client.viaBasic).toBe(true)
      expect(Redacted.value(same.client.secret!)).toBe("s3cret")
    }
    expect(clientCredentials({ authorization: "Basic %%%", bodyClientId: undefined, bodyClientSecret: undefined })).toMatchObject({
      _tag: "Invalid",
      error: "invalid_client",
      viaBasic: true
    })
    expect(clientCredentials({ authorization: undefined, bodyClientId: undefined, bodyClientSecret: undefined })).toEqual({ _tag: "Missing" })
    const body = clientCredentials({ authorization: undefined, bodyClientId: "sb_app_p", bodyClientSecret: undefined })
    expect(body).toMatchObject({ _tag: "Presented", client: { clientId: "sb_app_p", secret: null, viaBasic: false } })
  })
})

describe("discovery document (docs/api-notes/oauth.md)", () => {
  it("names EdDSA, S256, the three grants (device included), iss in responses, the endpoints under the issuer and the registration endpoint", () => {
    const doc = discoveryDocument("https://dash.example/api/auth")
    expect(doc).toMatchObject({
      issuer: "https://dash.example/api/auth",
      authorization_endpoint: "https://dash.example/api/auth/oauth2/authorize",
      token_endpoint: "https://dash.example/api/auth/oauth2/token",
      userinfo_endpoint: "https://dash.example/api/auth/oauth2/userinfo",
      revocation_endpoint: "https://dash.example/api/auth/oauth2/revoke",
      introspection_endpoint: "https://dash.example/api/auth/oauth2/introspect",
      registration_endpoint: "https://dash.example/api/auth/oauth2/register",
      device_authorization_endpoint: "https://dash.example/api/auth/oauth2/device_authorization",
      jwks_uri: "https://dash.example/api/auth/jwks",
      id_token_signing_alg_values_supported: ["EdDSA"],
      code_challenge_methods_supported: ["S256"],
      grant_types_supported: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
      response_types_supported: ["code"],
      authorization_response_iss_parameter_supported: true
    })
    expect(doc.scopes_supported).toContain("offline_access")
  })
})
