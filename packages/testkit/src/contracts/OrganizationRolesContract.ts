/**
 * Members' roles in the Organizations feature's repository contract (called by
 * OrganizationsContract.ts): `setRole` and the last-owner rule it shares with `removeMember`.
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import { Effect, Option } from "effect"
import { expect } from "vitest"
import { firstPage, newAccount, newOrganization, organizationFixture, T0 } from "./OrganizationFixtures.js"

export const organizationRolesContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("members: setRole returns the previous role, none for a non-member, and keeps the last owner", () =>
    Effect.gen(function*() {
      const repo = yield* OrganizationsRepo
      const owner = yield* newAccount()
      const member = yield* newAccount()
      const { organizationId } = yield* newOrganization(owner.accountId)
      yield* repo.addMember({ organizationId, accountId: member.accountId, role: "member", now: T0 })
      expect(yield* repo.setRole(organizationId, member.accountId, "admin")).toEqual(Option.some("member"))
      expect(yield* repo.roleOf(organizationId, member.accountId)).toEqual(Option.some("admin"))
      expect(yield* repo.setRole(organizationId, owner.accountId, "member")).toEqual(Option.some("last_owner"))
      expect(yield* repo.setRole(organizationId, owner.accountId, "owner")).toEqual(Option.some("owner"))
      expect(yield* repo.roleOf(organizationId, owner.accountId)).toEqual(Option.some("owner"))
      yield* repo.setRole(organizationId, member.accountId, "owner")
      expect(yield* repo.setRole(organizationId, owner.accountId, "member")).toEqual(Option.some("owner"))
      expect(yield* repo.setRole(organizationId, member.accountId, "admin")).toEqual(Option.some("last_owner"))
      const stranger = yield* newAccount()
      expect(Option.isNone(yield* repo.setRole(organizationId, stranger.accountId, "admin"))).toBe(true)
      expect(Option.isNone(yield* repo.setRole(organizationFixture().organizationId, owner.accountId, "admin"))).toBe(true)
    }))

  it.effect("members: two owners demoting each other at the same time leave exactly one owner", () =>
    Effect.gen(function*() {
      const repo = yield* OrganizationsRepo
      for (let round = 0; round < 5; round++) {
        const a = yield* newAccount()
        const b = yield* newAccount()
        const { organizationId } = yield* newOrganization(a.accountId)
        yield* repo.addMember({ organizationId, accountId: b.accountId, role: "owner", now: T0 })
        const results = yield* Effect.all(
          [repo.setRole(organizationId, b.accountId, "admin"), repo.removeMember(organizationId, a.accountId)],
          { concurrency: "unbounded" }
        )
        const outcomes = results.map((r) => Option.getOrThrow(r)).sort()
        expect(outcomes).toEqual(["last_owner", "owner"])
        const members = yield* repo.listMembers(organizationId, firstPage(10))
        expect(members.filter((m) => m.role === "owner")).toHaveLength(1)
      }
    }))
}
