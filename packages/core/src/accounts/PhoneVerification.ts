/**
 * Phone verification (docs/api-notes/accounts-and-projects.md): a six-digit code goes out by SMS,
 * and the account binds the number once the code comes back. Codes are uniform over 000000-999999
 * (rejection sampling, no modulo bias), stored only as a keyed MAC, expire after 10 minutes and die
 * after 5 wrong attempts; a new code can be asked for 60 seconds after the last one. One
 * verification is pending per account; starting another replaces it.
 */
import { Context, Data, DateTime, Duration, Effect, Layer, Option } from "effect"
import { constantTimeEqual } from "../internal/Crypto.js"
import type { AccountId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { RecordCache } from "../shared/RecordCache.js"
import { Secrets } from "../shared/Secrets.js"
import { mac, ServerSecret } from "../shared/ServerSecret.js"
import { PhoneCodeRejected, PhoneVerificationCooldown } from "./AccountSecurityErrors.js"
import { AccountProfileRepo, PhoneVerificationsRepo, SmsSender } from "./AccountSecurityPorts.js"
import { normalizePhoneNumber, type StartAccountPhoneVerificationResponse } from "./AccountSecuritySchema.js"
import { AccountDeleted, AccountNotFound } from "./Errors.js"
import type { AccountRecord } from "./Ports.js"
import { fn } from "../internal/Traced.js"

export const PHONE_CODE_TTL = Duration.minutes(10)
export const PHONE_RESEND_COOLDOWN = Duration.seconds(60)
export const PHONE_CODE_MAX_ATTEMPTS = 5

/** The largest multiple of 10^6 not above 2^32: uint32 values from here on would bias the code. */
const UNBIASED_LIMIT = 2 ** 32 - (2 ** 32 % 1_000_000)

/** A six-digit code from a uniform uint32, or undefined when the value must be drawn again. */
export const codeFromUint32 = (n: number): string | undefined =>
  n < UNBIASED_LIMIT ? String(n % 1_000_000).padStart(6, "0") : undefined

/** A new uniform six-digit code from `Secrets` (redrawn in the rare case, p < 0.0003, of a biased value). */
export const newPhoneCode: Effect.Effect<string, never, Secrets> = Effect.gen(function*() {
  const secrets = yield* Secrets
  while (true) {
    const b = yield* secrets.randomBytes(4)
    const code = codeFromUint32(((b[0]! << 24) >>> 0) + (b[1]! << 16) + (b[2]! << 8) + b[3]!)
    if (code !== undefined) return code
  }
})

/** The text of the verification SMS. */
export const phoneCodeMessage = (code: string) =>
  `Your Switchboard verification code is ${code}. It expires in ${Duration.toMinutes(PHONE_CODE_TTL)} minutes.`

type ConfirmOutcome = Data.TaggedEnum<{
  Bound: { readonly account: AccountRecord }
  Rejected: { readonly error: PhoneCodeRejected }
}>
const ConfirmOutcome = Data.taggedEnum<ConfirmOutcome>()

export class PhoneVerifications extends Context.Service<PhoneVerifications>()("core/PhoneVerifications", {
  make: Effect.gen(function*() {
    const profiles = yield* AccountProfileRepo
    const pending = yield* PhoneVerificationsRepo
    const sms = yield* SmsSender
    const tx = yield* Transactor
    const secrets = yield* Secrets
    const serverSecret = yield* ServerSecret
    const records = yield* RecordCache

    // The MAC binds the code to the account and the number: a code is good for nothing else.
    const codeHash = (accountId: AccountId, phoneNumber: string, code: string) =>
      mac("phone-verification", `${accountId}\u0000${phoneNumber}\u0000${code}`).pipe(
        Effect.map((bytes) => Array.from(bytes, (x) => x.toString(16).padStart(2, "0")).join("")),
        Effect.provideService(ServerSecret, serverSecret)
      )

    /** The live account, its row locked: concurrent starts and confirms of one account run in turn. */
    const lockLive = (accountId: AccountId) =>
      Effect.gen(function*() {
        const found = yield* profiles.lock(accountId)
        if (Option.isNone(found)) return yield* new AccountNotFound({ accountId })
        if (found.value.deletedAt !== null) return yield* new AccountDeleted({ accountId })
        return found.value
      })

    const start = fn("PhoneVerifications.start")(function*(accountId: AccountId, phoneNumberInput: string) {
      const phoneNumber = normalizePhoneNumber(phoneNumberInput)
      const now = yield* DateTime.now
      const code = yield* Effect.provideService(newPhoneCode, Secrets, secrets)
      const hash = yield* codeHash(accountId, phoneNumber, code)
      // Sent inside the transaction: when the sender fails, nothing is stored and no cooldown starts.
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* lockLive(accountId)
        const previous = yield* pending.find(accountId)
        if (Option.isSome(previous) && DateTime.isLessThan(now, previous.value.resendAvailableAt)) {
          const waitMillis = DateTime.toEpochMillis(previous.value.resendAvailableAt) - DateTime.toEpochMillis(now)
          return yield* new PhoneVerificationCooldown({ retryAfterSeconds: Math.max(1, Math.ceil(waitMillis / 1000)) })
        }
        const expiresAt = DateTime.addDuration(now, PHONE_CODE_TTL)
        const resendAvailableAt = DateTime.addDuration(now, PHONE_RESEND_COOLDOWN)
        yield* pending.put({ accountId, phoneNumber, codeHash: hash, attempts: 0, createdAt: now, expiresAt, resendAvailableAt })
        yield* sms.send(phoneNumber, phoneCodeMessage(code))
        return { channel: "sms", expiresAt, resendAvailableAt } satisfies StartAccountPhoneVerificationResponse
      }))
    })

    const confirm = fn("PhoneVerifications.confirm")(function*(
      accountId: AccountId,
      phoneNumberInput: string,
      code: string
    ) {
      const phoneNumber = normalizePhoneNumber(phoneNumberInput)
      const now = yield* DateTime.now
      const hash = yield* codeHash(accountId, phoneNumber, code)
      const reject = (reason: PhoneCodeRejected["reason"], attemptsLeft: number) =>
        ConfirmOutcome.Rejected({ error: new PhoneCodeRejected({ reason, attemptsLeft }) })
      // A refusal is returned, not failed, so the counted attempt commits with the transaction.
      const outcome = yield* tx.withTransaction(Effect.gen(function*() {
        const account = yield* lockLive(accountId)
        // Confirming again after success: the number is bound already.
        if (account.phoneNumber === phoneNumber && account.phoneVerifiedAt !== null) {
          return ConfirmOutcome.Bound({ account })
        }
        const found = yield* pending.find(accountId)
        if (Option.isNone(found) || found.value.phoneNumber !== phoneNumber) return reject("not_started", 0)
        const verification = found.value
        if (!DateTime.isLessThan(now, verification.expiresAt)) return reject("expired", 0)
        if (verification.attempts >= PHONE_CODE_MAX_ATTEMPTS) return reject("exhausted", 0)
        if (!constantTimeEqual(hash, verification.codeHash)) {
          const attempts = Option.getOrElse(yield* pending.recordFailedAttempt(accountId), () => PHONE_CODE_MAX_ATTEMPTS)
          return reject("invalid", Math.max(0, PHONE_CODE_MAX_ATTEMPTS - attempts))
        }
        const bound = yield* profiles.bindPhone({ accountId, phoneNumber, now })
        if (Option.isNone(bound)) return yield* new AccountNotFound({ accountId })
        yield* records.changed("account", accountId)
        yield* pending.remove(accountId)
        return ConfirmOutcome.Bound({ account: bound.value })
      }))
      return yield* ConfirmOutcome.$match(outcome, {
        Bound: ({ account }) => Effect.succeed(account),
        Rejected: ({ error }) => Effect.fail(error)
      })
    })

    return { start, confirm } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
