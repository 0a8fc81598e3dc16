/**
 * Organizations and their members (docs/api-notes/accounts-and-projects.md). Any account may create
 * an organization and becomes its owner. Only members see an organization (others get
 * `OrganizationNotFound`, so its existence is not revealed). Owners and admins may remove members,
 * admins not owners; anyone may leave; the last owner can neither leave nor be removed. Owners give
 * members any role; admins give `member` or `admin` to non-owners (as they invite and remove); the
 * last owner keeps the role.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { type AccountId, IdKinds, OrganizationId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { InvalidInput } from "../accounts/Errors.js"
import {
  LastOwnerCannotLeave,
  OrganizationActionForbidden,
  OrganizationMemberNotFound,
  OrganizationNotFound
} from "./OrganizationErrors.js"
import { makeSsoGuard } from "../sso/SsoGuard.js"
import { organizationPage, type PageInput } from "./OrganizationPages.js"
import { type OrganizationRecord, type OrganizationRole, OrganizationsRepo } from "./OrganizationsPorts.js"
import { fn } from "../internal/Traced.js"

export class Organizations extends Context.Service<Organizations>()("core/Organizations", {
  make: Effect.gen(function*() {
    const repo = yield* OrganizationsRepo
    const ids = yield* Ids
    const secret = yield* ServerSecret
    const withSecret = Effect.provideService(ServerSecret, secret)

    // Required SSO (sso/SsoGuard.ts, shared with ProjectGate).
    const ssoGuard = yield* makeSsoGuard

    /**
     * The caller's role, or not found: a non-member cannot tell the organization exists. A member
     * of an organization that requires SSO who did not sign in through it is refused (owners excepted).
     */
    const roleIn = fn("Organizations.roleIn")(function*(organizationId: OrganizationId, accountId: AccountId) {
      const role = yield* repo.roleOf(organizationId, accountId)
      if (Option.isNone(role)) return yield* new OrganizationNotFound({ organizationId })
      yield* ssoGuard.admit(organizationId, role.value)
      return role.value
    })

    const create = fn("Organizations.create")(function*(input: {
      readonly accountId: AccountId
      readonly name: string
    }) {
      if (input.name.length < 1 || input.name.length > 256) {
        return yield* new InvalidInput({ field: "name", message: "must be 1 to 256 characters" })
      }
      const now = yield* DateTime.now
      const organization: OrganizationRecord = {
        organizationId: OrganizationId.make(yield* ids.typeId(IdKinds.organization)),
        name: input.name,
        createdAt: now,
        updatedAt: now
      }
      yield* repo.insert(organization, input.accountId)
      return organization
    })

    /** The caller's organizations, oldest first. */
    const list = fn("Organizations.list")(function*(accountId: AccountId, page: PageInput) {
      const name = `organizations:${accountId}`
      return yield* withSecret(organizationPage(name, page, (request) => repo.listForAccount(accountId, request), (o) => ({
        createdAt: o.createdAt,
        id: o.organizationId
      })))
    })

    /** The members (with their email), by when they joined; the caller must be one of them. */
    const listMembers = fn("Organizations.listMembers")(function*(input: {
      readonly accountId: AccountId
      readonly organizationId: OrganizationId
    } & PageInput) {
      yield* roleIn(input.organizationId, input.accountId)
      const name = `members:${input.organizationId}`
      return yield* withSecret(organizationPage(name, input, (request) => repo.listMembers(input.organizationId, request), (m) => ({
        createdAt: m.joinedAt,
        id: m.accountId
      })))
    })

    /**
     * Removes `accountId` from the organization on behalf of `actorId` (the same account: leaving).
     * The last-owner rule is enforced by the repository with the organization locked.
     */
    const removeMember = fn("Organizations.removeMember")(function*(input: {
      readonly actorId: AccountId
      readonly organizationId: OrganizationId
      readonly accountId: AccountId
    }) {
      const { accountId, actorId, organizationId } = input
      const actorRole = yield* roleIn(organizationId, actorId)
      if (accountId !== actorId) {
        if (actorRole === "member") {
          return yield* new OrganizationActionForbidden({ message: "Only owners and admins can remove other members." })
        }
        const targetRole = yield* repo.roleOf(organizationId, accountId)
        if (Option.isNone(targetRole)) return yield* new OrganizationMemberNotFound({ organizationId, accountId })
        if (actorRole === "admin" && targetRole.value === "owner") {
          return yield* new OrganizationActionForbidden({ message: "Admins cannot remove owners." })
        }
      }
      const removed = yield* repo.removeMember(organizationId, accountId)
      if (Option.isNone(removed)) return yield* new OrganizationMemberNotFound({ organizationId, accountId })
      if (removed.value === "last_owner") return yield* new LastOwnerCannotLeave({ organizationId, accountId })
      return removed.value
    })

    /**
     * Gives `accountId` the role `role` on behalf of `actorId` (the Dashboard rules of removal:
     * members change nothing, admins neither touch owners nor make any, an owner may change
     * anyone's role — their own too — but the last owner stays an owner). Answers the new role.
     */
    const changeMemberRole = fn("Organizations.changeMemberRole")(function*(input: {
      readonly actorId: AccountId
      readonly organizationId: OrganizationId
      readonly accountId: AccountId
      readonly role: OrganizationRole
    }) {
      const { accountId, actorId, organizationId, role } = input
      const actorRole = yield* roleIn(organizationId, actorId)
      if (actorRole === "member") {
        return yield* new OrganizationActionForbidden({ message: "Only owners and admins can change roles." })
      }
      const targetRole = yield* repo.roleOf(organizationId, accountId)
      if (Option.isNone(targetRole)) return yield* new OrganizationMemberNotFound({ organizationId, accountId })
      if (actorRole === "admin" && (targetRole.value === "owner" || role === "owner")) {
        return yield* new OrganizationActionForbidden({ message: "Admins can neither change an owner's role nor make owners." })
      }
      const changed = yield* repo.setRole(organizationId, accountId, role)
      if (Option.isNone(changed)) return yield* new OrganizationMemberNotFound({ organizationId, accountId })
      if (changed.value === "last_owner") return yield* new LastOwnerCannotLeave({ organizationId, accountId })
      return role
    })

    return { changeMemberRole, create, list, listMembers, removeMember, roleIn } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}
