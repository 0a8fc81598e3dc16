/**
 * Fixtures shared by the Organizations feature's contract suites (OrganizationsContract.ts,
 * OrganizationRolesContract.ts): accounts, organizations and invitations written to the store.
 */
import { AccountsRepo } from "@switchboard/core/accounts"
import { InvitationId, type InvitationRecord, type OrganizationRecord, OrganizationsRepo } from "@switchboard/core/organizations"
import { type AccountId, formatTypeId, IdKinds, OrganizationId, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect } from "effect"
import { accountFixture } from "../Fixtures.js"

let counter = 0
const rand = () => crypto.getRandomValues(new Uint8Array(10))
export const T0 = DateTime.makeUnsafe("2030-01-01T00:00:00.000Z")
export const plus = (t: DateTime.Utc, ms: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(t) + ms)
export const DAY = 86_400_000

/** A new account in the store (memberships reference accounts); `email` keeps its case. */
export const newAccount = (email?: string) =>
  Effect.gen(function*() {
    const account = accountFixture(email === undefined ? {} : { email })
    yield* (yield* AccountsRepo).insert(account)
    return account
  })

export const organizationFixture = (createdAt: DateTime.Utc = T0, id?: string): OrganizationRecord => ({
  organizationId: OrganizationId.make(id ?? formatTypeId(IdKinds.organization, uuidv7Bytes(DateTime.toEpochMillis(createdAt), rand()))),
  name: `Org ${++counter}`,
  createdAt,
  updatedAt: createdAt
})

/** A new organization owned by `owner`. */
export const newOrganization = (owner: AccountId, createdAt: DateTime.Utc = T0) =>
  Effect.gen(function*() {
    const organization = organizationFixture(createdAt)
    yield* (yield* OrganizationsRepo).insert(organization, owner)
    return organization
  })

export const invitationFixture = (
  organizationId: OrganizationId,
  invitedBy: AccountId,
  overrides: Partial<InvitationRecord> = {}
): InvitationRecord => {
  const createdAt = overrides.createdAt ?? T0
  return {
    invitationId: InvitationId.make(formatTypeId(IdKinds.invitation, uuidv7Bytes(DateTime.toEpochMillis(createdAt), rand()))),
    organizationId,
    email: `invitee${++counter}.${Date.now()}@example.com`,
    role: "member",
    invitedByAccountId: invitedBy,
    createdAt,
    expiresAt: plus(createdAt, 7 * DAY),
    acceptedAt: null,
    acceptedByAccountId: null,
    revokedAt: null,
    ...overrides
  }
}

/** A stand-in for the SHA-256 hex of a token: 64 random hex digits. */
export const tokenHash = () => Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("")

export const firstPage = (limit: number) => ({ after: undefined, limit })
