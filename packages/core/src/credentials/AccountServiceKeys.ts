/**
 * Account service keys (docs/api-notes/credentials.md, docs/api-notes/accounts-and-projects.md):
 * created with a name and an explicit expiry, listed, revoked idempotently; at most
 * `maxServiceKeysPerAccount` live keys.
 */
import { Context, DateTime, Effect, Layer, Option, Redacted } from "effect"
import { sha256Hex } from "../internal/Crypto.js"
import { type AccountId, IdKinds, ServiceKeyId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { formatCredential, newSecret } from "./Credential.js"
import { AccountServiceKeyNotFound, InvalidInput } from "../accounts/Errors.js"
import { IdentityLimits } from "../accounts/Limits.js"
import { CredentialCache } from "./CredentialCache.js"
import { AccountServiceKeysRepo, CredentialRevocations } from "../accounts/Ports.js"
import type { AccountServiceKey } from "../accounts/Schema.js"
import { fn } from "../internal/Traced.js"

export interface CreatedServiceKey {
  readonly serviceKey: AccountServiceKey
  /** The credential, shown once. */
  readonly secret: Redacted.Redacted<string>
}

export class AccountServiceKeys extends Context.Service<AccountServiceKeys>()("core/AccountServiceKeys", {
  make: Effect.gen(function*() {
    const repo = yield* AccountServiceKeysRepo
    const ids = yield* Ids
    const cache = yield* CredentialCache
    const revocations = yield* CredentialRevocations
    // Read once when the service is built: a host or the server overrides it by providing the tag.
    const limits = yield* IdentityLimits

    const create = fn("AccountServiceKeys.create")(function*(input: {
      readonly accountId: AccountId
      readonly name: string
      /** Required: a future time, or null for a key that never expires. */
      readonly expiresAt: DateTime.Utc | null
    }) {
      const now = yield* DateTime.now
      if (input.name.length < 1 || input.name.length > 128) {
        return yield* new InvalidInput({ field: "name", message: "must be 1 to 128 characters" })
      }
      if (input.expiresAt !== null && !DateTime.isGreaterThan(input.expiresAt, now)) {
        return yield* new InvalidInput({ field: "expiresAt", message: "must be in the future, or null for never" })
      }
      const serviceKeyId = ServiceKeyId.make(yield* ids.typeId(IdKinds.accountServiceKey))
      const secret = yield* newSecret
      const serviceKey: AccountServiceKey = {
        serviceKeyId,
        accountId: input.accountId,
        name: input.name,
        createdAt: now,
        expiresAt: input.expiresAt,
        revokedAt: null
      }
      yield* repo.insert({
        serviceKey,
        secretHash: yield* sha256Hex(Redacted.value(secret)),
        limit: limits.maxServiceKeysPerAccount,
        now
      })
      return { serviceKey, secret: formatCredential(serviceKeyId, secret) } satisfies CreatedServiceKey
    })

    const list = fn("AccountServiceKeys.list")(function*(accountId: AccountId) {
      return yield* repo.listUnrevoked(accountId)
    })

    const revoke = fn("AccountServiceKeys.revoke")(function*(accountId: AccountId, serviceKeyId: ServiceKeyId) {
      const now = yield* DateTime.now
      const revoked = yield* repo.revoke({ accountId, serviceKeyId, now })
      if (Option.isNone(revoked)) return yield* new AccountServiceKeyNotFound({ serviceKeyId })
      // Stop serving it from this process's cache now; tell the other processes (on commit).
      cache.revoked(serviceKeyId, DateTime.toEpochMillis(now))
      yield* revocations.publish(serviceKeyId)
      return revoked.value
    })

    return { create, list, revoke } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}
