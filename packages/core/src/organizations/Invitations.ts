/**
 * Invitations to organizations (docs/api-notes/accounts-and-projects.md). Owners and admins invite
 * by email with a role (admins not as owner); the token — 32 CSPRNG bytes as 43 base64url
 * characters — is shown once and stored as its SHA-256 only; it expires after 7 days. Only the
 * account with the invited email (without regard to case) may accept, once, while the invitation is
 * neither revoked nor expired.
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Redacted } from "effect"
import { base64url, sha256Hex } from "../internal/Crypto.js"
import { type AccountId, IdKinds, type OrganizationId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Secrets } from "../shared/Secrets.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { AccountNotFound } from "../accounts/Errors.js"
import { type InvitationRecord, InvitationsRepo } from "./InvitationsPorts.js"
import { InvitationEmailMismatch, InvitationNotFound, OrganizationActionForbidden } from "./OrganizationErrors.js"
import { organizationPage, type PageInput } from "./OrganizationPages.js"
import { type Invitation, InvitationId } from "./OrganizationSchema.js"
import { MemberAlreadyExists, type OrganizationRole, OrganizationsRepo } from "./OrganizationsPorts.js"
import { Organizations } from "./Organizations.js"
import { AccountsRepo } from "../accounts/Ports.js"
import { fn } from "../internal/Traced.js"

/** How long an invitation can be accepted. */
export const INVITATION_TTL = Duration.days(7)
/** Random bytes in a token: 256 bits, 43 base64url characters. */
export const INVITATION_TOKEN_BYTES = 32

export interface CreatedInvitation {
  readonly invitation: InvitationRecord
  /** The token, shown once. */
  readonly token: Redacted.Redacted<string>
}

/** The wire shape of a stored invitation (who invited and who accepted stay internal). */
export const toInvitation = (i: InvitationRecord): Invitation => ({
  invitationId: i.invitationId,
  organizationId: i.organizationId,
  email: i.email,
  role: i.role,
  createdAt: i.createdAt,
  expiresAt: i.expiresAt,
  acceptedAt: i.acceptedAt,
  revokedAt: i.revokedAt
})

const canManage = (role: OrganizationRole) => role === "owner" || role === "admin"

export class Invitations extends Context.Service<Invitations>()("core/Invitations", {
  make: Effect.gen(function*() {
    const repo = yield* InvitationsRepo
    const organizationsRepo = yield* OrganizationsRepo
    const accounts = yield* AccountsRepo
    const organizations = yield* Organizations
    const ids = yield* Ids
    const secrets = yield* Secrets
    const secret = yield* ServerSecret
    const withSecret = Effect.provideService(ServerSecret, secret)

    /** The caller must be an owner or admin of the organization (a non-member gets not found). */
    const manager = (organizationId: OrganizationId, accountId: AccountId, action: string) =>
      Effect.flatMap(organizations.roleIn(organizationId, accountId), (role) =>
        canManage(role)
          ? Effect.succeed(role)
          : Effect.fail(new OrganizationActionForbidden({ message: `Only owners and admins can ${action}.` })))

    const create = fn("Invitations.create")(function*(input: {
      readonly actorId: AccountId
      readonly organizationId: OrganizationId
      readonly email: string
      readonly role: OrganizationRole
    }) {
      const actorRole = yield* manager(input.organizationId, input.actorId, "invite members")
      if (actorRole === "admin" && input.role === "owner") {
        return yield* new OrganizationActionForbidden({ message: "Admins cannot invite owners." })
      }
      // Inviting someone who already belongs is a mistake worth telling at once, not at acceptance.
      const invitee = yield* accounts.findByEmail(input.email)
      if (Option.isSome(invitee) && Option.isSome(yield* organizationsRepo.roleOf(input.organizationId, invitee.value.accountId))) {
        return yield* new MemberAlreadyExists({ organizationId: input.organizationId, accountId: invitee.value.accountId })
      }
      const now = yield* DateTime.now
      const token = base64url(yield* secrets.randomBytes(INVITATION_TOKEN_BYTES))
      const invitation: InvitationRecord = {
        invitationId: InvitationId.make(yield* ids.typeId(IdKinds.invitation)),
        organizationId: input.organizationId,
        email: input.email,
        role: input.role,
        invitedByAccountId: input.actorId,
        createdAt: now,
        expiresAt: DateTime.addDuration(now, INVITATION_TTL),
        acceptedAt: null,
        acceptedByAccountId: null,
        revokedAt: null
      }
      yield* repo.insert(invitation, yield* sha256Hex(token))
      return { invitation, token: Redacted.make(token) } satisfies CreatedInvitation
    })

    /**
     * Accepts by token for the acting account. Unknown token → not found; another email → email
     * mismatch (checked before the state, so a stranger learns nothing about the invitation);
     * accepted/revoked/expired → not pending; already a member → `MemberAlreadyExists`.
     */
    const accept = fn("Invitations.accept")(function*(input: {
      readonly accountId: AccountId
      readonly token: Redacted.Redacted<string>
    }) {
      const found = yield* repo.findByTokenHash(yield* sha256Hex(Redacted.value(input.token)))
      if (Option.isNone(found)) return yield* new InvitationNotFound({})
      const invitation = found.value
      const account = yield* accounts.findById(input.accountId)
      if (Option.isNone(account)) return yield* new AccountNotFound({ accountId: input.accountId })
      if (account.value.email.toLowerCase() !== invitation.email.toLowerCase()) {
        return yield* new InvitationEmailMismatch({ invitationId: invitation.invitationId })
      }
      const now = yield* DateTime.now
      return yield* repo.accept({ invitationId: invitation.invitationId, accountId: input.accountId, now })
    })

    /** Revokes a pending (or expired) invitation; a repeat returns the same `revokedAt`. */
    const revoke = fn("Invitations.revoke")(function*(input: {
      readonly actorId: AccountId
      readonly organizationId: OrganizationId
      readonly invitationId: InvitationId
    }) {
      yield* manager(input.organizationId, input.actorId, "revoke invitations")
      const now = yield* DateTime.now
      const revoked = yield* repo.revoke({ organizationId: input.organizationId, invitationId: input.invitationId, now })
      if (Option.isNone(revoked)) return yield* new InvitationNotFound({ invitationId: input.invitationId })
      return revoked.value
    })

    /** Pending invitations (not accepted, revoked or expired), oldest first; owners and admins only. */
    const listPending = fn("Invitations.listPending")(function*(input: {
      readonly actorId: AccountId
      readonly organizationId: OrganizationId
    } & PageInput) {
      yield* manager(input.organizationId, input.actorId, "list invitations")
      const name = `invitations:${input.organizationId}`
      const now = yield* DateTime.now
      return yield* withSecret(organizationPage(name, input, (request) => repo.listPending(input.organizationId, now, request), (i) => ({
        createdAt: i.createdAt,
        id: i.invitationId
      })))
    })

    return { create, accept, revoke, listPending } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer, Organizations.layer]))
}
