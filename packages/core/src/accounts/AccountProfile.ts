/**
 * The caller's own account (docs/api-notes/accounts-and-projects.md): updating its names and
 * deleting it. Deletion leaves a tombstone (`deletedAt` set) and is refused while the account owns
 * an organization; from then on every credential of the account is answered `AccountDeleted` — and
 * its OAuth access tokens are inactive — at once, not after the credential cache's TTL: the
 * account's key ids are dropped from this process's cache and announced on `CredentialRevocations`
 * so every other process drops them too.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import type { AccountId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { RecordCache } from "../shared/RecordCache.js"
import { AccountOwnsOrganizations } from "./AccountSecurityErrors.js"
import { AccountProfileRepo, PhoneVerificationsRepo, TotpFactorsRepo } from "./AccountSecurityPorts.js"
import { CredentialCache } from "../credentials/CredentialCache.js"
import { accountKey, OAuthTokenCache } from "../oauth/OAuthTokenCache.js"
import { AccountDeleted, AccountNotFound } from "./Errors.js"
import { OrganizationsRepo } from "../organizations/OrganizationsPorts.js"
import { AccountServiceKeysRepo, CredentialRevocations } from "./Ports.js"
import { fn } from "../internal/Traced.js"

/** How many memberships one pass of account deletion removes before listing again. */
const MEMBERSHIP_BATCH = 100

export class AccountProfile extends Context.Service<AccountProfile>()("core/AccountProfile", {
  make: Effect.gen(function*() {
    const profiles = yield* AccountProfileRepo
    const keys = yield* AccountServiceKeysRepo
    const organizations = yield* OrganizationsRepo
    const phones = yield* PhoneVerificationsRepo
    const factors = yield* TotpFactorsRepo
    const cache = yield* CredentialCache
    const oauthTokens = yield* OAuthTokenCache
    const revocations = yield* CredentialRevocations
    const tx = yield* Transactor
    const records = yield* RecordCache

    /** Why a write found no live row: the account is gone, or deleted. */
    const missing = (accountId: AccountId) =>
      Effect.gen(function*() {
        const found = yield* profiles.lock(accountId)
        return yield* Option.isSome(found) ? new AccountDeleted({ accountId }) : new AccountNotFound({ accountId })
      })

    const update = fn("AccountProfile.update")(function*(
      accountId: AccountId,
      patch: { readonly firstName?: string; readonly lastName?: string | null }
    ) {
      const now = yield* DateTime.now
      const updated = yield* profiles.updateNames({ accountId, ...patch, now })
      if (Option.isSome(updated)) return yield* Effect.as(records.changed("account", accountId), updated.value)
      return yield* missing(accountId)
    })

    /** Leaves every organization the account is a member of (it owns none by now). */
    const leaveOrganizations = (accountId: AccountId) =>
      Effect.gen(function*() {
        while (true) {
          const batch = yield* organizations.listForAccount(accountId, { after: undefined, limit: MEMBERSHIP_BATCH })
          if (batch.length === 0) return
          for (const organization of batch) {
            const removed = yield* organizations.removeMember(organization.organizationId, accountId)
            // Became an owner since the check (a concurrent change): refuse rather than orphan it.
            if (Option.isSome(removed) && removed.value === "last_owner") {
              return yield* new AccountOwnsOrganizations({ accountId })
            }
            if (Option.isNone(removed)) return yield* Effect.die(new Error("a listed membership could not be removed"))
          }
        }
      })

    const deleteAccount = fn("AccountProfile.delete")(function*(accountId: AccountId) {
      const now = yield* DateTime.now
      return yield* tx.withTransaction(Effect.gen(function*() {
        // The row lock orders this against other writes to the account (phone binding, a second delete).
        const account = yield* profiles.lock(accountId)
        if (Option.isNone(account)) return yield* new AccountNotFound({ accountId })
        if (account.value.deletedAt !== null) return account.value
        if (yield* organizations.ownsAny(accountId)) return yield* new AccountOwnsOrganizations({ accountId })
        yield* leaveOrganizations(accountId)
        const tombstone = yield* profiles.markDeleted({ accountId, now })
        if (Option.isNone(tombstone)) return yield* new AccountNotFound({ accountId })
        yield* records.changed("account", accountId)
        yield* phones.remove(accountId)
        yield* factors.softDeleteAll({ accountId, now })
        // Revoked keys are never cached; every other key may be, here or in another process.
        for (const key of yield* keys.listUnrevoked(accountId)) {
          cache.revoked(key.serviceKeyId, DateTime.toEpochMillis(now))
          yield* revocations.publish(key.serviceKeyId)
        }
        // The account's cached OAuth access tokens (other processes hear of it from the store).
        yield* oauthTokens.drop(accountKey(accountId))
        return tombstone.value
      }))
    })

    return { update, delete: deleteAccount } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
