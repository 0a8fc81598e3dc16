/**
 * Device codes (RFC 8628; core oauth/DeviceCodes.ts) in the repository contract suite: a user code
 * is taken once; a pending code is decided once and never after it expired; a poll sooner than the
 * interval grows it by 5 s; an approved code is consumed once; expired codes are swept.
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import { type DeviceCodeRecord, DeviceCodesRepo } from "@switchboard/core/oauth"
import { type AccountId } from "@switchboard/core/shared"
import { DateTime, Effect, Option } from "effect"
import { expect } from "vitest"

const T0 = DateTime.makeUnsafe("2030-01-01T00:00:00.000Z") as DateTime.Utc
const plus = (t: DateTime.Utc, ms: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(t) + ms) as DateTime.Utc
let counter = 0
const unique = (what: string) => `${what}-${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2, 8)}`
const ACCOUNT = "sb_acc_0000000000000000000000000a" as AccountId

const fixture = (overrides: Partial<DeviceCodeRecord> = {}): DeviceCodeRecord => ({
  deviceCodeHash: unique("device"),
  userCodeHash: unique("user"),
  clientId: "sb_oauth_client",
  scopes: ["openid", "offline_access", "projects:read"],
  resource: null,
  status: "pending",
  accountId: null,
  grantId: null,
  authTime: null,
  intervalSeconds: 5,
  lastPolledAt: null,
  createdAt: T0,
  expiresAt: plus(T0, 600_000),
  ...overrides
})

export const deviceCodesContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("device codes: a user code is taken once; found by it as stored", () =>
    Effect.gen(function*() {
      const repo = yield* DeviceCodesRepo
      const code = fixture({ resource: "https://api.example" })
      expect(yield* repo.insert(code)).toBe(true)
      expect(yield* repo.insert(fixture({ userCodeHash: code.userCodeHash }))).toBe(false)
      expect(Option.getOrThrow(yield* repo.findByUserCode(code.userCodeHash))).toEqual(code)
      expect(Option.isNone(yield* repo.findByUserCode(unique("other")))).toBe(true)
    }))

  it.effect("device codes: decided once, only while pending and unexpired; approval records account, grant and sign-in time", () =>
    Effect.gen(function*() {
      const repo = yield* DeviceCodesRepo
      const code = fixture()
      yield* repo.insert(code)
      const approve = { _tag: "Approve" as const, accountId: ACCOUNT, grantId: "sb_grt_x", authTime: plus(T0, 1000) }
      expect(yield* repo.decide({ userCodeHash: code.userCodeHash, decision: approve, now: plus(T0, 2000) })).toBe(true)
      expect(yield* repo.decide({ userCodeHash: code.userCodeHash, decision: { _tag: "Deny", accountId: ACCOUNT }, now: plus(T0, 3000) })).toBe(false)
      const stored = Option.getOrThrow(yield* repo.findByUserCode(code.userCodeHash))
      expect(stored).toMatchObject({ status: "approved", accountId: ACCOUNT, grantId: "sb_grt_x" })
      expect(stored.authTime?.epochMilliseconds).toBe(DateTime.toEpochMillis(T0) + 1000)

      const late = fixture()
      yield* repo.insert(late)
      expect(yield* repo.decide({ userCodeHash: late.userCodeHash, decision: approve, now: late.expiresAt })).toBe(false)
      const denied = fixture()
      yield* repo.insert(denied)
      expect(yield* repo.decide({ userCodeHash: denied.userCodeHash, decision: { _tag: "Deny", accountId: ACCOUNT }, now: T0 })).toBe(true)
      expect(Option.getOrThrow(yield* repo.findByUserCode(denied.userCodeHash)).status).toBe("denied")
    }))

  it.effect("device codes: a poll sooner than the interval slows down by 5 s; polls return the code as it was", () =>
    Effect.gen(function*() {
      const repo = yield* DeviceCodesRepo
      const code = fixture()
      yield* repo.insert(code)
      expect(Option.isNone(yield* repo.poll({ deviceCodeHash: unique("nope"), now: T0 }))).toBe(true)
      const first = Option.getOrThrow(yield* repo.poll({ deviceCodeHash: code.deviceCodeHash, now: plus(T0, 1000) }))
      expect(first.slowDown).toBe(false)
      expect(first.code.lastPolledAt).toBeNull()
      const fast = Option.getOrThrow(yield* repo.poll({ deviceCodeHash: code.deviceCodeHash, now: plus(T0, 2000) }))
      expect(fast.slowDown).toBe(true)
      expect(fast.code.intervalSeconds).toBe(5)
      expect(fast.code.lastPolledAt?.epochMilliseconds).toBe(DateTime.toEpochMillis(T0) + 1000)
      // Now 10 s: 7 s after the last poll is too soon again.
      const again = Option.getOrThrow(yield* repo.poll({ deviceCodeHash: code.deviceCodeHash, now: plus(T0, 9000) }))
      expect(again.code.intervalSeconds).toBe(10)
      expect(again.slowDown).toBe(true)
      const patient = Option.getOrThrow(yield* repo.poll({ deviceCodeHash: code.deviceCodeHash, now: plus(T0, 30_000) }))
      expect(patient.slowDown).toBe(false)
      expect(patient.code.intervalSeconds).toBe(15)
    }))

  it.effect("device codes: an approved code is consumed once; pending ones not at all; expired codes are swept", () =>
    Effect.gen(function*() {
      const repo = yield* DeviceCodesRepo
      const code = fixture()
      yield* repo.insert(code)
      expect(yield* repo.consume({ deviceCodeHash: code.deviceCodeHash, now: T0 })).toBe(false)
      yield* repo.decide({ userCodeHash: code.userCodeHash, decision: { _tag: "Approve", accountId: ACCOUNT, grantId: "sb_grt_y", authTime: T0 }, now: T0 })
      const both = yield* Effect.all([
        repo.consume({ deviceCodeHash: code.deviceCodeHash, now: T0 }),
        repo.consume({ deviceCodeHash: code.deviceCodeHash, now: T0 })
      ], { concurrency: 2 })
      expect(both.filter(Boolean)).toHaveLength(1)
      expect(Option.getOrThrow(yield* repo.findByUserCode(code.userCodeHash)).status).toBe("consumed")

      const old = fixture({ expiresAt: plus(T0, -10 * 86_400_000) })
      yield* repo.insert(old)
      expect(yield* repo.sweep({ before: plus(T0, -86_400_000) })).toBeGreaterThanOrEqual(1)
      expect(Option.isNone(yield* repo.findByUserCode(old.userCodeHash))).toBe(true)
      expect(Option.isSome(yield* repo.findByUserCode(code.userCodeHash))).toBe(true)
    }))
}
