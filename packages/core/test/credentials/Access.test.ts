/** The reach rules (docs/api-notes/credentials.md) as one table over core's `decide`. */
import { describe, expect, it } from "@effect/vitest"
import { decideBilling } from "@switchboard/core/billing"
import {
  decide,
  denyScope,
  denyWith,
  Principal,
  type ProjectPermission,
  Requirement
} from "@switchboard/core/credentials"
import { AccountId, ApiKeyId, ProjectId, ServiceKeyId } from "@switchboard/core/shared"
import { Result } from "effect"

const account = AccountId.make("sb_acc_01m7zvg8epecnadf5bkm51v23z")
const P1 = ProjectId.make("0190a8d4-5b6c-7d8e-9f01-23456789abcd")
const P2 = "0190a8d4-5b6c-7d8e-9f01-23456789abce"
const key = (permissions: ReadonlyArray<ProjectPermission | string>) =>
  Principal.ProjectKey({ projectId: P1, apiKeyId: ApiKeyId.make("sb_sk_01m7zvg8epecnadf5bkm51v23z"), permissions })
const token = (scopes: ReadonlyArray<string>) => Principal.AccessToken({ accountId: account, scopes, tokenId: "t", origin: "session" })
/** A token of an OAuth grant (a third-party app): only what its scopes grant. */
const grant = (scopes: ReadonlyArray<string>) => Principal.AccessToken({ accountId: account, scopes, tokenId: "g", origin: "grant" })
const everyScope = [
  "openid", "profile", "email", "offline_access", "projects:read", "projects:write", "members:read", "members:write",
  "webhooks:read", "webhooks:write", "billing:read", "billing:write", "spectrum:read", "spectrum:write", "payments:read", "payments:write"
]

const principals = {
  none: undefined,
  serviceKey: Principal.Account({ accountId: account, serviceKeyId: ServiceKeyId.make("sb_ask_01m7zvg8epecnadf5bkm51v23z") }),
  tokenNoScopes: token([]),
  tokenProjectsRead: token(["projects:read"]),
  tokenMembersRead: token(["members:read"]),
  tokenSpectrumWrite: token(["spectrum:write"]),
  grantOpenid: grant(["openid"]),
  grantProfileEmail: grant(["profile", "email"]),
  grantProjectsRead: grant(["projects:read"]),
  grantEveryScope: grant(everyScope),
  keyAll: key(["project:read", "project:write", "platforms:read", "platforms:write", "events:read", "events:write"]),
  keyProjectRead: key(["project:read"]),
  keyWebhooksOnly: key(["events:read", "events:write"])
} as const

const requirements = {
  public: Requirement.Public(),
  account: Requirement.Account({}),
  ownProfile: Requirement.Account({ access: "profile" }),
  membersRead: Requirement.Organizations({ scope: "members:read" }),
  membersWrite: Requirement.Organizations({ scope: "members:write" }),
  projectsRead: Requirement.ProjectsCollection({ scope: "projects:read" }),
  ownRead: Requirement.Project({ projectId: P1, permission: "project:read", accountOnly: false }),
  ownWrite: Requirement.Project({ projectId: P1, permission: "project:write", accountOnly: false }),
  ownAccountOnly: Requirement.Project({ projectId: P1, permission: "project:write", accountOnly: true }),
  ownMintsCredential: Requirement.Project({ projectId: P1, permission: "project:write", accountOnly: true, mintsCredential: true }),
  ownPlatformsWrite: Requirement.Project({ projectId: P1, permission: "platforms:write", accountOnly: false }),
  ownEventsRead: Requirement.Project({ projectId: P1, permission: "events:read", accountOnly: false }),
  otherRead: Requirement.Project({ projectId: P2, permission: "project:read", accountOnly: false })
} as const

type Outcome = "ok" | "NOT_AUTHENTICATED" | "FORBIDDEN" | "INSUFFICIENT_SCOPE" | "RESOURCE_MISMATCH"
const row = (ok: ReadonlyArray<keyof typeof requirements>, otherwise: Outcome, except: Partial<Record<keyof typeof requirements, Outcome>> = {}) =>
  Object.fromEntries(Object.keys(requirements).map((r) => [r, ok.includes(r as never) ? "ok" : except[r as keyof typeof requirements] ?? otherwise]))

const all = Object.keys(requirements) as Array<keyof typeof requirements>
const table: Record<keyof typeof principals, Record<string, Outcome>> = {
  none: row(["public"], "NOT_AUTHENTICATED"),
  // Service keys reach everything their account can (membership is checked by the services).
  serviceKey: row(all, "FORBIDDEN"),
  // A Dashboard session's token is first party: the account routes, and projects as its scopes say.
  tokenNoScopes: row(["public", "account", "ownProfile"], "INSUFFICIENT_SCOPE"),
  tokenProjectsRead: row(["public", "account", "ownProfile", "projectsRead", "ownRead", "otherRead"], "INSUFFICIENT_SCOPE"),
  tokenMembersRead: row(["public", "account", "ownProfile", "membersRead"], "INSUFFICIENT_SCOPE"),
  tokenSpectrumWrite: row(["public", "account", "ownProfile", "ownPlatformsWrite"], "INSUFFICIENT_SCOPE"),
  // An OAuth grant's token: openid/profile/email read the own profile and nothing else; no scope
  // changes the account or mints a credential that would outlive the grant.
  grantOpenid: row(["public", "ownProfile"], "INSUFFICIENT_SCOPE", { account: "FORBIDDEN", ownMintsCredential: "FORBIDDEN" }),
  grantProfileEmail: row(["public", "ownProfile"], "INSUFFICIENT_SCOPE", { account: "FORBIDDEN", ownMintsCredential: "FORBIDDEN" }),
  grantProjectsRead: row(["public", "projectsRead", "ownRead", "otherRead"], "INSUFFICIENT_SCOPE", {
    account: "FORBIDDEN", ownMintsCredential: "FORBIDDEN"
  }),
  grantEveryScope: row(all.filter((r) => r !== "account" && r !== "ownMintsCredential"), "FORBIDDEN"),
  keyAll: row(["public", "ownRead", "ownWrite", "ownPlatformsWrite", "ownEventsRead"], "FORBIDDEN", { otherRead: "RESOURCE_MISMATCH" }),
  keyProjectRead: row(["public", "ownRead"], "FORBIDDEN", { otherRead: "RESOURCE_MISMATCH" }),
  keyWebhooksOnly: row(["public", "ownEventsRead"], "FORBIDDEN", { otherRead: "RESOURCE_MISMATCH" })
}

describe("decide: every principal × every requirement", () => {
  for (const [name, expected] of Object.entries(table)) {
    it(name, () => {
      const got = Object.fromEntries(Object.entries(requirements).map(([r, requirement]) => {
        const d = decide(principals[name as keyof typeof principals], requirement)
        return [r, Result.isSuccess(d) ? "ok" : d.failure.code]
      }))
      expect(got).toEqual(expected)
    })
  }

  it("a scope refusal names the scope as insufficient_scope: <scope>, and carries it", () => {
    const d = decide(principals.tokenNoScopes, requirements.ownWrite)
    expect(Result.isFailure(d) && d.failure.detail).toContain("insufficient_scope: projects:write")
    expect(Result.isFailure(d) && d.failure.scope).toBe("projects:write")
    const p = decide(principals.grantProjectsRead, requirements.ownProfile)
    expect(Result.isFailure(p) && p.failure.scope).toBe("profile")
  })

  it("a first-party refusal names what is needed", () => {
    const d = decide(principals.grantEveryScope, requirements.account)
    expect(Result.isFailure(d) && d.failure.detail).toContain("first-party credential")
    expect(Result.isFailure(d) && d.failure.scope).toBeUndefined()
  })

  it("billing's rules refuse as data too: the missing scope in its field, other refusals without one", () => {
    const route = { scope: "billing:write", organizationRoute: true } as const
    const d = decideBilling(principals.tokenNoScopes, route)
    expect(Result.isFailure(d) && { code: d.failure.code, scope: d.failure.scope }).toEqual({ code: "INSUFFICIENT_SCOPE", scope: "billing:write" })
    const k = decideBilling(key(["project:read"]), route)
    expect(Result.isFailure(k) && { code: k.failure.code, scope: k.failure.scope }).toEqual({ code: "FORBIDDEN", scope: undefined })
  })

  it("a scope refusal is made only with its scope (denyScope): denyWith refuses the code at compile time", () => {
    // @ts-expect-error INSUFFICIENT_SCOPE needs the missing scope: use denyScope
    const untyped = denyWith("INSUFFICIENT_SCOPE", "no scope named")
    expect(Result.isFailure(untyped)).toBe(true)
    const d = denyScope("members:read")
    expect(Result.isFailure(d) && d.failure.scope).toBe("members:read")
  })
})
