/** The AccountSecurity feature's part of the repository contract suite (called inside `repositoryContract`). */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import {
  AccountProfileRepo,
  AccountsRepo,
  type PhoneVerificationRecord,
  PhoneVerificationsRepo,
  type TotpFactorRecord,
  TotpFactorsRepo
} from "@switchboard/core/accounts"
import { type AccountId, TotpFactorId, Transactor } from "@switchboard/core/shared"
import { DateTime, Effect, Result, Option } from "effect"
import { expect } from "vitest"
import { accountFixture } from "../Fixtures.js"

const T0 = DateTime.makeUnsafe("2030-01-01T00:00:00.000Z") as DateTime.Utc
const plus = (ms: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(T0) + ms) as DateTime.Utc

const newAccount = Effect.gen(function*() {
  const account = accountFixture()
  yield* (yield* AccountsRepo).insert(account)
  return account
})

const verificationFixture = (accountId: AccountId, overrides: Partial<PhoneVerificationRecord> = {}): PhoneVerificationRecord => ({
  accountId,
  phoneNumber: "+15550001111",
  codeHash: "a".repeat(64),
  attempts: 0,
  createdAt: T0,
  expiresAt: plus(600_000),
  resendAvailableAt: plus(60_000),
  ...overrides
})

let factorCounter = 0
const factorFixture = (accountId: AccountId, overrides: Partial<TotpFactorRecord> = {}): TotpFactorRecord => ({
  factorId: TotpFactorId.make(`auth_factor_${Date.now().toString(36)}${(++factorCounter).toString(36)}${Math.random().toString(36).slice(2, 10)}`),
  accountId,
  secretSealed: Uint8Array.from([0, 1, 2, 250, 251, 252, 7, 0]),
  enrollmentTokenHash: "e".repeat(64),
  enrollmentExpiresAt: plus(600_000),
  createdAt: T0,
  verifiedAt: null,
  lastUsedStep: null,
  deletedAt: null,
  ...overrides
})

export const accountSecurityContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("account profile: updateNames changes only the names given and updatedAt, on live accounts only", () =>
    Effect.gen(function*() {
      const profiles = yield* AccountProfileRepo
      const account = yield* newAccount
      expect(Option.getOrThrow(yield* profiles.lock(account.accountId))).toEqual(account)
      const first = Option.getOrThrow(yield* profiles.updateNames({ accountId: account.accountId, firstName: "Ada", lastName: "L", now: plus(1) }))
      expect(first).toEqual({ ...account, firstName: "Ada", lastName: "L", updatedAt: plus(1) })
      const second = Option.getOrThrow(yield* profiles.updateNames({ accountId: account.accountId, lastName: null, now: plus(2) }))
      expect(second).toEqual({ ...account, firstName: "Ada", lastName: null, updatedAt: plus(2) })
      const touched = Option.getOrThrow(yield* profiles.updateNames({ accountId: account.accountId, now: plus(3) }))
      expect(touched).toEqual({ ...second, updatedAt: plus(3) })
      // Written to the accounts table itself: AccountsRepo sees it.
      expect(Option.getOrThrow(yield* (yield* AccountsRepo).findById(account.accountId))).toEqual(touched)
      yield* profiles.markDeleted({ accountId: account.accountId, now: plus(4) })
      expect(Option.isNone(yield* profiles.updateNames({ accountId: account.accountId, firstName: "X", now: plus(5) }))).toBe(true)
      expect(Option.isNone(yield* profiles.updateNames({ accountId: accountFixture().accountId, firstName: "X", now: plus(5) })))
        .toBe(true)
    }))

  it.effect("account profile: bindPhone sets the number, phoneVerifiedAt and updatedAt", () =>
    Effect.gen(function*() {
      const profiles = yield* AccountProfileRepo
      const account = yield* newAccount
      const bound = Option.getOrThrow(yield* profiles.bindPhone({ accountId: account.accountId, phoneNumber: "+15551234567", now: plus(10) }))
      expect(bound).toEqual({ ...account, phoneNumber: "+15551234567", phoneVerifiedAt: plus(10), updatedAt: plus(10) })
      expect(Option.isNone(yield* profiles.bindPhone({ accountId: accountFixture().accountId, phoneNumber: "1234567", now: T0 })))
        .toBe(true)
    }))

  it.effect("account profile: markDeleted keeps the first deletion and returns the tombstone", () =>
    Effect.gen(function*() {
      const profiles = yield* AccountProfileRepo
      const account = yield* newAccount
      const tombstone = Option.getOrThrow(yield* profiles.markDeleted({ accountId: account.accountId, now: plus(20) }))
      expect(tombstone).toEqual({ ...account, deletedAt: plus(20), updatedAt: plus(20) })
      const again = Option.getOrThrow(yield* profiles.markDeleted({ accountId: account.accountId, now: plus(99) }))
      expect(again).toEqual(tombstone)
      expect(Option.getOrThrow(yield* profiles.lock(account.accountId))).toEqual(tombstone)
      expect(Option.isNone(yield* profiles.markDeleted({ accountId: accountFixture().accountId, now: T0 }))).toBe(true)
    }))

  it.effect("account profile: a write inside a failed transaction is rolled back", () =>
    Effect.gen(function*() {
      const profiles = yield* AccountProfileRepo
      const tx = yield* Transactor
      const account = yield* newAccount
      const result = yield* Effect.result(tx.withTransaction(Effect.gen(function*() {
        yield* profiles.lock(account.accountId)
        yield* profiles.markDeleted({ accountId: account.accountId, now: plus(1) })
        return yield* Effect.fail("boom" as const)
      })))
      expect(Result.isFailure(result)).toBe(true)
      expect(Option.getOrThrow(yield* profiles.lock(account.accountId)).deletedAt).toBeNull()
    }))

  it.effect("phone verifications: one per account, replaced by put, attempts counted, removed", () =>
    Effect.gen(function*() {
      const phones = yield* PhoneVerificationsRepo
      const a = yield* newAccount
      const b = yield* newAccount
      expect(Option.isNone(yield* phones.find(a.accountId))).toBe(true)
      const first = verificationFixture(a.accountId)
      yield* phones.put(first)
      yield* phones.put(verificationFixture(b.accountId, { phoneNumber: "5550002222" }))
      expect(Option.getOrThrow(yield* phones.find(a.accountId))).toEqual(first)
      expect(Option.getOrThrow(yield* phones.recordFailedAttempt(a.accountId))).toBe(1)
      expect(Option.getOrThrow(yield* phones.recordFailedAttempt(a.accountId))).toBe(2)
      expect(Option.getOrThrow(yield* phones.find(a.accountId)).attempts).toBe(2)
      const replacement = verificationFixture(a.accountId, {
        phoneNumber: "+15559998888",
        codeHash: "b".repeat(64),
        createdAt: plus(60_000),
        expiresAt: plus(660_000),
        resendAvailableAt: plus(120_000)
      })
      yield* phones.put(replacement)
      expect(Option.getOrThrow(yield* phones.find(a.accountId))).toEqual(replacement)
      yield* phones.remove(a.accountId)
      expect(Option.isNone(yield* phones.find(a.accountId))).toBe(true)
      expect(Option.isNone(yield* phones.recordFailedAttempt(a.accountId))).toBe(true)
      // The other account's verification is untouched.
      expect(Option.getOrThrow(yield* phones.find(b.accountId)).phoneNumber).toBe("5550002222")
    }))

  it.effect("phone verifications: concurrent wrong attempts are each counted", () =>
    Effect.gen(function*() {
      const phones = yield* PhoneVerificationsRepo
      const account = yield* newAccount
      yield* phones.put(verificationFixture(account.accountId))
      const counts = yield* Effect.all(Array.from({ length: 6 }, () => phones.recordFailedAttempt(account.accountId)), {
        concurrency: "unbounded"
      })
      expect(counts.map(Option.getOrThrow).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6])
    }))

  it.effect("totp factors: the sealed secret round-trips; listVerified holds verified, undeleted ones, oldest first", () =>
    Effect.gen(function*() {
      const totp = yield* TotpFactorsRepo
      const account = yield* newAccount
      const pending = factorFixture(account.accountId)
      const older = factorFixture(account.accountId, { createdAt: T0, verifiedAt: plus(1), lastUsedStep: 42 })
      const newer = factorFixture(account.accountId, { createdAt: plus(5), verifiedAt: plus(6) })
      const gone = factorFixture(account.accountId, { createdAt: plus(7), verifiedAt: plus(8) })
      for (const f of [pending, newer, older, gone]) yield* totp.insert(f)
      yield* totp.softDelete({ accountId: account.accountId, factorId: gone.factorId, now: plus(9) })
      const found = Option.getOrThrow(yield* totp.find(pending.factorId))
      expect(found).toEqual(pending)
      expect(found.secretSealed).toBeInstanceOf(Uint8Array)
      expect(Array.from(found.secretSealed!)).toEqual([0, 1, 2, 250, 251, 252, 7, 0])
      const verified = yield* totp.listVerified(account.accountId)
      expect(verified.map((f) => f.factorId)).toEqual([older.factorId, newer.factorId])
      expect(verified[0]).toEqual(older)
      expect(Option.isNone(yield* totp.find(factorFixture(account.accountId).factorId))).toBe(true)
    }))

  it.effect("totp factors: useStep accepts only a later step, sets verifiedAt once, and one of two racing uses wins", () =>
    Effect.gen(function*() {
      const totp = yield* TotpFactorsRepo
      const account = yield* newAccount
      const factor = factorFixture(account.accountId)
      yield* totp.insert(factor)
      expect(yield* totp.useStep({ factorId: factor.factorId, step: 66_666_666, now: plus(1) })).toBe(true)
      const used = Option.getOrThrow(yield* totp.find(factor.factorId))
      expect(used.lastUsedStep).toBe(66_666_666)
      expect(used.verifiedAt).toEqual(plus(1))
      expect(yield* totp.useStep({ factorId: factor.factorId, step: 66_666_666, now: plus(2) })).toBe(false)
      expect(yield* totp.useStep({ factorId: factor.factorId, step: 66_666_665, now: plus(2) })).toBe(false)
      expect(yield* totp.useStep({ factorId: factor.factorId, step: 66_666_667, now: plus(3) })).toBe(true)
      const later = Option.getOrThrow(yield* totp.find(factor.factorId))
      expect(later.lastUsedStep).toBe(66_666_667)
      expect(later.verifiedAt).toEqual(plus(1))
      const race = yield* Effect.all(
        Array.from({ length: 5 }, () => totp.useStep({ factorId: factor.factorId, step: 66_666_700, now: plus(4) })),
        { concurrency: "unbounded" }
      )
      expect(race.filter((won) => won)).toHaveLength(1)
      yield* totp.softDelete({ accountId: account.accountId, factorId: factor.factorId, now: plus(5) })
      expect(yield* totp.useStep({ factorId: factor.factorId, step: 66_666_800, now: plus(6) })).toBe(false)
    }))

  it.effect("totp factors: softDelete keeps the first time, drops the secret and is scoped to the owner", () =>
    Effect.gen(function*() {
      const totp = yield* TotpFactorsRepo
      const account = yield* newAccount
      const other = yield* newAccount
      const factor = factorFixture(account.accountId, { verifiedAt: plus(1) })
      yield* totp.insert(factor)
      expect(Option.isNone(yield* totp.softDelete({ accountId: other.accountId, factorId: factor.factorId, now: plus(2) })))
        .toBe(true)
      const deleted = Option.getOrThrow(yield* totp.softDelete({ accountId: account.accountId, factorId: factor.factorId, now: plus(3) }))
      expect(deleted).toEqual({ ...factor, secretSealed: null, deletedAt: plus(3) })
      const again = Option.getOrThrow(yield* totp.softDelete({ accountId: account.accountId, factorId: factor.factorId, now: plus(9) }))
      expect(again.deletedAt).toEqual(plus(3))
      expect(yield* totp.listVerified(account.accountId)).toEqual([])
    }))

  it.effect("totp factors: removePending drops only unverified enrollments; softDeleteAll ends every factor of one account", () =>
    Effect.gen(function*() {
      const totp = yield* TotpFactorsRepo
      const account = yield* newAccount
      const other = yield* newAccount
      const pending = factorFixture(account.accountId)
      const verified = factorFixture(account.accountId, { verifiedAt: plus(1) })
      const othersPending = factorFixture(other.accountId)
      for (const f of [pending, verified, othersPending]) yield* totp.insert(f)
      yield* totp.removePending(account.accountId)
      expect(Option.isNone(yield* totp.find(pending.factorId))).toBe(true)
      expect(Option.isSome(yield* totp.find(verified.factorId))).toBe(true)
      expect(Option.isSome(yield* totp.find(othersPending.factorId))).toBe(true)
      yield* totp.softDeleteAll({ accountId: account.accountId, now: plus(2) })
      const ended = Option.getOrThrow(yield* totp.find(verified.factorId))
      expect(ended.deletedAt).toEqual(plus(2))
      expect(ended.secretSealed).toBeNull()
      expect(Option.getOrThrow(yield* totp.find(othersPending.factorId)).deletedAt).toBeNull()
    }))
}
