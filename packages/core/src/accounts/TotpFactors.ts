/**
 * TOTP factors (docs/api-notes/accounts-and-projects.md; RFC 6238 with SHA-1, 6 digits, 30 s):
 * enrollment hands out a 160-bit secret once — stored only sealed with the server secret
 * (`seal("totp", …)`) — and is confirmed with a code from the authenticator app. Codes are accepted
 * for the current step and one step either side (clock drift); a step once used is refused
 * afterwards, so an observed code cannot be replayed. `verifyTotp` is the check sign-in uses.
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Redacted } from "effect"
import { base64url, constantTimeEqual, sha256Hex } from "../internal/Crypto.js"
import { type AccountId, encodeBase32Uuid, TotpFactorId, uuidv7Bytes } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { Secrets } from "../shared/Secrets.js"
import { seal, ServerSecret, unseal } from "../shared/ServerSecret.js"
import { TotpCodeRejected, TotpEnrollmentInvalid, TotpFactorNotFound } from "./AccountSecurityErrors.js"
import { type TotpFactorRecord, TotpFactorsRepo } from "./AccountSecurityPorts.js"
import type { ConfirmTotpEnrollmentResponse, DeleteTotpFactorResponse } from "./AccountSecuritySchema.js"
import { AccountDeleted, AccountNotFound } from "./Errors.js"
import { AccountsRepo } from "./Ports.js"
import { encodeBase32Rfc4648, totpMatchingSteps, otpauthUri, totpStep } from "./Totp.js"
import { fn } from "../internal/Traced.js"

/** 160 bits: the secret length RFC 4226 §4 recommends. */
export const TOTP_SECRET_BYTES = 20
/** How long an enrollment may wait for its first code. */
export const TOTP_ENROLLMENT_TTL = Duration.minutes(10)

/** The sealing purpose of TOTP secrets (its own subkey of the server secret). */
const SEAL_PURPOSE = "totp"

/** What `beginEnrollment` returns: the secret and the URI carrying it are shown once. */
export interface TotpEnrollmentStarted {
  readonly enrollmentToken: Redacted.Redacted<string>
  readonly expiresAt: DateTime.Utc
  readonly factorId: TotpFactorId
  readonly secret: Redacted.Redacted<string>
  readonly uri: Redacted.Redacted<string>
}

/** `<factorId>.<43 base64url characters>`: the factor to look up, and a 256-bit secret to compare. */
const enrollmentTokenPattern = /^(auth_factor_[A-Za-z0-9]{1,116})\.[A-Za-z0-9_-]{43}$/

export class TotpFactors extends Context.Service<TotpFactors>()("core/TotpFactors", {
  make: Effect.gen(function*() {
    const factors = yield* TotpFactorsRepo
    const accounts = yield* AccountsRepo
    const tx = yield* Transactor
    const secrets = yield* Secrets
    const serverSecret = yield* ServerSecret

    const withKeys = <A>(self: Effect.Effect<A, never, Secrets | ServerSecret>) =>
      self.pipe(Effect.provideService(Secrets, secrets), Effect.provideService(ServerSecret, serverSecret))

    /** The raw secret of a factor; a secret that no longer opens means SECRET_KEY changed: a defect. */
    const secretOf = (factor: TotpFactorRecord) =>
      Effect.flatMap(
        factor.secretSealed === null ? Effect.succeed(undefined) : withKeys(unseal(SEAL_PURPOSE, factor.secretSealed)),
        (secret) =>
          secret === undefined
            ? Effect.die(new Error(`the secret of TOTP factor ${factor.factorId} cannot be opened (was SECRET_KEY changed?)`))
            : Effect.succeed(secret)
      )

    /**
     * How `code` stands against a factor: the latest step in the drift window it matches that was
     * not used yet, or whether it matched only used steps (a replay) or none.
     */
    const checkCode = (factor: TotpFactorRecord, code: string, now: DateTime.Utc) =>
      Effect.gen(function*() {
        const steps = yield* totpMatchingSteps(yield* secretOf(factor), code, totpStep(DateTime.toEpochMillis(now)))
        const fresh = steps.filter((s) => factor.lastUsedStep === null || s > factor.lastUsedStep)
        if (fresh.length > 0) return { fresh: Option.some(Math.max(...fresh)), matched: true }
        return { fresh: Option.none<number>(), matched: steps.length > 0 }
      })

    /** Uses the step of an accepted code; false when a concurrent check used it (or a later one) first. */
    const use = (factor: TotpFactorRecord, check: { readonly fresh: Option.Option<number> }, now: DateTime.Utc) =>
      Option.match(check.fresh, {
        onNone: () => Effect.succeed(false),
        onSome: (step) => factors.useStep({ factorId: factor.factorId, step, now })
      })

    const beginEnrollment = fn("TotpFactors.beginEnrollment")(function*(accountId: AccountId) {
      const account = yield* accounts.findById(accountId)
      if (Option.isNone(account)) return yield* new AccountNotFound({ accountId })
      if (account.value.deletedAt !== null) return yield* new AccountDeleted({ accountId })
      const now = yield* DateTime.now
      const factorId = TotpFactorId.make(`auth_factor_${encodeBase32Uuid(uuidv7Bytes(DateTime.toEpochMillis(now), yield* secrets.randomBytes(10)))}`)
      const secret = yield* secrets.randomBytes(TOTP_SECRET_BYTES)
      const enrollmentToken = `${factorId}.${base64url(yield* secrets.randomBytes(32))}`
      const expiresAt = DateTime.addDuration(now, TOTP_ENROLLMENT_TTL)
      const record: TotpFactorRecord = {
        factorId,
        accountId,
        secretSealed: yield* withKeys(seal(SEAL_PURPOSE, secret)),
        enrollmentTokenHash: yield* sha256Hex(enrollmentToken),
        enrollmentExpiresAt: expiresAt,
        createdAt: now,
        verifiedAt: null,
        lastUsedStep: null,
        deletedAt: null
      }
      // A new enrollment supersedes unfinished ones: at most one is pending per account.
      yield* tx.withTransaction(Effect.andThen(factors.removePending(accountId), factors.insert(record)))
      const secretBase32 = encodeBase32Rfc4648(secret)
      return {
        enrollmentToken: Redacted.make(enrollmentToken),
        expiresAt,
        factorId,
        secret: Redacted.make(secretBase32),
        uri: Redacted.make(otpauthUri(account.value.email, secretBase32))
      } satisfies TotpEnrollmentStarted
    })

    const confirmEnrollment = fn("TotpFactors.confirmEnrollment")(function*(
      accountId: AccountId,
      enrollmentToken: Redacted.Redacted<string>,
      code: string
    ) {
      const token = Redacted.value(enrollmentToken)
      const match = enrollmentTokenPattern.exec(token)
      if (match === null) return yield* new TotpEnrollmentInvalid({ reason: "unknown" })
      const factorId = TotpFactorId.make(match[1]!)
      const tokenHash = yield* sha256Hex(token)
      const now = yield* DateTime.now
      return yield* tx.withTransaction(Effect.gen(function*() {
        const found = yield* factors.find(factorId)
        if (
          Option.isNone(found) || found.value.accountId !== accountId || found.value.deletedAt !== null ||
          !constantTimeEqual(tokenHash, found.value.enrollmentTokenHash)
        ) {
          return yield* new TotpEnrollmentInvalid({ reason: "unknown" })
        }
        const factor = found.value
        // Confirmed already (a retried request): the same answer again.
        if (factor.verifiedAt !== null) {
          return { factorId, verifiedAt: factor.verifiedAt } satisfies ConfirmTotpEnrollmentResponse
        }
        if (!DateTime.isLessThan(now, factor.enrollmentExpiresAt)) return yield* new TotpEnrollmentInvalid({ reason: "expired" })
        const check = yield* checkCode(factor, code, now)
        if (!check.matched) return yield* new TotpCodeRejected({ reason: "invalid" })
        if (!(yield* use(factor, check, now))) return yield* new TotpCodeRejected({ reason: "reused" })
        return { factorId, verifiedAt: now } satisfies ConfirmTotpEnrollmentResponse
      }))
    })

    /**
     * Checks a code against the account's verified factors (sign-in's second step) and uses its
     * step up; the factor it matched. `reused` when it matched only steps used already.
     */
    const verifyTotp = fn("TotpFactors.verifyTotp")(function*(accountId: AccountId, code: string) {
      if (!/^\d{6}$/.test(code)) return yield* new TotpCodeRejected({ reason: "invalid" })
      const now = yield* DateTime.now
      let reused = false
      for (const factor of yield* factors.listVerified(accountId)) {
        const check = yield* checkCode(factor, code, now)
        if (yield* use(factor, check, now)) return factor.factorId
        if (check.matched) reused = true
      }
      return yield* new TotpCodeRejected({ reason: reused ? "reused" : "invalid" })
    })

    /** Whether sign-in must ask this account for a TOTP code. */
    const hasVerifiedFactor = fn("TotpFactors.hasVerifiedFactor")(function*(accountId: AccountId) {
      return (yield* factors.listVerified(accountId)).length > 0
    })

    const deleteFactor = fn("TotpFactors.delete")(function*(accountId: AccountId, factorId: TotpFactorId) {
      const now = yield* DateTime.now
      const deleted = yield* factors.softDelete({ accountId, factorId, now })
      if (Option.isNone(deleted) || deleted.value.deletedAt === null) return yield* new TotpFactorNotFound({ factorId })
      return { factorId, deletedAt: deleted.value.deletedAt } satisfies DeleteTotpFactorResponse
    })

    return { beginEnrollment, confirmEnrollment, verifyTotp, hasVerifiedFactor, delete: deleteFactor } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
