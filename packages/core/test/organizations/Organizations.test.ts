import { describe, expect, it } from "@effect/vitest"
import { Accounts } from "@switchboard/core/accounts"
import { decide, Principal, Requirement } from "@switchboard/core/credentials"
import {
  InvitationsRepo,
  Invitations,
  type OrganizationRole,
  Organizations,
  OrganizationsCore,
  OrganizationsRepo
} from "@switchboard/core/organizations"
import { sha256Hex } from "@switchboard/core/internal"
import {
  AccountId,
  ApiKeyId,
  encodePageToken,
  formatTypeId,
  IdKinds,
  ProjectId,
  SecretsLive,
  ServerSecretFromBytes,
  uuidv7Bytes,
  RecordCache,
  RecordChangesNone
} from "@switchboard/core/shared"
import {
  IdentityReposMemory,
  MemoryStateLive,
  OrganizationsMemory,
  PasswordHasherTest,
  TestServerSecret
} from "@switchboard/testkit"
import { DateTime, Effect, Result, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const DAY = 86_400_000

// Only the ports this feature needs, on a fresh memory store per test.
const Store = Layer.mergeAll(IdentityReposMemory, OrganizationsMemory).pipe(Layer.provideMerge(MemoryStateLive))
const Env = Layer.mergeAll(OrganizationsCore, Accounts.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(Store, SecretsLive, TestServerSecret, PasswordHasherTest, RecordCache.layer.pipe(Layer.provide(Layer.succeedContext(RecordChangesNone)))))
)

let seq = 0
const account = (email = `person${++seq}@example.com`) =>
  Effect.map(Effect.flatMap(Accounts, (a) => a.create({ email })), (r) => r.accountId)

/** An organization owned by a new account, plus one member of each given role (joined directly). */
const orgWith = (roles: ReadonlyArray<OrganizationRole>) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    const owner = yield* account()
    const org = yield* (yield* Organizations).create({ accountId: owner, name: "Acme" })
    const repo = yield* OrganizationsRepo
    const members: Array<AccountId> = []
    for (const role of roles) {
      const id = yield* account()
      yield* repo.addMember({ organizationId: org.organizationId, accountId: id, role, now: DateTime.makeUnsafe(T0) })
      members.push(id)
    }
    return { owner, organizationId: org.organizationId, members }
  })

const failureTag = <A, E extends { _tag: string }, R>(self: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.result(self), (r) => (Result.isFailure(r) ? r.failure._tag : "ok"))

describe("Organizations", () => {
  it.effect("create makes the caller the owner; the name must be 1..256 characters", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const organizations = yield* Organizations
      const me = yield* account()
      const org = yield* organizations.create({ accountId: me, name: "n".repeat(256) })
      expect(org.organizationId).toMatch(/^sb_org_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      expect(DateTime.toEpochMillis(org.createdAt)).toBe(T0)
      expect(org.updatedAt).toEqual(org.createdAt)
      expect(yield* (yield* OrganizationsRepo).roleOf(org.organizationId, me)).toEqual(Option.some("owner"))
      for (const name of ["", "n".repeat(257)]) {
        const r = yield* Effect.result(organizations.create({ accountId: me, name }))
        expect(Result.isFailure(r) && r.failure).toMatchObject({ _tag: "InvalidInput", field: "name" })
      }
    }).pipe(Effect.provide(Env)))

  it.effect("list pages the caller's organizations with signed tokens bound to the caller", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const organizations = yield* Organizations
      const me = yield* account()
      const other = yield* account()
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) {
        ids.push((yield* organizations.create({ accountId: me, name: `org ${i}` })).organizationId)
        yield* TestClock.adjust("1 millis")
      }
      yield* organizations.create({ accountId: other, name: "not mine" })
      const first = yield* organizations.list(me, { pageSize: 2 })
      expect(first.items.map((o) => o.organizationId)).toEqual(ids.slice(0, 2))
      expect(first.nextPageToken).toBeDefined()
      const second = yield* organizations.list(me, { pageSize: 2, pageToken: first.nextPageToken })
      expect(second.items.map((o) => o.organizationId)).toEqual(ids.slice(2, 4))
      const third = yield* organizations.list(me, { pageSize: 2, pageToken: second.nextPageToken })
      expect(third.items.map((o) => o.organizationId)).toEqual(ids.slice(4))
      expect(third.nextPageToken).toBeUndefined()
      // Exactly one full page: no token for an empty next page.
      expect((yield* organizations.list(me, { pageSize: 5 })).nextPageToken).toBeUndefined()
      expect((yield* organizations.list(me, {})).items).toHaveLength(5)
      expect((yield* organizations.list(me, { pageToken: "" })).items).toHaveLength(5)

      // Another caller's token, a tampered one, a forged one and bad sizes are refused.
      const refused = (page: { pageSize?: number; pageToken?: string }, who: AccountId = me) =>
        Effect.map(Effect.result(organizations.list(who, page)), (r) => Result.isFailure(r) ? r.failure : undefined)
      expect(yield* refused({ pageToken: first.nextPageToken! }, other)).toMatchObject({ field: "pageToken" })
      const [body, sig] = first.nextPageToken!.split(".")
      expect(yield* refused({ pageToken: `${body}x.${sig}` })).toMatchObject({ field: "pageToken" })
      expect(yield* refused({ pageToken: "garbage" })).toMatchObject({ field: "pageToken" })
      // Well-formed for this list, but signed under another server secret.
      const forged = yield* encodePageToken(`organizations:${me}`, { at: 0, id: "" }).pipe(
        Effect.provide(ServerSecretFromBytes(new Uint8Array(32).fill(9)))
      )
      expect(yield* refused({ pageToken: forged })).toMatchObject({ _tag: "OrganizationPageRequestInvalid", field: "pageToken" })
      for (const pageSize of [0, 101, 1.5]) {
        expect(yield* refused({ pageSize })).toMatchObject({ _tag: "OrganizationPageRequestInvalid", field: "pageSize" })
      }
    }).pipe(Effect.provide(Env)))

  it.effect("listMembers is for members only, with emails, in pages", () =>
    Effect.gen(function*() {
      const { members, organizationId, owner } = yield* orgWith(["admin", "member", "member"])
      const organizations = yield* Organizations
      // Everyone joined at T0, so the account id orders them.
      const expected = [owner, ...members].sort()
      const page1 = yield* organizations.listMembers({ accountId: members[1]!, organizationId, pageSize: 3 })
      expect(page1.items.map((m) => m.accountId)).toEqual(expected.slice(0, 3))
      const page2 = yield* organizations.listMembers({ accountId: owner, organizationId, pageSize: 3, pageToken: page1.nextPageToken })
      expect(page2.items.map((m) => m.accountId)).toEqual(expected.slice(3))
      const all = [...page1.items, ...page2.items]
      expect(all.find((m) => m.accountId === owner)).toMatchObject({ role: "owner", email: expect.stringMatching(/@example\.com$/) })
      expect(all.find((m) => m.accountId === members[0])?.role).toBe("admin")
      expect(page2.nextPageToken).toBeUndefined()
      const stranger = yield* account()
      expect(yield* failureTag(organizations.listMembers({ accountId: stranger, organizationId }))).toBe("OrganizationNotFound")
      // A members token of one organization does not page another's.
      const other = yield* organizations.create({ accountId: owner, name: "Other" })
      const cross = yield* Effect.result(organizations.listMembers({
        accountId: owner,
        organizationId: other.organizationId,
        pageToken: page1.nextPageToken
      }))
      expect(Result.isFailure(cross) && cross.failure).toMatchObject({ _tag: "OrganizationPageRequestInvalid", field: "pageToken" })
    }).pipe(Effect.provide(Env)))

  // Who may remove whom: the actor's role × the target's role (self = leaving).
  const table: ReadonlyArray<[OrganizationRole, OrganizationRole | "self", string]> = [
    ["owner", "owner", "ok"],
    ["owner", "admin", "ok"],
    ["owner", "member", "ok"],
    ["admin", "owner", "OrganizationActionForbidden"],
    ["admin", "admin", "ok"],
    ["admin", "member", "ok"],
    ["member", "owner", "OrganizationActionForbidden"],
    ["member", "admin", "OrganizationActionForbidden"],
    ["member", "member", "OrganizationActionForbidden"],
    ["owner", "self", "ok"],
    ["admin", "self", "ok"],
    ["member", "self", "ok"]
  ]
  for (const [actorRole, targetRole, expected] of table) {
    it.effect(`removeMember: ${actorRole} removing ${targetRole === "self" ? "themselves" : `${targetRole === "member" ? "a" : "an"} ${targetRole}`} → ${expected}`, () =>
      Effect.gen(function*() {
        // A second owner exists throughout, so the last-owner rule does not interfere here.
        const { members, organizationId } = yield* orgWith(["owner", actorRole, ...(targetRole === "self" ? [] : [targetRole])])
        const actor = members[1]!
        const target = targetRole === "self" ? actor : members[2]!
        const organizations = yield* Organizations
        expect(yield* failureTag(organizations.removeMember({ actorId: actor, organizationId, accountId: target }))).toBe(expected)
        const role = yield* (yield* OrganizationsRepo).roleOf(organizationId, target)
        expect(Option.isNone(role)).toBe(expected === "ok")
      }).pipe(Effect.provide(Env)))
  }

  it.effect("removeMember: the last owner can neither leave nor be removed; non-members and strangers are not found", () =>
    Effect.gen(function*() {
      const { members, organizationId, owner } = yield* orgWith(["admin", "owner"])
      const organizations = yield* Organizations
      const [admin, second] = members as [AccountId, AccountId]
      expect(yield* failureTag(organizations.removeMember({ actorId: owner, organizationId, accountId: second }))).toBe("ok")
      expect(yield* failureTag(organizations.removeMember({ actorId: owner, organizationId, accountId: owner }))).toBe("LastOwnerCannotLeave")
      expect(yield* failureTag(organizations.removeMember({ actorId: admin, organizationId, accountId: owner }))).toBe("OrganizationActionForbidden")
      const stranger = yield* account()
      expect(yield* failureTag(organizations.removeMember({ actorId: owner, organizationId, accountId: stranger }))).toBe("OrganizationMemberNotFound")
      expect(yield* failureTag(organizations.removeMember({ actorId: stranger, organizationId, accountId: admin }))).toBe("OrganizationNotFound")
      expect(yield* failureTag(organizations.removeMember({ actorId: stranger, organizationId, accountId: stranger }))).toBe("OrganizationNotFound")
      expect(yield* (yield* OrganizationsRepo).roleOf(organizationId, owner)).toEqual(Option.some("owner"))
    }).pipe(Effect.provide(Env)))
})

describe("Organizations.changeMemberRole", () => {
  // [actor's role, target's role, new role, expected]; a second owner exists throughout.
  const cases: ReadonlyArray<readonly [OrganizationRole, OrganizationRole | "self", OrganizationRole, string]> = [
    ["owner", "member", "admin", "ok"],
    ["owner", "admin", "owner", "ok"],
    ["owner", "owner", "member", "ok"],
    ["owner", "self", "admin", "ok"],
    ["admin", "member", "admin", "ok"],
    ["admin", "admin", "member", "ok"],
    ["admin", "self", "member", "ok"],
    ["admin", "member", "owner", "OrganizationActionForbidden"],
    ["admin", "owner", "member", "OrganizationActionForbidden"],
    ["admin", "self", "owner", "OrganizationActionForbidden"],
    ["member", "member", "admin", "OrganizationActionForbidden"],
    ["member", "self", "admin", "OrganizationActionForbidden"]
  ]
  for (const [actorRole, targetRole, role, expected] of cases) {
    it.effect(`${actorRole} sets ${targetRole} to ${role}: ${expected}`, () =>
      Effect.gen(function*() {
        const { members, organizationId } = yield* orgWith(["owner", actorRole, ...(targetRole === "self" ? [] : [targetRole])])
        const actor = members[1]!
        const target = targetRole === "self" ? actor : members[2]!
        const before = yield* (yield* OrganizationsRepo).roleOf(organizationId, target)
        const organizations = yield* Organizations
        expect(yield* failureTag(organizations.changeMemberRole({ actorId: actor, organizationId, accountId: target, role }))).toBe(expected)
        const after = yield* (yield* OrganizationsRepo).roleOf(organizationId, target)
        expect(after).toEqual(expected === "ok" ? Option.some(role) : before)
      }).pipe(Effect.provide(Env)))
  }

  it.effect("the last owner keeps the role; non-members and strangers are not found", () =>
    Effect.gen(function*() {
      const { members, organizationId, owner } = yield* orgWith(["admin"])
      const organizations = yield* Organizations
      const [admin] = members as [AccountId]
      expect(yield* failureTag(organizations.changeMemberRole({ actorId: owner, organizationId, accountId: owner, role: "admin" }))).toBe("LastOwnerCannotLeave")
      expect(yield* failureTag(organizations.changeMemberRole({ actorId: owner, organizationId, accountId: owner, role: "owner" }))).toBe("ok")
      const stranger = yield* account()
      expect(yield* failureTag(organizations.changeMemberRole({ actorId: owner, organizationId, accountId: stranger, role: "member" }))).toBe("OrganizationMemberNotFound")
      expect(yield* failureTag(organizations.changeMemberRole({ actorId: stranger, organizationId, accountId: admin, role: "member" }))).toBe("OrganizationNotFound")
      // Made an owner, the admin lets the first owner step down.
      expect(yield* failureTag(organizations.changeMemberRole({ actorId: owner, organizationId, accountId: admin, role: "owner" }))).toBe("ok")
      expect(yield* failureTag(organizations.changeMemberRole({ actorId: owner, organizationId, accountId: owner, role: "member" }))).toBe("ok")
      expect(yield* (yield* OrganizationsRepo).roleOf(organizationId, owner)).toEqual(Option.some("member"))
    }).pipe(Effect.provide(Env)))
})

describe("Invitations", () => {
  it.effect("create: a 43-character base64url token, stored only as its SHA-256, expiring in 7 days", () =>
    Effect.gen(function*() {
      const { organizationId, owner } = yield* orgWith([])
      const invitations = yield* Invitations
      const created = yield* invitations.create({ actorId: owner, organizationId, email: "New@Example.com", role: "admin" })
      const token = Redacted.value(created.token)
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(String(created.token)).not.toContain(token)
      expect(created.invitation).toMatchObject({
        organizationId,
        email: "New@Example.com",
        role: "admin",
        invitedByAccountId: owner,
        acceptedAt: null,
        revokedAt: null
      })
      expect(created.invitation.invitationId).toMatch(/^sb_inv_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      expect(DateTime.toEpochMillis(created.invitation.expiresAt) - DateTime.toEpochMillis(created.invitation.createdAt)).toBe(7 * DAY)
      const repo = yield* InvitationsRepo
      expect(Option.getOrThrow(yield* repo.findByTokenHash(yield* sha256Hex(token)))).toEqual(created.invitation)
      const again = yield* invitations.create({ actorId: owner, organizationId, email: "new@example.com", role: "admin" })
      expect(Redacted.value(again.token)).not.toBe(token)
    }).pipe(Effect.provide(Env)))

  it.effect("create: owners invite any role, admins not owners, members nobody; strangers are not found; members are not re-invited", () =>
    Effect.gen(function*() {
      const { members, organizationId, owner } = yield* orgWith(["admin", "member"])
      const [admin, member] = members as [AccountId, AccountId]
      const invitations = yield* Invitations
      const invite = (actorId: AccountId, role: OrganizationRole, email = `x${++seq}@example.com`) =>
        failureTag(invitations.create({ actorId, organizationId, email, role }))
      expect(yield* invite(owner, "owner")).toBe("ok")
      expect(yield* invite(admin, "admin")).toBe("ok")
      expect(yield* invite(admin, "member")).toBe("ok")
      expect(yield* invite(admin, "owner")).toBe("OrganizationActionForbidden")
      expect(yield* invite(member, "member")).toBe("OrganizationActionForbidden")
      expect(yield* invite(yield* account(), "member")).toBe("OrganizationNotFound")
      const memberEmail = (yield* (yield* Accounts).get(member)).email
      expect(yield* invite(owner, "admin", memberEmail.toUpperCase())).toBe("MemberAlreadyExists")
    }).pipe(Effect.provide(Env)))

  it.effect("accept: only the invited email (any case), once; adds the member with the invited role", () =>
    Effect.gen(function*() {
      const { organizationId, owner } = yield* orgWith([])
      const invitations = yield* Invitations
      const invitee = yield* account("Invitee.Person@Example.com")
      const wrong = yield* account()
      const created = yield* invitations.create({ actorId: owner, organizationId, email: "invitee.person@EXAMPLE.com", role: "admin" })
      expect(yield* failureTag(invitations.accept({ accountId: wrong, token: created.token }))).toBe("InvitationEmailMismatch")
      yield* TestClock.adjust("1 hour")
      const membership = yield* invitations.accept({ accountId: invitee, token: created.token })
      expect(membership).toEqual({
        organizationId,
        accountId: invitee,
        email: "Invitee.Person@Example.com",
        role: "admin",
        joinedAt: DateTime.makeUnsafe(T0 + 3_600_000)
      })
      const again = yield* Effect.result(invitations.accept({ accountId: invitee, token: created.token }))
      expect(Result.isFailure(again) && again.failure).toMatchObject({ _tag: "InvitationNotPending", state: "accepted" })
      expect(yield* failureTag(invitations.accept({ accountId: invitee, token: Redacted.make("A".repeat(43)) }))).toBe("InvitationNotFound")
    }).pipe(Effect.provide(Env)))

  it.effect("accept: works until 7 days have passed, then the invitation has expired", () =>
    Effect.gen(function*() {
      const { organizationId, owner } = yield* orgWith([])
      const invitations = yield* Invitations
      const early = yield* account()
      const late = yield* account()
      const accounts = yield* Accounts
      const emailOf = (id: AccountId) => Effect.map(accounts.get(id), (a) => a.email)
      const a = yield* invitations.create({ actorId: owner, organizationId, email: yield* emailOf(early), role: "member" })
      const b = yield* invitations.create({ actorId: owner, organizationId, email: yield* emailOf(late), role: "member" })
      yield* TestClock.adjust(7 * DAY - 1)
      expect(yield* failureTag(invitations.accept({ accountId: early, token: a.token }))).toBe("ok")
      yield* TestClock.adjust(1)
      const expired = yield* Effect.result(invitations.accept({ accountId: late, token: b.token }))
      expect(Result.isFailure(expired) && expired.failure).toMatchObject({ _tag: "InvitationNotPending", state: "expired" })
    }).pipe(Effect.provide(Env)))

  it.effect("revoke: owners and admins, idempotent; a revoked invitation cannot be accepted; accepted ones cannot be revoked", () =>
    Effect.gen(function*() {
      const { members, organizationId, owner } = yield* orgWith(["admin", "member"])
      const [admin, member] = members as [AccountId, AccountId]
      const invitations = yield* Invitations
      const invitee = yield* account()
      const email = (yield* (yield* Accounts).get(invitee)).email
      const created = yield* invitations.create({ actorId: owner, organizationId, email, role: "member" })
      const { invitationId } = created.invitation
      expect(yield* failureTag(invitations.revoke({ actorId: member, organizationId, invitationId }))).toBe("OrganizationActionForbidden")
      expect(yield* failureTag(invitations.revoke({ actorId: invitee, organizationId, invitationId }))).toBe("OrganizationNotFound")
      const first = yield* invitations.revoke({ actorId: admin, organizationId, invitationId })
      expect(first.revokedAt?.epochMilliseconds).toBe(T0)
      yield* TestClock.adjust("1 minute")
      const again = yield* invitations.revoke({ actorId: owner, organizationId, invitationId })
      expect(again).toEqual(first)
      const refused = yield* Effect.result(invitations.accept({ accountId: invitee, token: created.token }))
      expect(Result.isFailure(refused) && refused.failure).toMatchObject({ _tag: "InvitationNotPending", state: "revoked" })
      const other = yield* invitations.create({ actorId: owner, organizationId, email, role: "member" })
      yield* invitations.accept({ accountId: invitee, token: other.token })
      const late = yield* Effect.result(invitations.revoke({ actorId: owner, organizationId, invitationId: other.invitation.invitationId }))
      expect(Result.isFailure(late) && late.failure).toMatchObject({ _tag: "InvitationNotPending", state: "accepted" })
      // Another organization's invitation is not found here.
      const elsewhere = yield* (yield* Organizations).create({ accountId: owner, name: "Elsewhere" })
      expect(yield* failureTag(invitations.revoke({ actorId: owner, organizationId: elsewhere.organizationId, invitationId })))
        .toBe("InvitationNotFound")
    }).pipe(Effect.provide(Env)))

  it.effect("accept: someone who joined meanwhile gets MemberAlreadyExists and the invitation stays pending", () =>
    Effect.gen(function*() {
      const { organizationId, owner } = yield* orgWith([])
      const invitations = yield* Invitations
      const invitee = yield* account()
      const email = (yield* (yield* Accounts).get(invitee)).email
      const first = yield* invitations.create({ actorId: owner, organizationId, email, role: "member" })
      const second = yield* invitations.create({ actorId: owner, organizationId, email, role: "admin" })
      yield* invitations.accept({ accountId: invitee, token: second.token })
      expect(yield* failureTag(invitations.accept({ accountId: invitee, token: first.token }))).toBe("MemberAlreadyExists")
      const pending = yield* invitations.listPending({ actorId: owner, organizationId })
      expect(pending.items.map((i) => i.invitationId)).toEqual([first.invitation.invitationId])
    }).pipe(Effect.provide(Env)))

  it.effect("listPending: owners and admins see pending invitations in pages; members may not", () =>
    Effect.gen(function*() {
      const { members, organizationId, owner } = yield* orgWith(["admin", "member"])
      const [admin, member] = members as [AccountId, AccountId]
      const invitations = yield* Invitations
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) {
        ids.push((yield* invitations.create({ actorId: owner, organizationId, email: `p${i}.${++seq}@example.com`, role: "member" })).invitation.invitationId)
        yield* TestClock.adjust("1 millis")
      }
      yield* invitations.revoke({ actorId: owner, organizationId, invitationId: ids[1] as never })
      const page1 = yield* invitations.listPending({ actorId: admin, organizationId, pageSize: 1 })
      expect(page1.items.map((i) => i.invitationId)).toEqual([ids[0]])
      const page2 = yield* invitations.listPending({ actorId: admin, organizationId, pageSize: 1, pageToken: page1.nextPageToken })
      expect(page2.items.map((i) => i.invitationId)).toEqual([ids[2]])
      expect(page2.nextPageToken).toBeUndefined()
      expect(yield* failureTag(invitations.listPending({ actorId: member, organizationId }))).toBe("OrganizationActionForbidden")
      yield* TestClock.adjust(7 * DAY)
      expect((yield* invitations.listPending({ actorId: owner, organizationId })).items).toEqual([])
    }).pipe(Effect.provide(Env)))
})

describe("access to the organization routes (the requirements the HTTP handlers state)", () => {
  const accountId = AccountId.make(formatTypeId(IdKinds.account, uuidv7Bytes(T0, new Uint8Array(10))))
  const read = Requirement.Organizations({ scope: "members:read" })
  const write = Requirement.Organizations({ scope: "members:write" })
  const token = (scopes: ReadonlyArray<string>) => Principal.AccessToken({ accountId, scopes, tokenId: "t", origin: "session" })
  const projectKey = Principal.ProjectKey({
    projectId: ProjectId.make("01890a5d-ac96-774b-bcce-b302099a8057"),
    apiKeyId: ApiKeyId.make(formatTypeId(IdKinds.projectApiKey, uuidv7Bytes(T0, new Uint8Array(10)))),
    permissions: ["project:read", "project:write"]
  })
  const outcome = (p: Principal | undefined, r: Requirement) => Result.match(decide(p, r), { onFailure: (e) => e.code, onSuccess: () => "allow" })
  const table: ReadonlyArray<[string, Principal | undefined, Requirement, string]> = [
    ["no credential", undefined, read, "NOT_AUTHENTICATED"],
    ["a service key, read", Principal.Account({ accountId, serviceKeyId: "sb_ask_x" as never }), read, "allow"],
    ["a service key, write", Principal.Account({ accountId, serviceKeyId: "sb_ask_x" as never }), write, "allow"],
    ["a token with members:read, read", token(["members:read"]), read, "allow"],
    ["a token with members:read, write", token(["members:read"]), write, "INSUFFICIENT_SCOPE"],
    ["a token with members:write, write", token(["members:write"]), write, "allow"],
    ["a token with other scopes", token(["projects:read", "projects:write"]), read, "INSUFFICIENT_SCOPE"],
    ["a project API key, read", projectKey, read, "FORBIDDEN"],
    ["a project API key, write", projectKey, write, "FORBIDDEN"]
  ]
  for (const [name, principal, requirement, expected] of table) {
    it(`${name} → ${expected}`, () => {
      expect(outcome(principal, requirement)).toBe(expected)
    })
  }
})
