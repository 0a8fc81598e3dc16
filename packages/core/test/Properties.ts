/**
 * Effectful fast-check properties. `@effect/vitest` 4's `it.effect.prop` draws its inputs from
 * Schemas with Effect's own generator, so the property tests here, written against fast-check
 * arbitraries with fixed seeds and run counts, check `fc.asyncProperty`s whose cases are Effects:
 * in a plain test with `runLikeTest` (each case on fresh test services), in a test of a shared
 * layer with `checkProperty` (every case on that layer's services).
 */
import { Effect, Layer, type Scope } from "effect"
import { TestClock, TestConsole } from "effect/testing"
import * as fc from "fast-check"

const TestServices = Layer.mergeAll(TestClock.layer(), TestConsole.layer)

/**
 * Runs `self` as `it.effect` runs a test — in its own scope, on a fresh TestClock and TestConsole —
 * for a case of an `fc.asyncProperty`: it falsifies the property by failing, dying or succeeding
 * with `false`, and passes with any other value (fast-check itself fails on all but `true` and
 * `undefined`, such as the object an `expect` returns).
 */
export const runLikeTest = <A, E>(self: Effect.Effect<A, E, Scope.Scope>): Promise<boolean> =>
  Effect.runPromise(self.pipe(Effect.map((a) => a !== false), Effect.scoped, Effect.provide(TestServices)))

/**
 * Checks the property that `predicate` holds for every tuple the arbitraries draw, each case run in
 * its own scope with the services of the Effect that runs this (e.g. those of `it.layer`'s layer).
 * A case falsifies the property by failing, dying or succeeding with `false`.
 */
export const checkProperty = <Ts extends [unknown, ...Array<unknown>], E, R>(
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  predicate: (...values: Ts) => Effect.Effect<unknown, E, R>,
  parameters?: fc.Parameters<Ts>
): Effect.Effect<void, never, Exclude<R, Scope.Scope>> =>
  Effect.flatMap(Effect.context<Exclude<R, Scope.Scope>>(), (context) =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(...arbitraries, (...values: Ts) =>
          Effect.runPromiseWith(context)(Effect.scoped(predicate(...values)).pipe(Effect.map((a) => a !== false)))),
        parameters
      )
    ))
