/**
 * The Organizations feature's memory layers: organizations, memberships and invitations as tables
 * of the shared `MemoryState` (so transactions roll them back). Member emails come from the identity
 * slice's `accounts` table, as the SQL layer joins them. Each operation is one synchronous step, so
 * the read-then-write ones (remove a member, accept an invitation) are atomic here.
 */
import { type AccountRecord } from "@switchboard/core/accounts"
import {
  InvitationNotFound,
  InvitationNotPending,
  type InvitationRecord,
  InvitationsRepo,
  MemberAlreadyExists,
  type MembershipRecord,
  type OrganizationRecord,
  type OrganizationRole,
  OrganizationsRepo,
  type PageRequest
} from "@switchboard/core/organizations"
import { type AccountId, type OrganizationId } from "@switchboard/core/shared"
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

interface MembershipRow {
  readonly organizationId: OrganizationId
  readonly accountId: AccountId
  readonly role: OrganizationRole
  readonly joinedAt: DateTime.Utc
}

interface InvitationRow {
  readonly invitation: InvitationRecord
  readonly tokenHash: string
}

const memberKey = (organizationId: string, accountId: string) => `${organizationId}\u0000${accountId}`

/** Ascending by `(at, id)` — ids compared by code unit, as PostgreSQL's "C" collation does. */
const byCursor = <A>(cursorOf: (a: A) => { at: DateTime.Utc; id: string }) => (a: A, b: A) => {
  const x = cursorOf(a)
  const y = cursorOf(b)
  return DateTime.toEpochMillis(x.at) - DateTime.toEpochMillis(y.at) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)
}

/** The rows after the page's cursor, at most `limit` of them. */
const page = <A>(rows: ReadonlyArray<A>, request: PageRequest, cursorOf: (a: A) => { at: DateTime.Utc; id: string }) => {
  const sorted = [...rows].sort(byCursor(cursorOf))
  const after = request.after
  const rest = after === undefined
    ? sorted
    : sorted.filter((row) => {
      const c = cursorOf(row)
      return DateTime.toEpochMillis(c.at) > DateTime.toEpochMillis(after.createdAt) || (DateTime.toEpochMillis(c.at) === DateTime.toEpochMillis(after.createdAt) && c.id > after.id)
    })
  return rest.slice(0, request.limit)
}

const stateOf = (i: InvitationRecord, now: DateTime.Utc) =>
  i.acceptedAt !== null ? "accepted" as const
  : i.revokedAt !== null ? "revoked" as const
  : !DateTime.isGreaterThan(i.expiresAt, now) ? "expired" as const
  : undefined

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const accounts = state.table<string, AccountRecord>("accounts")
  const organizations = state.table<string, OrganizationRecord>("organizations")
  const memberships = state.table<string, MembershipRow>("organization_memberships")
  const invitations = state.table<string, InvitationRow>("organization_invitations")

  const membersOf = (organizationId: string) => [...memberships.values()].filter((m) => m.organizationId === organizationId)
  const withEmail = (m: MembershipRow): MembershipRecord => ({ ...m, email: accounts.get(m.accountId)?.email ?? "" })
  // Referential integrity as the SQL foreign keys give it: a violation is a bug in the caller.
  const requireRows = (organizationId: string, accountId: string) =>
    !organizations.has(organizationId)
      ? Effect.die(new Error(`no organization ${organizationId}`))
      : !accounts.has(accountId)
      ? Effect.die(new Error(`no account ${accountId}`))
      : Effect.void

  const repo = OrganizationsRepo.of({
    insert: (organization, owner) =>
      Effect.suspend(() => {
        if (!accounts.has(owner)) return Effect.die(new Error(`no account ${owner}`))
        if (organizations.has(organization.organizationId)) {
          return Effect.die(new Error(`duplicate organization ${organization.organizationId}`))
        }
        organizations.set(organization.organizationId, organization)
        memberships.set(memberKey(organization.organizationId, owner), {
          organizationId: organization.organizationId,
          accountId: owner,
          role: "owner",
          joinedAt: organization.createdAt
        })
        return Effect.void
      }),
    findById: (organizationId) => Effect.sync(() => Option.fromNullishOr(organizations.get(organizationId))),
    listForAccount: (accountId, request) =>
      Effect.sync(() => {
        const mine = [...memberships.values()]
          .filter((m) => m.accountId === accountId)
          .flatMap((m) => Option.toArray(Option.fromNullishOr(organizations.get(m.organizationId))))
        return page(mine, request, (o) => ({ at: o.createdAt, id: o.organizationId }))
      }),
    roleOf: (organizationId, accountId) =>
      Effect.sync(() => Option.map(Option.fromNullishOr(memberships.get(memberKey(organizationId, accountId))), (m) => m.role)),
    listMembers: (organizationId, request) =>
      Effect.sync(() => page(membersOf(organizationId), request, (m) => ({ at: m.joinedAt, id: m.accountId })).map(withEmail)),
    addMember: ({ accountId, now, organizationId, role }) =>
      Effect.andThen(
        requireRows(organizationId, accountId),
        Effect.suspend(() => {
          const key = memberKey(organizationId, accountId)
          if (memberships.has(key)) return Effect.fail(new MemberAlreadyExists({ organizationId, accountId }))
          memberships.set(key, { organizationId, accountId, role, joinedAt: now })
          return Effect.void
        })
      ),
    removeMember: (organizationId, accountId) =>
      Effect.sync((): Option.Option<OrganizationRole | "last_owner"> => {
        const key = memberKey(organizationId, accountId)
        const row = memberships.get(key)
        if (row === undefined) return Option.none()
        if (row.role === "owner" && membersOf(organizationId).filter((m) => m.role === "owner").length <= 1) {
          return Option.some("last_owner")
        }
        memberships.delete(key)
        return Option.some(row.role)
      }),
    setRole: (organizationId, accountId, role) =>
      Effect.sync((): Option.Option<OrganizationRole | "last_owner"> => {
        const key = memberKey(organizationId, accountId)
        const row = memberships.get(key)
        if (row === undefined) return Option.none()
        if (row.role === "owner" && role !== "owner" && membersOf(organizationId).filter((m) => m.role === "owner").length <= 1) {
          return Option.some("last_owner")
        }
        memberships.set(key, { ...row, role })
        return Option.some(row.role)
      }),
    ownsAny: (accountId) =>
      Effect.sync(() => [...memberships.values()].some((m) => m.accountId === accountId && m.role === "owner"))
  })

  const invitationsRepo = InvitationsRepo.of({
    insert: (invitation, tokenHash) =>
      Effect.suspend(() => {
        if (!organizations.has(invitation.organizationId)) {
          return Effect.die(new Error(`no organization ${invitation.organizationId}`))
        }
        if (invitations.has(invitation.invitationId) || [...invitations.values()].some((r) => r.tokenHash === tokenHash)) {
          return Effect.die(new Error("duplicate invitation id or token"))
        }
        invitations.set(invitation.invitationId, { invitation, tokenHash })
        return Effect.void
      }),
    findByTokenHash: (tokenHash) =>
      Effect.sync(() =>
        Option.map(Option.fromNullishOr([...invitations.values()].find((r) => r.tokenHash === tokenHash)), (r) => r.invitation)
      ),
    listPending: (organizationId, now, request) =>
      Effect.sync(() => {
        const pending = [...invitations.values()]
          .map((r) => r.invitation)
          .filter((i) => i.organizationId === organizationId && stateOf(i, now) === undefined)
        return page(pending, request, (i) => ({ at: i.createdAt, id: i.invitationId }))
      }),
    revoke: ({ invitationId, now, organizationId }) =>
      Effect.suspend((): Effect.Effect<Option.Option<InvitationRecord>, InvitationNotPending> => {
        const row = invitations.get(invitationId)
        if (row === undefined || row.invitation.organizationId !== organizationId) return Effect.succeed(Option.none())
        if (row.invitation.acceptedAt !== null) {
          return Effect.fail(new InvitationNotPending({ invitationId, state: "accepted" }))
        }
        if (row.invitation.revokedAt !== null) return Effect.succeed(Option.some(row.invitation))
        const invitation = { ...row.invitation, revokedAt: now }
        invitations.set(invitationId, { ...row, invitation })
        return Effect.succeed(Option.some(invitation))
      }),
    accept: ({ accountId, invitationId, now }) =>
      Effect.suspend((): Effect.Effect<MembershipRecord, InvitationNotFound | InvitationNotPending | MemberAlreadyExists> => {
        const row = invitations.get(invitationId)
        if (row === undefined) return Effect.fail(new InvitationNotFound({ invitationId }))
        const { invitation } = row
        const unusable = stateOf(invitation, now)
        if (unusable !== undefined) return Effect.fail(new InvitationNotPending({ invitationId, state: unusable }))
        const key = memberKey(invitation.organizationId, accountId)
        if (memberships.has(key)) {
          return Effect.fail(new MemberAlreadyExists({ organizationId: invitation.organizationId, accountId }))
        }
        if (!accounts.has(accountId)) return Effect.die(new Error(`no account ${accountId}`))
        const membership: MembershipRow = { organizationId: invitation.organizationId, accountId, role: invitation.role, joinedAt: now }
        memberships.set(key, membership)
        invitations.set(invitationId, { ...row, invitation: { ...invitation, acceptedAt: now, acceptedByAccountId: accountId } })
        return Effect.succeed(withEmail(membership))
      })
  })

  return Layer.mergeAll(Layer.succeed(OrganizationsRepo, repo), Layer.succeed(InvitationsRepo, invitationsRepo))
})

/** Organizations, memberships and invitations over the shared memory state. */
export const OrganizationsMemory: Layer.Layer<OrganizationsRepo | InvitationsRepo, never, MemoryState> = Layer.unwrap(make)
