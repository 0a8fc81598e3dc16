/**
 * The AccessTokens feature's memory layers: the signing keys as a table of the shared
 * `MemoryState` (so transactions roll back), with the same atomicity as the SQL repository — each
 * operation is one synchronous step, so concurrent calls never interleave. The token fixtures
 * (`mintAccessToken`, forged variants) live in `../AccessTokenFixtures.ts` and are re-exported here.
 */
import { type SigningKeyRecord, SigningKeysRepo } from "@switchboard/core/oauth"
import { DateTime, Effect, Layer } from "effect"
import { MemoryState } from "./MemoryState.js"

export * from "../AccessTokenFixtures.js"

const order = { current: 0, next: 1, retired: 2 } as const

const byPublicationOrder = (a: SigningKeyRecord, b: SigningKeyRecord) =>
  order[a.state] - order[b.state] ||
  (b.retiredAt?.epochMilliseconds ?? 0) - (a.retiredAt?.epochMilliseconds ?? 0) ||
  DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) ||
  (a.kid < b.kid ? -1 : 1)

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const table = state.table<string, SigningKeyRecord>("signing_keys")
  const inState = (s: SigningKeyRecord["state"]) => [...table.values()].find((k) => k.state === s)

  return SigningKeysRepo.of({
    listPublished: (now) =>
      Effect.sync(() =>
        [...table.values()]
          .filter((k) => k.state !== "retired" || (k.publishedUntil !== null && DateTime.isGreaterThan(k.publishedUntil, now)))
          .sort(byPublicationOrder)
      ),
    ensure: ({ current, next }) =>
      Effect.sync(() => {
        const storedCurrent = inState("current") === undefined
        if (storedCurrent) table.set(current.kid, { ...current, state: "current" })
        const storedNext = inState("next") === undefined
        if (storedNext) table.set(next.kid, { ...next, state: "next" })
        return { storedCurrent, storedNext }
      }),
    rotate: ({ fallback, next, now, publishedUntil }) =>
      Effect.sync(() => {
        for (const [kid, k] of table) {
          if (k.state === "retired" && (k.publishedUntil === null || !DateTime.isGreaterThan(k.publishedUntil, now))) {
            table.delete(kid)
          }
        }
        const old = inState("current")
        if (old !== undefined) table.set(old.kid, { ...old, state: "retired", retiredAt: now, publishedUntil })
        const waiting = inState("next")
        const promoted: SigningKeyRecord = waiting !== undefined
          ? { ...waiting, state: "current", activatedAt: now }
          : { ...fallback, state: "current", activatedAt: now }
        table.set(promoted.kid, promoted)
        table.set(next.kid, { ...next, state: "next", activatedAt: null })
        return { retired: old?.kid ?? null, current: promoted.kid, next: next.kid }
      })
  })
})

/** The signing keys over the shared memory state. */
export const SigningKeysRepoMemory: Layer.Layer<SigningKeysRepo, never, MemoryState> = Layer.effect(SigningKeysRepo, make)

export const AccessTokensMemory: Layer.Layer<SigningKeysRepo, never, MemoryState> = SigningKeysRepoMemory
