import { describe, expect, it } from "@effect/vitest"
import {
  accessTokenLifetime,
  AUTHORIZATION_CODE_LIFETIME,
  businessScopes,
  type ClaimsSource,
  issuesIdToken,
  issuesRefreshToken,
  oauthScopes,
  REFRESH_TOKEN_LIFETIME,
  scopeLifetime,
  userClaims
} from "@switchboard/core/oauth"
import * as fc from "fast-check"

const MIN = 60_000
const anyScope = fc.constantFrom(...oauthScopes, "custom:write", "x")
const scopeLists = fc.array(anyScope, { maxLength: 10 })

describe("token policy: access-token lifetime (docs/api-notes/oauth.md)", () => {
  const table: ReadonlyArray<readonly [ReadonlyArray<string>, number]> = [
    [[], 60 * MIN],
    [["openid"], 60 * MIN],
    [["openid", "profile", "email", "offline_access"], 60 * MIN],
    [["projects:read", "billing:read", "payments:read"], 60 * MIN],
    [["projects:write"], 15 * MIN],
    [["members:write"], 15 * MIN],
    [["webhooks:write", "billing:read"], 15 * MIN],
    [["spectrum:write", "payments:write"], 15 * MIN],
    [["billing:write"], 5 * MIN],
    [["projects:write", "billing:write"], 5 * MIN],
    [["billing:write", "projects:read", "openid"], 5 * MIN]
  ]
  it.each(table)("%j → %d ms", (scopes, expected) => {
    expect(accessTokenLifetime(scopes)).toBe(expected)
  })

  it("every business :write scope is capped at 15 minutes except billing:write at 5", () => {
    for (const scope of businessScopes) {
      expect(scopeLifetime(scope)).toBe(scope === "billing:write" ? 5 * MIN : scope.endsWith(":write") ? 15 * MIN : 60 * MIN)
    }
  })

  it("the shortest lifetime of any scope wins, whatever the order", () => {
    fc.assert(fc.property(scopeLists, (scopes) => {
      const expected = Math.min(60 * MIN, ...scopes.map(scopeLifetime))
      expect(accessTokenLifetime(scopes)).toBe(expected)
      expect(accessTokenLifetime([...scopes].reverse())).toBe(expected)
    }))
  })

  it("adding a scope never lengthens the lifetime; it is always 1 h, 15 min or 5 min", () => {
    fc.assert(fc.property(scopeLists, anyScope, (scopes, extra) => {
      expect(accessTokenLifetime([...scopes, extra])).toBeLessThanOrEqual(accessTokenLifetime(scopes))
      expect([60 * MIN, 15 * MIN, 5 * MIN]).toContain(accessTokenLifetime(scopes))
    }))
  })

  it("refresh tokens live 30 days; codes 60 seconds", () => {
    expect(REFRESH_TOKEN_LIFETIME).toBe(30 * 24 * 60 * MIN)
    expect(AUTHORIZATION_CODE_LIFETIME).toBe(MIN)
  })
})

describe("token policy: what the scopes issue", () => {
  it("a refresh token exactly with offline_access; an id_token exactly with openid", () => {
    fc.assert(fc.property(scopeLists, (scopes) => {
      expect(issuesRefreshToken(scopes)).toBe(scopes.includes("offline_access"))
      expect(issuesIdToken(scopes)).toBe(scopes.includes("openid"))
    }))
  })

  const source: ClaimsSource = {
    accountId: "sb_acc_0abc",
    email: "ada@example.com",
    emailVerified: false,
    firstName: "Ada",
    lastName: "Lovelace",
    picture: "https://api.example/assets/default-avatar.svg"
  }
  const table: ReadonlyArray<readonly [ReadonlyArray<string>, Record<string, unknown>]> = [
    [["openid"], { sub: "sb_acc_0abc" }],
    [["openid", "profile"], { sub: "sb_acc_0abc", name: "Ada Lovelace", picture: "https://api.example/assets/default-avatar.svg" }],
    [["openid", "email"], { sub: "sb_acc_0abc", email: "ada@example.com", email_verified: false }],
    [["openid", "email", "profile", "projects:read"], {
      sub: "sb_acc_0abc",
      name: "Ada Lovelace",
      picture: "https://api.example/assets/default-avatar.svg",
      email: "ada@example.com",
      email_verified: false
    }],
    [["projects:read", "offline_access"], { sub: "sb_acc_0abc" }]
  ]
  it.each(table)("claims of %j", (scopes, expected) => {
    expect(userClaims(source, scopes)).toEqual(expected)
  })

  it("a name is left out when the account has none; a last name alone is the name", () => {
    expect(userClaims({ ...source, firstName: null, lastName: null }, ["profile"])).not.toHaveProperty("name")
    expect(userClaims({ ...source, firstName: null }, ["profile"]).name).toBe("Lovelace")
  })
})
