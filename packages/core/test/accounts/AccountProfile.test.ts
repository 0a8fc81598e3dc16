import { describe, expect, it } from "@effect/vitest"
import { SwitchboardCore } from "@switchboard/core"
import { AccountProfile, Accounts } from "@switchboard/core/accounts"
import { accountFixture, TestkitLive } from "@switchboard/testkit"
import { DateTime, Effect, Result, Layer } from "effect"
import { TestClock } from "effect/testing"

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const Env = SwitchboardCore.pipe(Layer.provideMerge(TestkitLive))

const setup = Effect.gen(function*() {
  yield* TestClock.setTime(T0)
  return yield* (yield* Accounts).create({ email: "names@example.com", firstName: "Ada", lastName: "Byron" })
})

describe("AccountProfile.update", () => {
  it.effect("sets the names given, keeps the others, and moves updatedAt", () =>
    Effect.gen(function*() {
      const created = yield* setup
      const profile = yield* AccountProfile
      yield* TestClock.adjust("1 minute")
      const renamed = yield* profile.update(created.accountId, { firstName: "Augusta" })
      expect(renamed).toEqual({ ...created, firstName: "Augusta", updatedAt: DateTime.makeUnsafe(T0 + 60_000) })
      yield* TestClock.adjust("1 minute")
      const cleared = yield* profile.update(created.accountId, { lastName: null })
      expect(cleared).toEqual({ ...renamed, lastName: null, updatedAt: DateTime.makeUnsafe(T0 + 120_000) })
      yield* TestClock.adjust("1 minute")
      const both = yield* profile.update(created.accountId, { firstName: "Ada", lastName: "Lovelace" })
      expect([both.firstName, both.lastName]).toEqual(["Ada", "Lovelace"])
      expect(both.createdAt).toEqual(created.createdAt)
      expect(yield* (yield* Accounts).get(created.accountId)).toEqual(both)
    }).pipe(Effect.provide(Env)))

  it.effect("an empty patch only moves updatedAt", () =>
    Effect.gen(function*() {
      const created = yield* setup
      yield* TestClock.adjust("5 seconds")
      const touched = yield* (yield* AccountProfile).update(created.accountId, {})
      expect(touched).toEqual({ ...created, updatedAt: DateTime.makeUnsafe(T0 + 5_000) })
    }).pipe(Effect.provide(Env)))

  it.effect("a deleted account is AccountDeleted; an unknown one AccountNotFound", () =>
    Effect.gen(function*() {
      const created = yield* setup
      const profile = yield* AccountProfile
      yield* profile.delete(created.accountId)
      const deleted = yield* Effect.result(profile.update(created.accountId, { firstName: "X" }))
      expect(Result.isFailure(deleted) && deleted.failure._tag).toBe("AccountDeleted")
      const missing = yield* Effect.result(profile.update(accountFixture().accountId, {}))
      expect(Result.isFailure(missing) && missing.failure._tag).toBe("AccountNotFound")
    }).pipe(Effect.provide(Env)))
})
