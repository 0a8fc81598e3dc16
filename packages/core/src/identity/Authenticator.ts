/**
 * Verifies a presented bearer credential (SPEC.md § Authentication, DESIGN.md D5): the kind is told
 * apart by prefix, then an account service key is one indexed lookup by key id plus a constant-time
 * compare of the secret's SHA-256; expired and revoked keys, and deleted accounts, are refused.
 */
import { Data, DateTime, Effect, Option, Redacted } from "effect"
import { constantTimeEqual, sha256Hex } from "../shared/Crypto.js"
import type { AccountId, ServiceKeyId } from "../shared/Identifiers.js"
import { parseCredential } from "./Credential.js"
import { AccountDeleted, InvalidCredential } from "./Errors.js"
import { AccountsRepo, AccountServiceKeysRepo } from "./Ports.js"

/** Who is calling. More kinds (project API keys, access tokens) join as their issues land. */
export type Principal = Data.TaggedEnum<{
  Account: { readonly accountId: AccountId; readonly serviceKeyId: ServiceKeyId }
}>
export const Principal = Data.taggedEnum<Principal>()

/** The idempotency scope of a principal: keys never collide across callers. */
export const principalScope = (p: Principal): string => `account:${p.accountId}`

const invalid = (reason: InvalidCredential["reason"], message: string) => new InvalidCredential({ reason, message })

export class Authenticator extends Effect.Service<Authenticator>()("core/Authenticator", {
  effect: Effect.gen(function*() {
    const keys = yield* AccountServiceKeysRepo
    const accounts = yield* AccountsRepo

    const authenticate = Effect.fn("Authenticator.authenticate")(function*(raw: Redacted.Redacted<string>) {
      const parsed = parseCredential(Redacted.value(raw))
      if (parsed === undefined) return yield* invalid("malformed", "The credential is not a recognised credential.")
      switch (parsed._tag) {
        case "ProjectApiKey":
          return yield* invalid("unsupported", "Project API keys are not accepted on this route.")
        case "AccessToken":
          return yield* invalid("unsupported", "Access tokens are not accepted on this route.")
        case "AccountServiceKey": {
          const stored = yield* keys.findById(parsed.keyId as ServiceKeyId)
          if (Option.isNone(stored)) return yield* invalid("unknown", "The credential is not valid.")
          const hash = yield* sha256Hex(Redacted.value(parsed.secret))
          if (!constantTimeEqual(hash, stored.value.secretHash)) {
            return yield* invalid("unknown", "The credential is not valid.")
          }
          const key = stored.value.serviceKey
          if (key.revokedAt !== null) return yield* invalid("revoked", "The service key is revoked.")
          const now = yield* DateTime.now
          if (key.expiresAt !== null && !DateTime.greaterThan(key.expiresAt, now)) {
            return yield* invalid("expired", "The service key has expired.")
          }
          const account = yield* accounts.findById(key.accountId)
          if (Option.isNone(account)) return yield* invalid("unknown", "The credential is not valid.")
          if (account.value.deletedAt !== null) return yield* new AccountDeleted({ accountId: key.accountId })
          return Principal.Account({ accountId: key.accountId, serviceKeyId: key.serviceKeyId })
        }
      }
    })

    return { authenticate } as const
  })
}) {}
