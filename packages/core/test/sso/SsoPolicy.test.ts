/** The pure rules of organization SSO: `returnTo`, the plan entitlement, enforcement, email domains. */
import { Billing } from "@switchboard/core"
import type { OrganizationId } from "@switchboard/core/shared"
import { emailDomain, plansIncludeSso, resolveReturnTo, ssoAdmits } from "@switchboard/core/sso"
import { Result } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"

const policy = { dashboardUrl: "https://app.example.com", returnToOrigins: ["https://docs.example.com"] }

describe("resolveReturnTo", () => {
  it.each([
    ["/settings?x=1", Result.succeed("https://app.example.com/settings?x=1")],
    ["https://app.example.com/a", Result.succeed("https://app.example.com/a")],
    ["https://docs.example.com/b#c", Result.succeed("https://docs.example.com/b#c")],
    ["https://APP.example.com/a", Result.succeed("https://app.example.com/a")]
  ])("accepts %s", (input, expected) => {
    expect(resolveReturnTo(input, policy)).toEqual(expected)
  })

  it.each([
    "//evil.example/x",
    "/\\evil.example",
    "https://evil.example/",
    "https://app.example.com.evil.example/",
    "https://user:pw@app.example.com/",
    "javascript:alert(1)",
    "data:text/html,x",
    "http://app.example.com/",
    "relative/path",
    "",
    `/${"a".repeat(2048)}`,
    "/line\nbreak"
  ])("refuses %j", (input) => {
    expect(Result.isFailure(resolveReturnTo(input, policy))).toBe(true)
  })

  it("never resolves to an origin outside the allow-list (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 60 }), fc.webUrl(), fc.webPath()), (input) => {
        const out = resolveReturnTo(input, policy)
        if (Result.isSuccess(out)) {
          expect(["https://app.example.com", "https://docs.example.com"]).toContain(new URL(out.success).origin)
        }
      }),
      { numRuns: 200 }
    )
  })
})

describe("plansIncludeSso", () => {
  const plan = (planCode: string, value: string) => ({ planCode, entitlements: [{ featureKey: "organization_sso", value }] })
  const catalog = { messaging: [plan("free", "false"), plan("pro", "true"), plan("odd", " TRUE ")] } as unknown as Billing.BillingPlanCatalog
  it.each([
    [[], false],
    [["free"], false],
    [["pro"], true],
    [["odd"], true],
    [["free", "pro"], true],
    [["unknown"], false]
  ])("plans %j → %s", (codes, expected) => {
    expect(plansIncludeSso(catalog, codes, "organization_sso")).toBe(expected)
  })
})

describe("ssoAdmits (required SSO, owners' break-glass)", () => {
  const org = "sb_org_0" as OrganizationId
  const other = "sb_org_1" as OrganizationId
  const facts = (ssoOrganizations: ReadonlyArray<OrganizationId>) => ({ method: "session" as const, ssoOrganizations })
  it.each([
    [{ role: "member", enforced: false, authentication: facts([]) }, true],
    [{ role: "member", enforced: true, authentication: facts([]) }, false],
    [{ role: "admin", enforced: true, authentication: facts([other]) }, false],
    [{ role: "member", enforced: true, authentication: facts([org]) }, true],
    [{ role: "owner", enforced: true, authentication: facts([]) }, true],
    [{ role: "member", enforced: true, authentication: undefined }, true]
  ] as const)("%j → %s", (input, expected) => {
    expect(ssoAdmits({ organizationId: org, ...input })).toBe(expected)
  })
})

describe("emailDomain", () => {
  it.each([
    ["a@Example.COM", "example.com"],
    ["a@b@example.com.", "example.com"],
    ["nodomain", undefined],
    ["trailing@", undefined],
    ["@lead.example", undefined]
  ])("%s → %s", (email, expected) => {
    expect(emailDomain(email)).toBe(expected)
  })
})
