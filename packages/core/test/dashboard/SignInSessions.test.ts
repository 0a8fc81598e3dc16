import { describe, expect, it } from "@effect/vitest"
import { SwitchboardCore } from "@switchboard/core"
import { AccountProfile, decodeBase32Rfc4648, TotpFactors, totp } from "@switchboard/core/accounts"
import {
  passwordProblem,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  Sessions,
  SignIn,
  SignInPolicy
} from "@switchboard/core/dashboard"
import { TestkitLive } from "@switchboard/testkit"
import { DateTime, Duration, Effect, Layer, Option, Redacted, Result } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"

const T0 = Date.parse("2030-01-01T00:00:15.000Z")
const Env = SwitchboardCore.pipe(
  Layer.provideMerge(Layer.succeed(SignInPolicy, { maxFailures: 3, window: Duration.minutes(15) })),
  Layer.provideMerge(TestkitLive)
)
const pw = (s: string) => Redacted.make(s)
let n = 0
const email = (what: string) => `${what}.${++n}@example.com`

describe("passwordProblem", () => {
  it("accepts 8..256 characters (code points), refuses others", () => {
    expect(passwordProblem("a".repeat(PASSWORD_MIN_LENGTH - 1))).toMatch(/at least 8/)
    expect(passwordProblem("a".repeat(PASSWORD_MIN_LENGTH))).toBeUndefined()
    expect(passwordProblem("a".repeat(PASSWORD_MAX_LENGTH))).toBeUndefined()
    expect(passwordProblem("a".repeat(PASSWORD_MAX_LENGTH + 1))).toMatch(/at most 256/)
    // Eight emoji are eight characters, though sixteen UTF-16 units.
    expect(passwordProblem("😀".repeat(8))).toBeUndefined()
    expect(passwordProblem("😀".repeat(7))).toMatch(/at least/)
  })

  it("a password is accepted exactly when its length is within the bounds", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme-composite", maxLength: 300 }), (s) => {
      const length = [...s].length
      expect(passwordProblem(s) === undefined).toBe(length >= PASSWORD_MIN_LENGTH && length <= PASSWORD_MAX_LENGTH)
    }))
  })
})

describe("SignIn and Sessions", () => {
  it.effect("sign-up opens a session; sign-in checks the password; the session resolves until it expires", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const signIn = yield* SignIn
      const sessions = yield* Sessions
      const address = email("ada")
      const up = yield* signIn.signUp({ email: address, password: pw("correct horse battery") })
      expect(up.account.email).toBe(address)
      expect(Redacted.value(up.token)).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(up.session.sessionId).toMatch(/^sb_ses_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      expect(Option.getOrThrow(yield* sessions.resolve(Redacted.value(up.token))).accountId).toBe(up.account.accountId)

      const wrong = yield* Effect.result(signIn.signIn({ email: address, password: pw("wrong password!") }))
      expect(Result.isFailure(wrong) && wrong.failure._tag).toBe("InvalidSignIn")
      // Unknown email: the same answer.
      const unknown = yield* Effect.result(signIn.signIn({ email: email("nobody"), password: pw("correct horse battery") }))
      expect(Result.isFailure(unknown) && unknown.failure._tag).toBe("InvalidSignIn")

      const again = yield* signIn.signIn({ email: address.toUpperCase(), password: pw("correct horse battery") })
      expect(again.session.sessionId).not.toBe(up.session.sessionId)
      expect(DateTime.toEpochMillis(again.session.authenticatedAt)).toBe(T0)
      expect(DateTime.toEpochMillis(again.session.expiresAt)).toBe(T0 + 7 * 24 * 3600 * 1000)

      yield* TestClock.adjust(Duration.days(7))
      expect(Option.isNone(yield* sessions.resolve(Redacted.value(again.token)))).toBe(true)
      expect(yield* sessions.purgeExpired()).toBeGreaterThanOrEqual(2)
    }).pipe(Effect.provide(Env)))

  it.effect("sign-out ends the session; a malformed or unknown token resolves to none", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const sessions = yield* Sessions
      const up = yield* (yield* SignIn).signUp({ email: email("bye"), password: pw("a long enough password") })
      const token = Redacted.value(up.token)
      expect(Option.isSome(yield* sessions.revoke(token))).toBe(true)
      expect(Option.isNone(yield* sessions.resolve(token))).toBe(true)
      expect(Option.isNone(yield* sessions.revoke(token))).toBe(true)
      expect(Option.isNone(yield* sessions.resolve("not a token"))).toBe(true)
      expect(Option.isNone(yield* sessions.resolve("A".repeat(43)))).toBe(true)
    }).pipe(Effect.provide(Env)))

  it.effect("a deleted account's session stops resolving at once", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const up = yield* (yield* SignIn).signUp({ email: email("gone"), password: pw("a long enough password") })
      yield* (yield* AccountProfile).delete(up.account.accountId)
      expect(Option.isNone(yield* (yield* Sessions).resolve(Redacted.value(up.token)))).toBe(true)
    }).pipe(Effect.provide(Env)))

  it.effect("sign-up refuses a short password and a taken email, creating nothing", () =>
    Effect.gen(function*() {
      const signIn = yield* SignIn
      const address = email("short")
      const short = yield* Effect.result(signIn.signUp({ email: address, password: pw("short") }))
      expect(Result.isFailure(short) && short.failure._tag).toBe("PasswordRejected")
      yield* signIn.signUp({ email: address, password: pw("long enough now") })
      const taken = yield* Effect.result(signIn.signUp({ email: address.toUpperCase(), password: pw("long enough now") }))
      expect(Result.isFailure(taken) && taken.failure._tag).toBe("EmailTaken")
    }).pipe(Effect.provide(Env)))

  it.effect("after maxFailures wrong passwords the email is locked, even with the right one, until the window ends", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const signIn = yield* SignIn
      const address = email("guess")
      yield* signIn.signUp({ email: address, password: pw("the right password") })
      for (let i = 0; i < 3; i++) {
        const r = yield* Effect.result(signIn.signIn({ email: address, password: pw(`guess number ${i}`) }))
        expect(Result.isFailure(r) && r.failure._tag).toBe("InvalidSignIn")
      }
      const locked = yield* Effect.result(signIn.signIn({ email: address, password: pw("the right password") }))
      expect(Result.isFailure(locked) && locked.failure).toMatchObject({ _tag: "SignInLocked", retryAfterSeconds: 15 * 60 })
      yield* TestClock.adjust(Duration.minutes(15))
      const open = yield* signIn.signIn({ email: address, password: pw("the right password") })
      expect(open.account.email).toBe(address)
    }).pipe(Effect.provide(Env)))

  it.effect("with a verified TOTP factor: no code → TotpCodeRequired; a wrong code counts as a failure; the right one signs in once", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const signIn = yield* SignIn
      const address = email("mfa")
      const up = yield* signIn.signUp({ email: address, password: pw("the right password") })
      const factors = yield* TotpFactors
      const started = yield* factors.beginEnrollment(up.account.accountId)
      const key = decodeBase32Rfc4648(Redacted.value(started.secret))!
      yield* factors.confirmEnrollment(up.account.accountId, started.enrollmentToken, yield* totp(key, T0))
      yield* TestClock.adjust("30 seconds")

      const noCode = yield* Effect.result(signIn.signIn({ email: address, password: pw("the right password") }))
      expect(Result.isFailure(noCode) && noCode.failure._tag).toBe("TotpCodeRequired")
      // The wrong password with no code is still just a wrong password.
      const wrongPassword = yield* Effect.result(signIn.signIn({ email: address, password: pw("nope nope nope") }))
      expect(Result.isFailure(wrongPassword) && wrongPassword.failure._tag).toBe("InvalidSignIn")
      const code = yield* totp(key, T0 + 30_000)
      const wrongCode = code === "000000" ? "111111" : "000000"
      const bad = yield* Effect.result(signIn.signIn({ email: address, password: pw("the right password"), code: wrongCode }))
      expect(Result.isFailure(bad) && bad.failure).toMatchObject({ _tag: "TotpCodeInvalid", reason: "invalid" })

      const good = yield* signIn.signIn({ email: address, password: pw("the right password"), code })
      expect(good.account.accountId).toBe(up.account.accountId)
      // The same code again is a replay.
      const replay = yield* Effect.result(signIn.signIn({ email: address, password: pw("the right password"), code }))
      expect(Result.isFailure(replay) && replay.failure).toMatchObject({ _tag: "TotpCodeInvalid", reason: "reused" })
    }).pipe(Effect.provide(Env)))
})
