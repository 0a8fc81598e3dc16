/**
 * Invitations to organizations (docs/api-notes/accounts-and-projects.md): the store's port, added
 * by the Organizations feature. Tokens are never stored, only their SHA-256.
 */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { AccountId, OrganizationId } from "../shared/Identifiers.js"
import type { InvitationNotFound, InvitationNotPending } from "./OrganizationErrors.js"
import type { InvitationId } from "./OrganizationSchema.js"
import type { MemberAlreadyExists, MembershipRecord, OrganizationRole, PageRequest } from "./OrganizationsPorts.js"

export interface InvitationRecord {
  readonly invitationId: InvitationId
  readonly organizationId: OrganizationId
  /** As sent; compared without regard to case. */
  readonly email: string
  readonly role: OrganizationRole
  readonly invitedByAccountId: AccountId
  readonly createdAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc
  readonly acceptedAt: DateTime.Utc | null
  readonly acceptedByAccountId: AccountId | null
  readonly revokedAt: DateTime.Utc | null
}

export class InvitationsRepo extends Context.Service<InvitationsRepo, {
  /** Stores a new invitation with the SHA-256 (hex) of its token; the organization must exist. */
  readonly insert: (invitation: InvitationRecord, tokenHash: string) => Effect.Effect<void>
  readonly findByTokenHash: (tokenHash: string) => Effect.Effect<Option.Option<InvitationRecord>>
  /** Invitations neither accepted, revoked nor expired at `now`, by `createdAt` then id. */
  readonly listPending: (
    organizationId: OrganizationId,
    now: DateTime.Utc,
    page: PageRequest
  ) => Effect.Effect<ReadonlyArray<InvitationRecord>>
  /**
   * Sets `revokedAt` to `now` unless already set (a repeat keeps the first time) and returns the
   * invitation; none when the organization has no such invitation; fails when it was accepted.
   */
  readonly revoke: (args: {
    readonly organizationId: OrganizationId
    readonly invitationId: InvitationId
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<InvitationRecord>, InvitationNotPending>
  /**
   * Accepts a pending invitation for `accountId`, atomically (the invitation row locked): checks it
   * is neither accepted, revoked nor expired at `now`, adds the member with the invitation's role,
   * and marks it accepted. When the account is already a member nothing changes.
   */
  readonly accept: (args: {
    readonly invitationId: InvitationId
    readonly accountId: AccountId
    readonly now: DateTime.Utc
  }) => Effect.Effect<MembershipRecord, InvitationNotFound | InvitationNotPending | MemberAlreadyExists>
}>()("core/InvitationsRepo") {}
