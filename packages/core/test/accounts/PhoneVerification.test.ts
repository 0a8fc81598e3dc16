import { describe, expect, it } from "@effect/vitest"
import { SwitchboardCore } from "@switchboard/core"
import {
  Accounts,
  codeFromUint32,
  newPhoneCode,
  normalizePhoneNumber,
  PhoneNumberInput,
  PhoneVerifications,
  PhoneVerificationsRepo
} from "@switchboard/core/accounts"
import { SecretsSeeded, SmsInbox, TestkitLive } from "@switchboard/testkit"
import { DateTime, Effect, Result, Layer, Option, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { runLikeTest } from "../Properties.js"

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const Env = SwitchboardCore.pipe(Layer.provideMerge(TestkitLive))
const NUMBER = "+1 (555) 010-2030"
const NORMALISED = "+15550102030"

const setup = Effect.gen(function*() {
  yield* TestClock.setTime(T0)
  return (yield* (yield* Accounts).create({ email: "phone@example.com" })).accountId
})

/** The code the inbox received last for the number. */
const lastCode = Effect.map(SmsInbox, (inbox) => inbox.lastCode(NORMALISED)!)

const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0")

describe("phone codes", () => {
  it("map a uint32 to six digits, refusing the biased top of the range", () => {
    expect(codeFromUint32(0)).toBe("000000")
    expect(codeFromUint32(123)).toBe("000123")
    expect(codeFromUint32(4_293_999_999)).toBe("999999")
    // 4 294 000 000 = 4294 × 10^6: from here on, 0..967295 would be drawn once more than the rest.
    expect(codeFromUint32(4_294_000_000)).toBeUndefined()
    expect(codeFromUint32(2 ** 32 - 1)).toBeUndefined()
  })

  it("below the limit a uint32 gives its residue mod 10^6 (every residue has 4294 preimages); above, a redraw", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => {
      const code = codeFromUint32(n)
      if (n >= 4_294_000_000) expect(code).toBeUndefined()
      else expect(code).toBe(String(n % 1_000_000).padStart(6, "0"))
    }))
  })

  it("a generated code is always six digits", () =>
    fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) =>
        runLikeTest(
          Effect.gen(function*() {
            for (let i = 0; i < 20; i++) expect(yield* newPhoneCode).toMatch(/^\d{6}$/)
          }).pipe(Effect.provide(SecretsSeeded(seed)))
        )),
      { numRuns: 30 }
    ))

  it("phone numbers are compared by their digits (and leading +)", () => {
    expect(normalizePhoneNumber("+1 (555) 010-2030")).toBe("+15550102030")
    expect(normalizePhoneNumber("555.010.2030")).toBe("5550102030")
    const decode = Schema.decodeUnknownResult(PhoneNumberInput)
    expect(Result.isSuccess(decode("+1 (555) 010-2030"))).toBe(true)
    for (const bad of ["+------", "12345", "+1 555 010 2030 ext 5", "1".repeat(26), "++15550102030"]) {
      expect(Result.isFailure(decode(bad)), bad).toBe(true)
    }
  })
})

describe("PhoneVerifications", () => {
  it.effect("start sends a code by SMS; confirm binds the normalised number with phoneVerifiedAt", () =>
    Effect.gen(function*() {
      const accountId = yield* setup
      const phones = yield* PhoneVerifications
      const started = yield* phones.start(accountId, NUMBER)
      expect(started).toEqual({
        channel: "sms",
        expiresAt: DateTime.makeUnsafe(T0 + 600_000),
        resendAvailableAt: DateTime.makeUnsafe(T0 + 60_000)
      })
      const inbox = yield* SmsInbox
      expect(inbox.messages).toHaveLength(1)
      expect(inbox.messages[0]!.phoneNumber).toBe(NORMALISED)
      const code = yield* lastCode
      expect(code).toMatch(/^\d{6}$/)
      // Only a keyed hash of the code is stored.
      const stored = Option.getOrThrow(yield* (yield* PhoneVerificationsRepo).find(accountId))
      expect(stored.codeHash).not.toContain(code)
      expect(stored.codeHash).toMatch(/^[0-9a-f]{64}$/)
      yield* TestClock.adjust("2 minutes")
      const account = yield* phones.confirm(accountId, "+1 555 010 2030", code)
      expect(account.phoneNumber).toBe(NORMALISED)
      expect(account.phoneVerifiedAt).toEqual(DateTime.makeUnsafe(T0 + 120_000))
      expect(account.updatedAt).toEqual(DateTime.makeUnsafe(T0 + 120_000))
      expect(Option.isNone(yield* (yield* PhoneVerificationsRepo).find(accountId))).toBe(true)
      // Confirming again returns the bound account, unchanged.
      yield* TestClock.adjust("1 minute")
      expect(yield* phones.confirm(accountId, NUMBER, code)).toEqual(account)
    }).pipe(Effect.provide(Env)))

  it.effect("a resend within 60 seconds is refused with the seconds left; afterwards a new code replaces the old", () =>
    Effect.gen(function*() {
      const accountId = yield* setup
      const phones = yield* PhoneVerifications
      yield* phones.start(accountId, NUMBER)
      const first = yield* lastCode
      yield* TestClock.adjust("45 seconds")
      const early = yield* Effect.result(phones.start(accountId, NUMBER))
      expect(Result.isFailure(early) && early.failure).toMatchObject({ _tag: "PhoneVerificationCooldown", retryAfterSeconds: 15 })
      // Another number does not get around the cooldown either.
      const elsewhere = yield* Effect.result(phones.start(accountId, "+44 20 7946 0958"))
      expect(Result.isFailure(elsewhere) && elsewhere.failure._tag).toBe("PhoneVerificationCooldown")
      expect((yield* SmsInbox).messages).toHaveLength(1)
      yield* TestClock.adjust("15 seconds")
      const again = yield* phones.start(accountId, NUMBER)
      expect(again.resendAvailableAt).toEqual(DateTime.makeUnsafe(T0 + 120_000))
      const second = yield* lastCode
      if (first !== second) {
        const stale = yield* Effect.result(phones.confirm(accountId, NUMBER, first))
        expect(Result.isFailure(stale) && stale.failure).toMatchObject({ _tag: "PhoneCodeRejected", reason: "invalid" })
      }
      expect((yield* phones.confirm(accountId, NUMBER, second)).phoneNumber).toBe(NORMALISED)
    }).pipe(Effect.provide(Env)))

  it.effect("a code expires after 10 minutes", () =>
    Effect.gen(function*() {
      const accountId = yield* setup
      const phones = yield* PhoneVerifications
      yield* phones.start(accountId, NUMBER)
      const code = yield* lastCode
      yield* TestClock.adjust("10 minutes")
      const late = yield* Effect.result(phones.confirm(accountId, NUMBER, code))
      expect(Result.isFailure(late) && late.failure).toMatchObject({ _tag: "PhoneCodeRejected", reason: "expired" })
    }).pipe(Effect.provide(Env)))

  it.effect("five wrong codes kill the code: the right one is refused afterwards", () =>
    Effect.gen(function*() {
      const accountId = yield* setup
      const phones = yield* PhoneVerifications
      yield* phones.start(accountId, NUMBER)
      const code = yield* lastCode
      for (let i = 1; i <= 5; i++) {
        const wrong = yield* Effect.result(phones.confirm(accountId, NUMBER, otherCode(code)))
        expect(Result.isFailure(wrong) && wrong.failure).toMatchObject({ _tag: "PhoneCodeRejected", reason: "invalid", attemptsLeft: 5 - i })
      }
      const dead = yield* Effect.result(phones.confirm(accountId, NUMBER, code))
      expect(Result.isFailure(dead) && dead.failure).toMatchObject({ _tag: "PhoneCodeRejected", reason: "exhausted" })
      const account = yield* (yield* Accounts).get(accountId)
      expect(account.phoneNumber).toBeNull()
    }).pipe(Effect.provide(Env)))

  it.effect("four wrong codes still leave the fifth attempt", () =>
    Effect.gen(function*() {
      const accountId = yield* setup
      const phones = yield* PhoneVerifications
      yield* phones.start(accountId, NUMBER)
      const code = yield* lastCode
      for (let i = 0; i < 4; i++) yield* Effect.result(phones.confirm(accountId, NUMBER, otherCode(code)))
      expect((yield* phones.confirm(accountId, NUMBER, code)).phoneVerifiedAt).not.toBeNull()
    }).pipe(Effect.provide(Env)))

  it.effect("a code sent to one number does not confirm another; nothing pending is not_started", () =>
    Effect.gen(function*() {
      const accountId = yield* setup
      const phones = yield* PhoneVerifications
      const none = yield* Effect.result(phones.confirm(accountId, NUMBER, "123456"))
      expect(Result.isFailure(none) && none.failure).toMatchObject({ _tag: "PhoneCodeRejected", reason: "not_started" })
      yield* phones.start(accountId, NUMBER)
      const code = yield* lastCode
      const elsewhere = yield* Effect.result(phones.confirm(accountId, "+15550102031", code))
      expect(Result.isFailure(elsewhere) && elsewhere.failure).toMatchObject({ _tag: "PhoneCodeRejected", reason: "not_started" })
      // Another account cannot use this account's code.
      const other = (yield* (yield* Accounts).create({ email: "other@example.com" })).accountId
      const foreign = yield* Effect.result(phones.confirm(other, NUMBER, code))
      expect(Result.isFailure(foreign) && foreign.failure).toMatchObject({ _tag: "PhoneCodeRejected", reason: "not_started" })
    }).pipe(Effect.provide(Env)))

  it.effect("when the SMS cannot be sent, nothing is stored and no cooldown starts", () =>
    Effect.gen(function*() {
      const accountId = yield* setup
      const phones = yield* PhoneVerifications
      const inbox = yield* SmsInbox
      inbox.failNext()
      const failed = yield* Effect.result(phones.start(accountId, NUMBER))
      expect(Result.isFailure(failed) && failed.failure._tag).toBe("SmsDeliveryFailed")
      expect(Option.isNone(yield* (yield* PhoneVerificationsRepo).find(accountId))).toBe(true)
      yield* phones.start(accountId, NUMBER)
      expect(inbox.messages).toHaveLength(1)
    }).pipe(Effect.provide(Env)))
})
