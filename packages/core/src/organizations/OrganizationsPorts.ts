/**
 * Organizations and memberships (docs/api-notes/accounts-and-projects.md): the store's port.
 * Implemented by the Organizations feature (memory and SQL); used by projects, API keys and account
 * deletion to decide who belongs where. Fixed first so those features could be built at the same
 * time.
 */
import { Context, DateTime, type Effect, type Option, Schema } from "effect"
import type { AccountId, OrganizationId } from "../shared/Identifiers.js"
import type { CreatedPosition } from "../shared/PageToken.js"

export const OrganizationRole = Schema.Literals(["owner", "admin", "member"])
export type OrganizationRole = typeof OrganizationRole.Type

export interface OrganizationRecord {
  readonly organizationId: OrganizationId
  readonly name: string
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

export interface MembershipRecord {
  readonly organizationId: OrganizationId
  readonly accountId: AccountId
  readonly email: string
  readonly role: OrganizationRole
  readonly joinedAt: DateTime.Utc
}

/** A page of rows after a cursor `(createdAt or joinedAt, id)`, in ascending order. */
export interface PageRequest {
  readonly after: CreatedPosition | undefined
  readonly limit: number
}

export class MemberAlreadyExists extends Schema.TaggedError<MemberAlreadyExists>()("MemberAlreadyExists", {
  organizationId: Schema.String,
  accountId: Schema.String
}) {}

export class OrganizationsRepo extends Context.Service<OrganizationsRepo, {
  /** Creates the organization with `owner` as its first owner, atomically. */
  readonly insert: (organization: OrganizationRecord, owner: AccountId) => Effect.Effect<void>
  readonly findById: (organizationId: OrganizationId) => Effect.Effect<Option.Option<OrganizationRecord>>
  /** The organizations `accountId` belongs to, oldest first. */
  readonly listForAccount: (accountId: AccountId, page: PageRequest) => Effect.Effect<ReadonlyArray<OrganizationRecord>>
  /** The role of an account in an organization, if it is a member. */
  readonly roleOf: (organizationId: OrganizationId, accountId: AccountId) => Effect.Effect<Option.Option<OrganizationRole>>
  /** Members with their email, by `joinedAt` then account id. */
  readonly listMembers: (organizationId: OrganizationId, page: PageRequest) => Effect.Effect<ReadonlyArray<MembershipRecord>>
  readonly addMember: (args: {
    readonly organizationId: OrganizationId
    readonly accountId: AccountId
    readonly role: OrganizationRole
    readonly now: DateTime.Utc
  }) => Effect.Effect<void, MemberAlreadyExists>
  /**
   * Removes a member unless that would leave the organization without an owner (checked with the
   * organization row locked, so two concurrent removals cannot both pass). Returns the removed
   * role, `none` when not a member, or `"last_owner"` when refused.
   */
  readonly removeMember: (organizationId: OrganizationId, accountId: AccountId) => Effect.Effect<
    Option.Option<OrganizationRole | "last_owner">
  >
  /**
   * Gives a member another role unless that would leave the organization without an owner (checked
   * with the organization row locked, as `removeMember`). Returns the member's previous role,
   * `none` when not a member, or `"last_owner"` when refused.
   */
  readonly setRole: (organizationId: OrganizationId, accountId: AccountId, role: OrganizationRole) => Effect.Effect<
    Option.Option<OrganizationRole | "last_owner">
  >
  /** Whether the account is an owner of any organization (account deletion refuses then). */
  readonly ownsAny: (accountId: AccountId) => Effect.Effect<boolean>
}>()("core/OrganizationsRepo") {}
