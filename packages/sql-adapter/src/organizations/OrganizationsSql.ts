/**
 * The Organizations feature's SQL repositories (docs/api-notes/accounts-and-projects.md):
 * organizations, memberships and invitations. Read-then-write operations run in one transaction
 * with a row lock: removing a member locks the organization (so two removals cannot both leave it
 * ownerless), accepting locks the invitation (so a token is used once).
 */
import { SqlClient, SqlSchema } from "effect/sql"
import {
  InvitationId,
  InvitationNotFound,
  InvitationNotPending,
  type InvitationRecord,
  InvitationsRepo,
  MemberAlreadyExists,
  type MembershipRecord,
  OrganizationRole,
  OrganizationsRepo,
  type PageRequest
} from "@switchboard/core/organizations"
import { AccountId, OrganizationId } from "@switchboard/core/shared"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { DbTime, DbTimeOrNull, die, orDie, toDate, toDateOrNull } from "../shared/Sql.js"

const OrganizationRow = Schema.Struct({
  organizationId: OrganizationId,
  name: Schema.String,
  createdAt: DbTime,
  updatedAt: DbTime
})

const MemberRow = Schema.Struct({
  organizationId: OrganizationId,
  accountId: AccountId,
  email: Schema.String,
  role: OrganizationRole,
  joinedAt: DbTime
})

const InvitationRow = Schema.Struct({
  invitationId: InvitationId,
  organizationId: OrganizationId,
  email: Schema.String,
  role: OrganizationRole,
  invitedByAccountId: AccountId,
  createdAt: DbTime,
  expiresAt: DbTime,
  acceptedAt: DbTimeOrNull,
  acceptedByAccountId: Schema.NullOr(AccountId),
  revokedAt: DbTimeOrNull
})

const RoleRow = Schema.Struct({ role: OrganizationRole })

/** A page's cursor as query parameters. */
const Page = Schema.Struct({
  after: Schema.UndefinedOr(Schema.Struct({ at: Schema.Date, id: Schema.String })),
  limit: Schema.Int
})
const pageParams = (page: PageRequest) => ({
  after: page.after === undefined ? undefined : { at: toDate(page.after.createdAt), id: page.after.id },
  limit: page.limit
})

const stateOf = (i: InvitationRecord, now: DateTime.Utc) =>
  i.acceptedAt !== null ? "accepted" as const
  : i.revokedAt !== null ? "revoked" as const
  : !DateTime.isGreaterThan(i.expiresAt, now) ? "expired" as const
  : undefined

export const OrganizationsReposSql = Layer.unwrap(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const invitationCols = sql.literal(
    "invitation_id, organization_id, email, role, invited_by_account_id, created_at, expires_at, accepted_at, accepted_by_account_id, revoked_at"
  )
  /** `(time, id) > cursor`, or no condition on the first page. */
  const after = (time: string, id: string, page: typeof Page.Type) =>
    page.after === undefined
      ? sql.literal("true")
      : sql`(${sql.literal(time)}, ${sql.literal(id)}) > (${page.after.at}, ${page.after.id})`

  const findOrganization = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: OrganizationRow,
    execute: (id) => sql`select organization_id, name, created_at, updated_at from organizations where organization_id = ${id}`
  })
  const listForAccount = SqlSchema.findAll({
    Request: Schema.Struct({ accountId: Schema.String, page: Page }),
    Result: OrganizationRow,
    execute: ({ accountId, page }) => sql`
      select o.organization_id, o.name, o.created_at, o.updated_at
      from organization_memberships m join organizations o on o.organization_id = m.organization_id
      where m.account_id = ${accountId} and ${after("o.created_at", "o.organization_id", page)}
      order by o.created_at, o.organization_id
      limit ${page.limit}`
  })
  const roleOf = SqlSchema.findOneOption({
    Request: Schema.Struct({ organizationId: Schema.String, accountId: Schema.String }),
    Result: RoleRow,
    execute: ({ accountId, organizationId }) => sql`
      select role from organization_memberships where organization_id = ${organizationId} and account_id = ${accountId}`
  })
  const listMembers = SqlSchema.findAll({
    Request: Schema.Struct({ organizationId: Schema.String, page: Page }),
    Result: MemberRow,
    execute: ({ organizationId, page }) => sql`
      select m.organization_id, m.account_id, a.email, m.role, m.joined_at
      from organization_memberships m join accounts a on a.account_id = m.account_id
      where m.organization_id = ${organizationId} and ${after("m.joined_at", "m.account_id", page)}
      order by m.joined_at, m.account_id
      limit ${page.limit}`
  })
  const memberOf = SqlSchema.findOneOption({
    Request: Schema.Struct({ organizationId: Schema.String, accountId: Schema.String }),
    Result: MemberRow,
    execute: ({ accountId, organizationId }) => sql`
      select m.organization_id, m.account_id, a.email, m.role, m.joined_at
      from organization_memberships m join accounts a on a.account_id = m.account_id
      where m.organization_id = ${organizationId} and m.account_id = ${accountId}`
  })
  /** Inserts a membership unless there is one: true when inserted (no failed statement, so a surrounding transaction stays usable). */
  const insertMember = (m: { organizationId: string; accountId: string; role: string; joinedAt: DateTime.Utc }) =>
    Effect.map(
      sql`
        insert into organization_memberships ${sql.insert({ ...m, joinedAt: toDate(m.joinedAt) })}
        on conflict (organization_id, account_id) do nothing
        returning account_id`,
      (rows) => rows.length > 0
    )

  const findByTokenHash = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: InvitationRow,
    execute: (hash) => sql`select ${invitationCols} from organization_invitations where token_hash = ${hash}`
  })
  const lockInvitation = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: InvitationRow,
    execute: (id) => sql`select ${invitationCols} from organization_invitations where invitation_id = ${id} for update`
  })
  const listPending = SqlSchema.findAll({
    Request: Schema.Struct({ organizationId: Schema.String, now: Schema.Date, page: Page }),
    Result: InvitationRow,
    execute: ({ now, organizationId, page }) => sql`
      select ${invitationCols} from organization_invitations
      where organization_id = ${organizationId} and accepted_at is null and revoked_at is null and expires_at > ${now}
        and ${after("created_at", "invitation_id", page)}
      order by created_at, invitation_id
      limit ${page.limit}`
  })

  const organizations = OrganizationsRepo.of({
    insert: (organization, owner) =>
      orDie(sql.withTransaction(Effect.gen(function*() {
        yield* sql`insert into organizations ${sql.insert({
          organizationId: organization.organizationId,
          name: organization.name,
          createdAt: toDate(organization.createdAt),
          updatedAt: toDate(organization.updatedAt)
        })}`
        yield* insertMember({
          organizationId: organization.organizationId,
          accountId: owner,
          role: "owner",
          joinedAt: organization.createdAt
        })
      }))),
    findById: (organizationId) => orDie(findOrganization(organizationId)),
    listForAccount: (accountId, page) => orDie(listForAccount({ accountId, page: pageParams(page) })),
    roleOf: (organizationId, accountId) =>
      orDie(roleOf({ organizationId, accountId })).pipe(Effect.map(Option.map((r) => r.role))),
    listMembers: (organizationId, page) => orDie(listMembers({ organizationId, page: pageParams(page) })),
    addMember: ({ accountId, now, organizationId, role }) =>
      orDie(insertMember({ organizationId, accountId, role, joinedAt: now })).pipe(
        Effect.flatMap((inserted) => inserted ? Effect.void : Effect.fail(new MemberAlreadyExists({ organizationId, accountId })))
      ),
    removeMember: (organizationId, accountId) =>
      orDie(sql.withTransaction(Effect.gen(function*() {
        // The organization row serialises removals (NO KEY UPDATE leaves member inserts unblocked),
        // so the owner count below stays true until commit.
        const org = yield* sql`select 1 from organizations where organization_id = ${organizationId} for no key update`
        if (org.length === 0) return Option.none()
        const member = yield* roleOf({ organizationId, accountId })
        if (Option.isNone(member)) return Option.none()
        if (member.value.role === "owner") {
          const [owners] = yield* sql<{ count: number }>`
            select count(*)::int as count from organization_memberships
            where organization_id = ${organizationId} and role = 'owner'`
          if ((owners?.count ?? 0) <= 1) return Option.some("last_owner" as const)
        }
        yield* sql`delete from organization_memberships where organization_id = ${organizationId} and account_id = ${accountId}`
        return Option.some(member.value.role)
      }))),
    setRole: (organizationId, accountId, role) =>
      orDie(sql.withTransaction(Effect.gen(function*() {
        // Locked as in removeMember: a demotion and a removal cannot both take the last owner.
        const org = yield* sql`select 1 from organizations where organization_id = ${organizationId} for no key update`
        if (org.length === 0) return Option.none()
        const member = yield* roleOf({ organizationId, accountId })
        if (Option.isNone(member)) return Option.none()
        if (member.value.role === "owner" && role !== "owner") {
          const [owners] = yield* sql<{ count: number }>`
            select count(*)::int as count from organization_memberships
            where organization_id = ${organizationId} and role = 'owner'`
          if ((owners?.count ?? 0) <= 1) return Option.some("last_owner" as const)
        }
        yield* sql`update organization_memberships set role = ${role}
          where organization_id = ${organizationId} and account_id = ${accountId}`
        return Option.some(member.value.role)
      }))),
    ownsAny: (accountId) =>
      orDie(sql<{ owns: boolean }>`
        select exists (
          select 1 from organization_memberships where account_id = ${accountId} and role = 'owner'
        ) as owns`).pipe(Effect.map((rows) => rows[0]?.owns === true))
  })

  const invitations = InvitationsRepo.of({
    insert: (i, tokenHash) =>
      orDie(sql`insert into organization_invitations ${sql.insert({
        invitationId: i.invitationId,
        organizationId: i.organizationId,
        email: i.email,
        role: i.role,
        tokenHash,
        invitedByAccountId: i.invitedByAccountId,
        createdAt: toDate(i.createdAt),
        expiresAt: toDate(i.expiresAt),
        acceptedAt: toDateOrNull(i.acceptedAt),
        acceptedByAccountId: i.acceptedByAccountId,
        revokedAt: toDateOrNull(i.revokedAt)
      })}`),
    findByTokenHash: (hash) => orDie(findByTokenHash(hash)),
    listPending: (organizationId, now, page) => orDie(listPending({ organizationId, now: toDate(now), page: pageParams(page) })),
    revoke: ({ invitationId, now, organizationId }) =>
      sql.withTransaction(Effect.gen(function*() {
        const found = yield* lockInvitation(invitationId)
        if (Option.isNone(found) || found.value.organizationId !== organizationId) return Option.none<InvitationRecord>()
        const invitation = found.value
        if (invitation.acceptedAt !== null) return yield* new InvitationNotPending({ invitationId, state: "accepted" })
        if (invitation.revokedAt !== null) return Option.some<InvitationRecord>(invitation)
        yield* sql`update organization_invitations set revoked_at = ${toDate(now)} where invitation_id = ${invitationId}`
        return Option.some<InvitationRecord>({ ...invitation, revokedAt: now })
      })).pipe(Effect.catchTags({ SqlError: die, SchemaError: die })),
    accept: ({ accountId, invitationId, now }) =>
      sql.withTransaction(Effect.gen(function*() {
        const found = yield* lockInvitation(invitationId)
        if (Option.isNone(found)) return yield* new InvitationNotFound({ invitationId })
        const invitation = found.value
        const unusable = stateOf(invitation, now)
        if (unusable !== undefined) return yield* new InvitationNotPending({ invitationId, state: unusable })
        const { organizationId, role } = invitation
        if (!(yield* insertMember({ organizationId, accountId, role, joinedAt: now }))) {
          return yield* new MemberAlreadyExists({ organizationId, accountId })
        }
        yield* sql`
          update organization_invitations set accepted_at = ${toDate(now)}, accepted_by_account_id = ${accountId}
          where invitation_id = ${invitationId}`
        const member = yield* memberOf({ organizationId, accountId })
        return Option.getOrThrowWith(member, () => new Error("membership vanished inside its transaction")) satisfies MembershipRecord
      })).pipe(Effect.catchTags({ SqlError: die, SchemaError: die }))
  })

  return Layer.mergeAll(Layer.succeed(OrganizationsRepo, organizations), Layer.succeed(InvitationsRepo, invitations))
}))
