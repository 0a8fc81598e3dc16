/** `fn` (shared/Traced.ts): a span while the tracer is on, none while it is off; same results and errors. */
import { describe, expect, it } from "@effect/vitest"
import { fn } from "@switchboard/core/internal"
import { Effect, Option } from "effect"

const double = fn("Test.double")(function*(n: number) {
  const span = yield* Effect.option(Effect.currentSpan)
  if (n < 0) return yield* Effect.fail("negative" as const)
  return { value: n * 2, span: Option.map(span, (s) => s.name) }
})

describe("fn", () => {
  it.effect("traces while the tracer is on", () =>
    Effect.gen(function*() {
      expect(yield* double(2)).toEqual({ value: 4, span: Option.some("Test.double") })
      expect(yield* Effect.flip(double(-1))).toBe("negative")
    }))

  it.effect("makes no span while the tracer is off", () =>
    Effect.gen(function*() {
      expect(yield* double(2)).toEqual({ value: 4, span: Option.none() })
      expect(yield* Effect.flip(double(-1))).toBe("negative")
      expect(double.length).toBe(1)
    }).pipe(Effect.withTracerEnabled(false)))
})
