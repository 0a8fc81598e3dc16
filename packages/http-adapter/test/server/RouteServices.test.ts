/**
 * `provideRouteServices` (http/RouteServices.ts): a fiber that already holds the very services runs
 * the handler on its own context (its other services and Context.Reference settings untouched);
 * a fiber without them, or with other instances, gets the given ones — and only those.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect } from "effect"
import { provideRouteServices } from "../../src/http/RouteServices.js"

class A extends Context.Service<A, { readonly n: number }>()("test/A") {}
class B extends Context.Service<B, { readonly n: number }>()("test/B") {}
class Other extends Context.Service<Other, string>()("test/Other") {}
const Setting = Context.Reference<string>("test/Setting", { defaultValue: () => "default" })

const a = { n: 1 }
const b = { n: 2 }
const app = Context.make(A, a).pipe(Context.add(B, b), Context.add(Other, "the application's"))
const withServices = provideRouteServices(Context.pick(A, B)(app))
const handler = Effect.gen(function*() {
  return {
    a: yield* A,
    b: yield* B,
    other: yield* Effect.serviceOption(Other),
    setting: yield* Setting
  }
})

describe("provideRouteServices", () => {
  it.effect("the fiber's own context when it holds the same instances; its reference settings are kept", () =>
    Effect.gen(function*() {
      const seen = yield* withServices(handler).pipe(Effect.provide(Context.add(app, Setting, "per request")))
      expect(seen.a).toBe(a)
      expect(seen.b).toBe(b)
      expect(seen.other._tag === "Some" && seen.other.value).toBe("the application's")
      expect(seen.setting).toBe("per request")
    }))

  it.effect("other instances or none: the given services are provided, the fiber's other services and settings stay", () =>
    Effect.gen(function*() {
      const foreign = { n: 9 }
      const seen = yield* withServices(handler).pipe(
        Effect.provide(Context.make(A, foreign).pipe(Context.add(Other, "the fiber's"), Context.add(Setting, "per request")))
      )
      expect(seen.a).toBe(a)
      expect(seen.b).toBe(b)
      expect(seen.other._tag === "Some" && seen.other.value).toBe("the fiber's")
      expect(seen.setting).toBe("per request")
      const bare = yield* withServices(handler)
      expect(bare.a).toBe(a)
      expect(bare.other._tag).toBe("None")
      expect(bare.setting).toBe("default")
    }))
})
