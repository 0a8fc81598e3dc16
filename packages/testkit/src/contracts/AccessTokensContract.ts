/**
 * The AccessTokens feature's part of the repository contract suite (called inside
 * `repositoryContract`): the signing-key store. The key table is global (not per account), so the
 * cases run in order on one store: the concurrent first start, then rotations.
 */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import { type SigningKeyRecord, SigningKeysRepo } from "@switchboard/core/oauth"
import { DateTime, Effect } from "effect"
import { expect } from "vitest"

const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const HOUR = 3_600_000

let counter = 0

/** A stored key as the service would make it; the repository never looks inside the material. */
const keyFixture = (state: "next" | "current", createdAt: number): SigningKeyRecord => {
  counter += 1
  const kid = `kid-${counter}-${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`
  // Sealed bytes as the service stores them: arbitrary binary, zeros included.
  const privateKeySealed = crypto.getRandomValues(new Uint8Array(60))
  privateKeySealed[0] = 0
  return {
    kid,
    state,
    publicJwk: { kty: "OKP", crv: "Ed25519", x: `x-${kid}`, kid, alg: "EdDSA", use: "sig" },
    privateKeySealed,
    createdAt: at(createdAt),
    activatedAt: state === "current" ? at(createdAt) : null,
    retiredAt: null,
    publishedUntil: null
  }
}

const states = (keys: ReadonlyArray<SigningKeyRecord>) => keys.map((k) => `${k.state}:${k.kid}`)

export const accessTokensContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("signing keys: concurrent first starts store exactly one current and one next key, stored as given", () =>
    Effect.gen(function*() {
      const repo = yield* SigningKeysRepo
      expect(yield* repo.listPublished(at(T0))).toEqual([])
      const attempts = Array.from({ length: 6 }, () => ({ current: keyFixture("current", T0), next: keyFixture("next", T0) }))
      const results = yield* Effect.all(attempts.map((a) => repo.ensure(a)), { concurrency: "unbounded" })
      expect(results.filter((r) => r.storedCurrent)).toHaveLength(1)
      expect(results.filter((r) => r.storedNext)).toHaveLength(1)
      const winnerCurrent = attempts[results.findIndex((r) => r.storedCurrent)]!.current
      const winnerNext = attempts[results.findIndex((r) => r.storedNext)]!.next
      // Current first, then next; every field round-trips (the sealed bytes byte for byte).
      expect(yield* repo.listPublished(at(T0))).toEqual([winnerCurrent, winnerNext])
      // A later start changes nothing.
      const again = yield* repo.ensure({ current: keyFixture("current", T0 + 1), next: keyFixture("next", T0 + 1) })
      expect(again).toEqual({ storedCurrent: false, storedNext: false })
      expect(states(yield* repo.listPublished(at(T0 + 1)))).toEqual(states([winnerCurrent, winnerNext]))
    }))

  it.effect("signing keys: rotation promotes next, retires current until publishedUntil, publishes a new next", () =>
    Effect.gen(function*() {
      const repo = yield* SigningKeysRepo
      const t1 = T0 + HOUR
      const [current, next] = yield* repo.listPublished(at(t1))
      expect(current?.state).toBe("current")
      expect(next?.state).toBe("next")
      const newNext = keyFixture("next", t1)
      const fallback = keyFixture("current", t1)
      const until = t1 + 2 * HOUR
      const result = yield* repo.rotate({ now: at(t1), publishedUntil: at(until), next: newNext, fallback })
      expect(result).toEqual({ retired: current!.kid, current: next!.kid, next: newNext.kid })
      const after = yield* repo.listPublished(at(t1))
      expect(after).toEqual([
        { ...next!, state: "current", activatedAt: at(t1) },
        newNext,
        { ...current!, state: "retired", retiredAt: at(t1), publishedUntil: at(until) }
      ])
      // The fallback is used only when there is no next key.
      expect(after.map((k) => k.kid)).not.toContain(fallback.kid)
      // The retired key is published until publishedUntil, not at it.
      expect(states(yield* repo.listPublished(at(until - 1)))).toEqual(states(after))
      expect((yield* repo.listPublished(at(until))).map((k) => k.kid)).toEqual([next!.kid, newNext.kid])
    }))

  it.effect("signing keys: a rotation deletes retired keys past publishedUntil and keeps newer ones, newest first", () =>
    Effect.gen(function*() {
      const repo = yield* SigningKeysRepo
      const t2 = T0 + 4 * HOUR
      const before = yield* repo.listPublished(at(T0 + HOUR))
      const expiredRetired = before.find((k) => k.state === "retired")!
      expect(expiredRetired.publishedUntil!.epochMilliseconds).toBeLessThanOrEqual(t2)
      const r2 = yield* repo.rotate({
        now: at(t2),
        publishedUntil: at(t2 + 2 * HOUR),
        next: keyFixture("next", t2),
        fallback: keyFixture("current", t2)
      })
      const t3 = t2 + 1000
      const r3 = yield* repo.rotate({
        now: at(t3),
        publishedUntil: at(t3 + 2 * HOUR),
        next: keyFixture("next", t3),
        fallback: keyFixture("current", t3)
      })
      // Asked at an earlier time, the set still lacks the key that expired before t2: it was deleted.
      const all = yield* repo.listPublished(at(T0))
      expect(all.map((k) => k.kid)).not.toContain(expiredRetired.kid)
      expect(all.map((k) => `${k.state}:${k.kid}`)).toEqual([
        `current:${r3.current}`,
        `next:${r3.next}`,
        `retired:${r3.retired}`,
        `retired:${r2.retired}`
      ])
    }))

  it.effect("signing keys: concurrent rotations are serialised — one current, one next, each retiring what the last promoted", () =>
    Effect.gen(function*() {
      const repo = yield* SigningKeysRepo
      const t4 = T0 + 5 * HOUR
      const [start] = yield* repo.listPublished(at(t4))
      const results = yield* Effect.all(
        Array.from({ length: 5 }, () =>
          repo.rotate({
            now: at(t4),
            publishedUntil: at(t4 + 2 * HOUR),
            next: keyFixture("next", t4),
            fallback: keyFixture("current", t4)
          })),
        { concurrency: "unbounded" }
      )
      const retired = results.map((r) => r.retired)
      expect(new Set(retired).size).toBe(5)
      expect(new Set(results.map((r) => r.current)).size).toBe(5)
      expect(retired).toContain(start!.kid)
      // A chain: every key retired was the start or a key another rotation promoted.
      for (const kid of retired) expect([start!.kid, ...results.map((r) => r.current)]).toContain(kid)
      const set = yield* repo.listPublished(at(t4))
      expect(set.filter((k) => k.state === "current")).toHaveLength(1)
      expect(set.filter((k) => k.state === "next")).toHaveLength(1)
      const finalCurrent = set[0]!.kid
      expect(retired).not.toContain(finalCurrent)
      expect(results.map((r) => r.current)).toContain(finalCurrent)
    }))
}
