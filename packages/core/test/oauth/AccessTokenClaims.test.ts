import { describe, expect, it } from "@effect/vitest"
import {
  accessTokenClaims,
  businessScopes,
  formatScope,
  oauthScopes,
  parseScope,
  protocolScopes,
  tokenAudienceOf
} from "@switchboard/core/oauth"
import * as fc from "fast-check"

const scopeToken = fc.stringMatching(/^[\x21\x23-\x5b\x5d-\x7e]{1,20}$/)

describe("access token claims", () => {
  it("formatScope then parseScope gives the scopes back, duplicates dropped", () => {
    fc.assert(fc.property(fc.array(scopeToken, { maxLength: 12 }), (scopes) => {
      expect(parseScope(formatScope(scopes))).toEqual([...new Set(scopes)])
    }))
  })

  it("parseScope: absent is no scopes; extra spaces are ignored; anything but a string of scope tokens is refused", () => {
    expect(parseScope(undefined)).toEqual([])
    expect(parseScope("")).toEqual([])
    expect(parseScope("  projects:read   billing:read ")).toEqual(["projects:read", "billing:read"])
    for (const bad of [["projects:read"], 42, null, { scope: "x" }, "a\tb", "quote\"d", "back\\slash", "é"]) {
      expect(parseScope(bad)).toBeUndefined()
    }
  })

  it("accessTokenClaims: seconds on the wire, the audience and issuer given, scope space-separated", () => {
    expect(accessTokenClaims({
      issuer: "https://dash.example/api/auth",
      audience: "https://api.example",
      accountId: "sb_acc_x",
      scopes: ["projects:read", "webhooks:write"],
      tokenId: "t1",
      issuedAt: 1_900_000_000_999,
      expiresAt: 1_900_000_900_999,
      clientId: "app_1"
    })).toEqual({
      iss: "https://dash.example/api/auth",
      aud: "https://api.example",
      sub: "sb_acc_x",
      iat: 1_900_000_000,
      exp: 1_900_000_900,
      jti: "t1",
      scope: "projects:read webhooks:write",
      client_id: "app_1"
    })
  })

  it("tokenAudienceOf: the issuer is exactly {DASHBOARD_URL}/api/auth, the audience {API_URL}", () => {
    expect(tokenAudienceOf({ dashboardUrl: "https://dash.example/", apiUrl: "https://api.example//" })).toEqual({
      issuer: "https://dash.example/api/auth",
      audience: "https://api.example"
    })
  })

  it("the scope catalog: twelve business scopes, the four protocol scopes apart", () => {
    expect(businessScopes).toHaveLength(12)
    expect(protocolScopes).toEqual(["openid", "profile", "email", "offline_access"])
    for (const s of protocolScopes) expect(businessScopes as ReadonlyArray<string>).not.toContain(s)
    expect(oauthScopes).toHaveLength(16)
  })
})
