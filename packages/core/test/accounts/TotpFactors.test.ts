import { describe, expect, it } from "@effect/vitest"
import { SwitchboardCore } from "@switchboard/core"
import { Accounts, decodeBase32Rfc4648, TotpFactors, TotpFactorsRepo, totp } from "@switchboard/core/accounts"
import { type AccountId, TotpFactorId, unseal } from "@switchboard/core/shared"
import { TestkitLive } from "@switchboard/testkit"
import { DateTime, Effect, Result, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"

// A moment in the middle of a 30-second step, so ±15 s stays inside it.
const T0 = Date.parse("2030-01-01T00:00:15.000Z")
const Env = SwitchboardCore.pipe(Layer.provideMerge(TestkitLive))

const setup = (email = "mfa@example.com") =>
  Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    const account = yield* (yield* Accounts).create({ email })
    return account.accountId
  })

/** Begins an enrollment; returns it with the raw secret the app would hold. */
const enroll = (accountId: AccountId) =>
  Effect.gen(function*() {
    const started = yield* (yield* TotpFactors).beginEnrollment(accountId)
    return { ...started, key: decodeBase32Rfc4648(Redacted.value(started.secret))! }
  })

const codeAt = (key: Uint8Array, epochMillis: number) => totp(key, epochMillis)

describe("TotpFactors", () => {
  it.effect("begin returns a factor id, a base32 secret, an otpauth URI and a 10-minute enrollment token", () =>
    Effect.gen(function*() {
      const accountId = yield* setup("ada@example.com")
      const started = yield* enroll(accountId)
      expect(started.factorId).toMatch(/^auth_factor_[A-Za-z0-9]+$/)
      expect(started.factorId.length).toBeLessThanOrEqual(128)
      expect(Redacted.value(started.secret)).toMatch(/^[A-Z2-7]{32}$/)
      expect(started.key).toHaveLength(20)
      expect(Redacted.value(started.uri)).toBe(
        `otpauth://totp/Switchboard:ada%40example.com?secret=${Redacted.value(started.secret)}&issuer=Switchboard&algorithm=SHA1&digits=6&period=30`
      )
      expect(Redacted.value(started.enrollmentToken).startsWith(`${started.factorId}.`)).toBe(true)
      expect(DateTime.toEpochMillis(started.expiresAt)).toBe(T0 + 10 * 60_000)
      // Secrets stay redacted in logs.
      expect(String(started.secret)).not.toContain(Redacted.value(started.secret))
    }).pipe(Effect.provide(Env)))

  it.effect("the secret is stored sealed: the stored bytes contain neither the secret nor its base32, and unseal opens them", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const started = yield* enroll(accountId)
      const stored = Option.getOrThrow(yield* (yield* TotpFactorsRepo).find(started.factorId))
      const bytes = stored.secretSealed!
      const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("")
      expect(hex(bytes)).not.toContain(hex(started.key))
      expect(new TextDecoder("latin1").decode(bytes)).not.toContain(Redacted.value(started.secret))
      expect(JSON.stringify(stored)).not.toContain(Redacted.value(started.secret))
      expect(stored.enrollmentTokenHash).not.toContain(Redacted.value(started.enrollmentToken))
      expect(Array.from((yield* unseal("totp", bytes))!)).toEqual(Array.from(started.key))
      // Sealed for its purpose only.
      expect(yield* unseal("phone-verification", bytes)).toBeUndefined()
    }).pipe(Effect.provide(Env)))

  it.effect("confirm with the current code verifies the factor; a retried confirm returns the same answer", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const factors = yield* TotpFactors
      const started = yield* enroll(accountId)
      expect(yield* factors.hasVerifiedFactor(accountId)).toBe(false)
      yield* TestClock.adjust("20 seconds")
      const confirmed = yield* factors.confirmEnrollment(accountId, started.enrollmentToken, yield* codeAt(started.key, T0 + 20_000))
      expect(confirmed).toEqual({ factorId: started.factorId, verifiedAt: DateTime.makeUnsafe(T0 + 20_000) })
      expect(yield* factors.hasVerifiedFactor(accountId)).toBe(true)
      yield* TestClock.adjust("5 minutes")
      const again = yield* factors.confirmEnrollment(accountId, started.enrollmentToken, "000000")
      expect(again).toEqual(confirmed)
    }).pipe(Effect.provide(Env)))

  it.effect("accepts one step of clock drift either way, not two", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const factors = yield* TotpFactors
      const started = yield* enroll(accountId)
      const confirm = (offsetMillis: number) =>
        Effect.flatMap(codeAt(started.key, T0 + offsetMillis), (code) =>
          Effect.result(factors.confirmEnrollment(accountId, started.enrollmentToken, code)))
      for (const off of [-60_000, 60_000]) {
        const far = yield* confirm(off)
        expect(Result.isFailure(far) && far.failure).toMatchObject({ _tag: "TotpCodeRejected", reason: "invalid" })
      }
      expect(Result.isSuccess(yield* confirm(-30_000))).toBe(true)
      // Verified now; sign-in checks take codes one step ahead as well.
      const ahead = yield* codeAt(started.key, T0 + 30_000)
      expect(yield* factors.verifyTotp(accountId, ahead)).toBe(started.factorId)
    }).pipe(Effect.provide(Env)))

  it.effect("a code's step is refused once used, and so are earlier steps; the next step's code works", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const factors = yield* TotpFactors
      const started = yield* enroll(accountId)
      const now = yield* codeAt(started.key, T0)
      yield* factors.confirmEnrollment(accountId, started.enrollmentToken, now)
      const replay = yield* Effect.result(factors.verifyTotp(accountId, now))
      expect(Result.isFailure(replay) && replay.failure).toMatchObject({ _tag: "TotpCodeRejected", reason: "reused" })
      const previous = yield* codeAt(started.key, T0 - 30_000)
      const older = yield* Effect.result(factors.verifyTotp(accountId, previous))
      expect(Result.isFailure(older) && older.failure).toMatchObject({ _tag: "TotpCodeRejected", reason: "reused" })
      yield* TestClock.adjust("30 seconds")
      const next = yield* codeAt(started.key, T0 + 30_000)
      expect(yield* factors.verifyTotp(accountId, next)).toBe(started.factorId)
      const wrong = yield* Effect.result(factors.verifyTotp(accountId, next === "123456" ? "654321" : "123456"))
      expect(Result.isFailure(wrong) && wrong.failure).toMatchObject({ _tag: "TotpCodeRejected", reason: "invalid" })
      const garbage = yield* Effect.result(factors.verifyTotp(accountId, "12345a"))
      expect(Result.isFailure(garbage) && garbage.failure).toMatchObject({ _tag: "TotpCodeRejected", reason: "invalid" })
    }).pipe(Effect.provide(Env)))

  it.effect("an enrollment expires after 10 minutes", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const factors = yield* TotpFactors
      const started = yield* enroll(accountId)
      yield* TestClock.adjust("10 minutes")
      const late = yield* Effect.result(
        factors.confirmEnrollment(accountId, started.enrollmentToken, yield* codeAt(started.key, T0 + 600_000))
      )
      expect(Result.isFailure(late) && late.failure).toMatchObject({ _tag: "TotpEnrollmentInvalid", reason: "expired" })
    }).pipe(Effect.provide(Env)))

  it.effect("a token of another account, a tampered token, or a superseded enrollment is unknown", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const other = (yield* (yield* Accounts).create({ email: "other@example.com" })).accountId
      const factors = yield* TotpFactors
      const started = yield* enroll(accountId)
      const code = yield* codeAt(started.key, T0)
      const token = Redacted.value(started.enrollmentToken)
      const tampered = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`
      for (const [who, t] of [[other, token], [accountId, tampered], [accountId, "not-a-token"]] as const) {
        const r = yield* Effect.result(factors.confirmEnrollment(who, Redacted.make(t), code))
        expect(Result.isFailure(r) && r.failure).toMatchObject({ _tag: "TotpEnrollmentInvalid", reason: "unknown" })
      }
      // A new enrollment replaces the unfinished one.
      const second = yield* enroll(accountId)
      const superseded = yield* Effect.result(factors.confirmEnrollment(accountId, started.enrollmentToken, code))
      expect(Result.isFailure(superseded) && superseded.failure).toMatchObject({ _tag: "TotpEnrollmentInvalid", reason: "unknown" })
      expect(Option.isNone(yield* (yield* TotpFactorsRepo).find(started.factorId))).toBe(true)
      const ok = yield* factors.confirmEnrollment(accountId, second.enrollmentToken, yield* codeAt(second.key, T0))
      expect(ok.factorId).toBe(second.factorId)
    }).pipe(Effect.provide(Env)))

  it.effect("delete ends a factor (a repeat keeps the first time); its codes stop working; unknown ids are not found", () =>
    Effect.gen(function*() {
      const accountId = yield* setup()
      const factors = yield* TotpFactors
      const started = yield* enroll(accountId)
      yield* factors.confirmEnrollment(accountId, started.enrollmentToken, yield* codeAt(started.key, T0))
      yield* TestClock.adjust("1 minute")
      const deleted = yield* factors.delete(accountId, started.factorId)
      expect(deleted).toEqual({ factorId: started.factorId, deletedAt: DateTime.makeUnsafe(T0 + 60_000) })
      yield* TestClock.adjust("1 minute")
      expect(yield* factors.delete(accountId, started.factorId)).toEqual(deleted)
      expect(yield* factors.hasVerifiedFactor(accountId)).toBe(false)
      const after = yield* Effect.result(factors.verifyTotp(accountId, yield* codeAt(started.key, T0 + 120_000)))
      expect(Result.isFailure(after) && after.failure._tag).toBe("TotpCodeRejected")
      expect(Option.getOrThrow(yield* (yield* TotpFactorsRepo).find(started.factorId)).secretSealed).toBeNull()
      const other = (yield* (yield* Accounts).create({ email: "x@example.com" })).accountId
      const foreign = yield* Effect.result(factors.delete(other, started.factorId))
      expect(Result.isFailure(foreign) && foreign.failure._tag).toBe("TotpFactorNotFound")
      const unknown = yield* Effect.result(factors.delete(accountId, TotpFactorId.make("auth_factor_nothere")))
      expect(Result.isFailure(unknown) && unknown.failure._tag).toBe("TotpFactorNotFound")
    }).pipe(Effect.provide(Env)))
})
