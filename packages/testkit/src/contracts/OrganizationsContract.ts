/**
 * The Organizations feature's part of the repository contract suite (called inside
 * `repositoryContract`): organizations, memberships and invitations. The store is shared by the
 * whole block, so every case makes its own accounts and organizations.
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import { InvitationsRepo, type OrganizationRole, OrganizationsRepo } from "@switchboard/core/organizations"
import { formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect, Option, Result } from "effect"
import { expect } from "vitest"
import {
  DAY,
  firstPage,
  invitationFixture,
  newAccount,
  newOrganization,
  organizationFixture,
  plus,
  T0,
  tokenHash
} from "./OrganizationFixtures.js"
import { organizationRolesContract } from "./OrganizationRolesContract.js"

let counter = 0

export const organizationsContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("organizations: insert stores the organization with its creator as the one owner", () =>
    Effect.gen(function*() {
      const repo = yield* OrganizationsRepo
      const owner = yield* newAccount()
      const stranger = yield* newAccount()
      const organization = organizationFixture()
      yield* repo.insert(organization, owner.accountId)
      expect(Option.getOrThrow(yield* repo.findById(organization.organizationId))).toEqual(organization)
      expect(yield* repo.roleOf(organization.organizationId, owner.accountId)).toEqual(Option.some("owner"))
      expect(Option.isNone(yield* repo.roleOf(organization.organizationId, stranger.accountId))).toBe(true)
      const members = yield* repo.listMembers(organization.organizationId, firstPage(10))
      expect(members).toEqual([{
        organizationId: organization.organizationId,
        accountId: owner.accountId,
        email: owner.email,
        role: "owner",
        joinedAt: organization.createdAt
      }])
      expect(Option.isNone(yield* repo.findById(organizationFixture().organizationId))).toBe(true)
    }))

  it.effect("organizations: listForAccount pages the account's organizations oldest first, ties by id", () =>
    Effect.gen(function*() {
      const repo = yield* OrganizationsRepo
      const me = yield* newAccount()
      const other = yield* newAccount()
      const base = plus(T0, 3_600_000 + ++counter)
      // Two share a creation time: the id breaks the tie. Insert out of order.
      const tieA = organizationFixture(plus(base, 10), formatTypeId(IdKinds.organization, uuidv7Bytes(DateTime.toEpochMillis(base), new Uint8Array(10).fill(1))))
      const tieB = organizationFixture(plus(base, 10), formatTypeId(IdKinds.organization, uuidv7Bytes(DateTime.toEpochMillis(base), new Uint8Array(10).fill(200))))
      const oldest = organizationFixture(base)
      const newest = organizationFixture(plus(base, 20))
      for (const o of [newest, tieB, oldest, tieA]) yield* repo.insert(o, me.accountId)
      // An organization the account joined as a member counts; one it does not belong to does not.
      const joined = organizationFixture(plus(base, 30))
      yield* repo.insert(joined, other.accountId)
      yield* repo.addMember({ organizationId: joined.organizationId, accountId: me.accountId, role: "member", now: plus(base, 40) })
      yield* newOrganization(other.accountId, plus(base, 15))

      const all = yield* repo.listForAccount(me.accountId, firstPage(100))
      expect(all.map((o) => o.organizationId)).toEqual(
        [oldest, tieA, tieB, newest, joined].map((o) => o.organizationId)
      )
      expect(all[0]).toEqual(oldest)
      const first = yield* repo.listForAccount(me.accountId, firstPage(2))
      expect(first.map((o) => o.organizationId)).toEqual([oldest.organizationId, tieA.organizationId])
      const second = yield* repo.listForAccount(me.accountId, {
        after: { createdAt: tieA.createdAt, id: tieA.organizationId },
        limit: 2
      })
      expect(second.map((o) => o.organizationId)).toEqual([tieB.organizationId, newest.organizationId])
      const last = yield* repo.listForAccount(me.accountId, { after: { createdAt: newest.createdAt, id: newest.organizationId }, limit: 2 })
      expect(last.map((o) => o.organizationId)).toEqual([joined.organizationId])
      expect(yield* repo.listForAccount((yield* newAccount()).accountId, firstPage(10))).toEqual([])
    }))

  it.effect("members: listMembers returns emails and roles by joinedAt then account id, in pages", () =>
    Effect.gen(function*() {
      const repo = yield* OrganizationsRepo
      const owner = yield* newAccount(`Owner${++counter}.Case${Date.now()}@Example.com`)
      const organization = yield* newOrganization(owner.accountId)
      const a = yield* newAccount()
      const b = yield* newAccount()
      const c = yield* newAccount()
      const at = plus(T0, 1000)
      // a and b join at the same instant: the account id decides.
      const [x, y] = a.accountId < b.accountId ? [a, b] : [b, a]
      yield* repo.addMember({ organizationId: organization.organizationId, accountId: y.accountId, role: "admin", now: at })
      yield* repo.addMember({ organizationId: organization.organizationId, accountId: x.accountId, role: "member", now: at })
      yield* repo.addMember({ organizationId: organization.organizationId, accountId: c.accountId, role: "owner", now: plus(at, 1) })
      const all = yield* repo.listMembers(organization.organizationId, firstPage(100))
      expect(all.map((m) => [m.accountId, m.email, m.role])).toEqual([
        [owner.accountId, owner.email, "owner"],
        [x.accountId, x.email, "member"],
        [y.accountId, y.email, "admin"],
        [c.accountId, c.email, "owner"]
      ])
      expect(all[1]?.joinedAt.epochMilliseconds).toBe(DateTime.toEpochMillis(at))
      const page1 = yield* repo.listMembers(organization.organizationId, firstPage(2))
      expect(page1.map((m) => m.accountId)).toEqual([owner.accountId, x.accountId])
      const page2 = yield* repo.listMembers(organization.organizationId, {
        after: { createdAt: page1[1]!.joinedAt, id: page1[1]!.accountId },
        limit: 2
      })
      expect(page2.map((m) => m.accountId)).toEqual([y.accountId, c.accountId])
      expect(yield* repo.listMembers(organizationFixture().organizationId, firstPage(10))).toEqual([])
    }))

  it.effect("members: addMember sets the role; a second add is MemberAlreadyExists and changes nothing", () =>
    Effect.gen(function*() {
      const repo = yield* OrganizationsRepo
      const owner = yield* newAccount()
      const member = yield* newAccount()
      const organization = yield* newOrganization(owner.accountId)
      const { organizationId } = organization
      yield* repo.addMember({ organizationId, accountId: member.accountId, role: "admin", now: plus(T0, 5) })
      expect(yield* repo.roleOf(organizationId, member.accountId)).toEqual(Option.some("admin"))
      const again = yield* Effect.result(repo.addMember({ organizationId, accountId: member.accountId, role: "owner", now: plus(T0, 9) }))
      expect(Result.isFailure(again) && again.failure).toMatchObject({
        _tag: "MemberAlreadyExists",
        organizationId,
        accountId: member.accountId
      })
      expect(yield* repo.roleOf(organizationId, member.accountId)).toEqual(Option.some("admin"))
      const ownerAgain = yield* Effect.result(repo.addMember({ organizationId, accountId: owner.accountId, role: "member", now: T0 }))
      expect(Result.isFailure(ownerAgain) && ownerAgain.failure._tag).toBe("MemberAlreadyExists")
      expect(yield* repo.roleOf(organizationId, owner.accountId)).toEqual(Option.some("owner"))
    }))

  it.effect("members: removeMember returns the removed role, none for a non-member, and refuses the last owner", () =>
    Effect.gen(function*() {
      const repo = yield* OrganizationsRepo
      const owner = yield* newAccount()
      const admin = yield* newAccount()
      const member = yield* newAccount()
      const second = yield* newAccount()
      const { organizationId } = yield* newOrganization(owner.accountId)
      yield* repo.addMember({ organizationId, accountId: admin.accountId, role: "admin", now: T0 })
      yield* repo.addMember({ organizationId, accountId: member.accountId, role: "member", now: T0 })

      expect(yield* repo.removeMember(organizationId, member.accountId)).toEqual(Option.some("member"))
      expect(Option.isNone(yield* repo.roleOf(organizationId, member.accountId))).toBe(true)
      expect(Option.isNone(yield* repo.removeMember(organizationId, member.accountId))).toBe(true)
      expect(yield* repo.removeMember(organizationId, admin.accountId)).toEqual(Option.some("admin"))
      // The sole owner stays, however often asked.
      expect(yield* repo.removeMember(organizationId, owner.accountId)).toEqual(Option.some("last_owner"))
      expect(yield* repo.roleOf(organizationId, owner.accountId)).toEqual(Option.some("owner"))
      // With a second owner, one of them may go — then the other is the last.
      yield* repo.addMember({ organizationId, accountId: second.accountId, role: "owner", now: T0 })
      expect(yield* repo.removeMember(organizationId, owner.accountId)).toEqual(Option.some("owner"))
      expect(yield* repo.removeMember(organizationId, second.accountId)).toEqual(Option.some("last_owner"))
      const left = yield* repo.listMembers(organizationId, firstPage(10))
      expect(left.map((m) => [m.accountId, m.role])).toEqual([[second.accountId, "owner"]])
      // An unknown organization has no members to remove.
      expect(Option.isNone(yield* repo.removeMember(organizationFixture().organizationId, owner.accountId))).toBe(true)
    }))

  it.effect("members: two owners removing each other at the same time leave exactly one owner", () =>
    Effect.gen(function*() {
      const repo = yield* OrganizationsRepo
      for (let round = 0; round < 5; round++) {
        const a = yield* newAccount()
        const b = yield* newAccount()
        const { organizationId } = yield* newOrganization(a.accountId)
        yield* repo.addMember({ organizationId, accountId: b.accountId, role: "owner", now: T0 })
        const results = yield* Effect.all(
          [repo.removeMember(organizationId, b.accountId), repo.removeMember(organizationId, a.accountId)],
          { concurrency: "unbounded" }
        )
        const outcomes = results.map((r) => Option.getOrThrow(r)).sort()
        expect(outcomes).toEqual(["last_owner", "owner"])
        const members = yield* repo.listMembers(organizationId, firstPage(10))
        expect(members.filter((m) => m.role === "owner")).toHaveLength(1)
      }
    }))

  it.effect("members: ownsAny is true only while the account owns an organization", () =>
    Effect.gen(function*() {
      const repo = yield* OrganizationsRepo
      const owner = yield* newAccount()
      const other = yield* newAccount()
      expect(yield* repo.ownsAny(owner.accountId)).toBe(false)
      const { organizationId } = yield* newOrganization(owner.accountId)
      expect(yield* repo.ownsAny(owner.accountId)).toBe(true)
      yield* repo.addMember({ organizationId, accountId: other.accountId, role: "admin", now: T0 })
      expect(yield* repo.ownsAny(other.accountId)).toBe(false)
      const elsewhere = yield* newOrganization(other.accountId)
      expect(yield* repo.ownsAny(other.accountId)).toBe(true)
      yield* repo.addMember({ organizationId: elsewhere.organizationId, accountId: owner.accountId, role: "owner", now: T0 })
      expect(yield* repo.removeMember(elsewhere.organizationId, other.accountId)).toEqual(Option.some("owner"))
      expect(yield* repo.ownsAny(other.accountId)).toBe(false)
    }))

  it.effect("invitations: stored with the hash of the token and found by it; never by another hash", () =>
    Effect.gen(function*() {
      const invitations = yield* InvitationsRepo
      const owner = yield* newAccount()
      const { organizationId } = yield* newOrganization(owner.accountId)
      const invitation = invitationFixture(organizationId, owner.accountId, { email: `Mixed.Case${++counter}@Example.com`, role: "admin" })
      const hash = tokenHash()
      yield* invitations.insert(invitation, hash)
      expect(Option.getOrThrow(yield* invitations.findByTokenHash(hash))).toEqual(invitation)
      expect(Option.isNone(yield* invitations.findByTokenHash(tokenHash()))).toBe(true)
    }))

  it.effect("invitations: listPending excludes accepted, revoked and expired ones, and pages by createdAt then id", () =>
    Effect.gen(function*() {
      const invitations = yield* InvitationsRepo
      const owner = yield* newAccount()
      const { organizationId } = yield* newOrganization(owner.accountId)
      const other = yield* newOrganization(owner.accountId)
      const now = plus(T0, DAY)
      const a = invitationFixture(organizationId, owner.accountId, { createdAt: plus(T0, 10) })
      const b = invitationFixture(organizationId, owner.accountId, { createdAt: plus(T0, 20) })
      const c = invitationFixture(organizationId, owner.accountId, { createdAt: plus(T0, 30), role: "owner" })
      const expired = invitationFixture(organizationId, owner.accountId, { createdAt: T0, expiresAt: now })
      const revoked = invitationFixture(organizationId, owner.accountId, { revokedAt: plus(T0, 1) })
      const accepted = invitationFixture(organizationId, owner.accountId, { acceptedAt: plus(T0, 1), acceptedByAccountId: owner.accountId })
      const elsewhere = invitationFixture(other.organizationId, owner.accountId)
      for (const i of [c, a, expired, revoked, accepted, elsewhere, b]) yield* invitations.insert(i, tokenHash())
      const all = yield* invitations.listPending(organizationId, now, firstPage(100))
      expect(all).toEqual([a, b, c])
      const page1 = yield* invitations.listPending(organizationId, now, firstPage(2))
      expect(page1.map((i) => i.invitationId)).toEqual([a.invitationId, b.invitationId])
      const page2 = yield* invitations.listPending(organizationId, now, { after: { createdAt: b.createdAt, id: b.invitationId }, limit: 2 })
      expect(page2.map((i) => i.invitationId)).toEqual([c.invitationId])
      // Just before its expiry, the expired one was still pending.
      const earlier = yield* invitations.listPending(organizationId, plus(now, -1), firstPage(100))
      expect(earlier.map((i) => i.invitationId)).toEqual([expired, a, b, c].map((i) => i.invitationId))
    }))

  it.effect("invitations: revoke sets revokedAt once, is scoped to the organization, and refuses an accepted one", () =>
    Effect.gen(function*() {
      const invitations = yield* InvitationsRepo
      const owner = yield* newAccount()
      const { organizationId } = yield* newOrganization(owner.accountId)
      const other = yield* newOrganization(owner.accountId)
      const invitation = invitationFixture(organizationId, owner.accountId)
      const hash = tokenHash()
      yield* invitations.insert(invitation, hash)
      const args = { organizationId, invitationId: invitation.invitationId }
      expect(Option.isNone(yield* invitations.revoke({ ...args, organizationId: other.organizationId, now: T0 }))).toBe(true)
      const first = Option.getOrThrow(yield* invitations.revoke({ ...args, now: plus(T0, 10) }))
      expect(first).toEqual({ ...invitation, revokedAt: plus(T0, 10) })
      const again = Option.getOrThrow(yield* invitations.revoke({ ...args, now: plus(T0, 99) }))
      expect(again).toEqual(first)
      expect(Option.getOrThrow(yield* invitations.findByTokenHash(hash)).revokedAt).toEqual(plus(T0, 10))
      const unknown = invitationFixture(organizationId, owner.accountId).invitationId
      expect(Option.isNone(yield* invitations.revoke({ organizationId, invitationId: unknown, now: T0 }))).toBe(true)

      const acceptedOne = invitationFixture(organizationId, owner.accountId)
      yield* invitations.insert(acceptedOne, tokenHash())
      const invitee = yield* newAccount()
      yield* invitations.accept({ invitationId: acceptedOne.invitationId, accountId: invitee.accountId, now: plus(T0, 1) })
      const refused = yield* Effect.result(invitations.revoke({ organizationId, invitationId: acceptedOne.invitationId, now: plus(T0, 2) }))
      expect(Result.isFailure(refused) && refused.failure).toMatchObject({ _tag: "InvitationNotPending", state: "accepted" })
    }))

  it.effect("invitations: accept adds the member with the invited role, marks the invitation, and works once", () =>
    Effect.gen(function*() {
      const invitations = yield* InvitationsRepo
      const repo = yield* OrganizationsRepo
      const owner = yield* newAccount()
      const invitee = yield* newAccount()
      const { organizationId } = yield* newOrganization(owner.accountId)
      const invitation = invitationFixture(organizationId, owner.accountId, { email: invitee.email, role: "admin" })
      const hash = tokenHash()
      yield* invitations.insert(invitation, hash)
      const now = plus(T0, 500)
      const membership = yield* invitations.accept({ invitationId: invitation.invitationId, accountId: invitee.accountId, now })
      expect(membership).toEqual({ organizationId, accountId: invitee.accountId, email: invitee.email, role: "admin", joinedAt: now })
      expect(yield* repo.roleOf(organizationId, invitee.accountId)).toEqual(Option.some("admin"))
      const stored = Option.getOrThrow(yield* invitations.findByTokenHash(hash))
      expect(stored).toEqual({ ...invitation, acceptedAt: now, acceptedByAccountId: invitee.accountId })
      expect(yield* invitations.listPending(organizationId, now, firstPage(10))).toEqual([])
      const twice = yield* Effect.result(invitations.accept({ invitationId: invitation.invitationId, accountId: invitee.accountId, now }))
      expect(Result.isFailure(twice) && twice.failure).toMatchObject({ _tag: "InvitationNotPending", state: "accepted" })
      const unknown = yield* Effect.result(invitations.accept({
        invitationId: invitationFixture(organizationId, owner.accountId).invitationId,
        accountId: invitee.accountId,
        now
      }))
      expect(Result.isFailure(unknown) && unknown.failure._tag).toBe("InvitationNotFound")
    }))

  it.effect("invitations: accept refuses expired and revoked ones, and an existing member, changing nothing", () =>
    Effect.gen(function*() {
      const invitations = yield* InvitationsRepo
      const repo = yield* OrganizationsRepo
      const owner = yield* newAccount()
      const invitee = yield* newAccount()
      const { organizationId } = yield* newOrganization(owner.accountId)
      const expiring = invitationFixture(organizationId, owner.accountId, { expiresAt: plus(T0, 100) })
      const revoked = invitationFixture(organizationId, owner.accountId)
      const forOwner = invitationFixture(organizationId, owner.accountId)
      const expiringHash = tokenHash()
      const forOwnerHash = tokenHash()
      yield* invitations.insert(expiring, expiringHash)
      yield* invitations.insert(revoked, tokenHash())
      yield* invitations.insert(forOwner, forOwnerHash)
      yield* invitations.revoke({ organizationId, invitationId: revoked.invitationId, now: plus(T0, 1) })

      const late = yield* Effect.result(invitations.accept({ invitationId: expiring.invitationId, accountId: invitee.accountId, now: plus(T0, 100) }))
      expect(Result.isFailure(late) && late.failure).toMatchObject({ _tag: "InvitationNotPending", state: "expired" })
      const gone = yield* Effect.result(invitations.accept({ invitationId: revoked.invitationId, accountId: invitee.accountId, now: plus(T0, 2) }))
      expect(Result.isFailure(gone) && gone.failure).toMatchObject({ _tag: "InvitationNotPending", state: "revoked" })
      expect(Option.isNone(yield* repo.roleOf(organizationId, invitee.accountId))).toBe(true)

      const member = yield* Effect.result(invitations.accept({ invitationId: forOwner.invitationId, accountId: owner.accountId, now: plus(T0, 3) }))
      expect(Result.isFailure(member) && member.failure).toMatchObject({ _tag: "MemberAlreadyExists", organizationId, accountId: owner.accountId })
      expect(Option.getOrThrow(yield* invitations.findByTokenHash(forOwnerHash)).acceptedAt).toBeNull()
      expect(yield* repo.roleOf(organizationId, owner.accountId)).toEqual(Option.some("owner"))
      // Still usable by the invitee, just before it expires.
      const ok = yield* invitations.accept({ invitationId: expiring.invitationId, accountId: invitee.accountId, now: plus(T0, 99) })
      expect(ok.role).toBe("member")
    }))

  it.effect("invitations: concurrent accepts of one invitation admit exactly one account", () =>
    Effect.gen(function*() {
      const invitations = yield* InvitationsRepo
      const repo = yield* OrganizationsRepo
      const owner = yield* newAccount()
      const { organizationId } = yield* newOrganization(owner.accountId)
      const invitation = invitationFixture(organizationId, owner.accountId, { role: "member" satisfies OrganizationRole })
      yield* invitations.insert(invitation, tokenHash())
      const accounts = yield* Effect.all(Array.from({ length: 4 }, () => newAccount()))
      const results = yield* Effect.all(
        accounts.map((a) => Effect.result(invitations.accept({ invitationId: invitation.invitationId, accountId: a.accountId, now: plus(T0, 1) }))),
        { concurrency: "unbounded" }
      )
      expect(results.filter(Result.isSuccess)).toHaveLength(1)
      for (const r of results) if (Result.isFailure(r)) expect(r.failure).toMatchObject({ _tag: "InvitationNotPending", state: "accepted" })
      const members = yield* repo.listMembers(organizationId, firstPage(10))
      expect(members).toHaveLength(2)
    }))
  organizationRolesContract(it)
}
