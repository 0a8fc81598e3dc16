/**
 * Settings: `Context.Reference`s that every part of the application may read at request time, and
 * that the HTTP adapter therefore carries into request fibers. A request fiber holds only the
 * platform's services plus these (not the application's ~600 context entries, whose per-request
 * copies were the largest share of a cached read's CPU — issue 12): every service a route uses is
 * captured when the route is built, but a setting is read where it is used, often inside a
 * handler, and without its entry it silently falls back to its default.
 *
 * So a `Context.Reference` is declared with `Setting` (a lint test refuses `Context.Reference`
 * elsewhere), which records its key. A host's own reference read inside its own routes can be
 * declared the same way.
 */
import { Context } from "effect"

const keys = new Set<string>()

/** `Context.Reference`, with its key recorded among the settings request fibers carry. */
export const Setting = <Self>() =>
  <const Id extends string, Service>(
    key: Id,
    options: { readonly defaultValue: () => Service }
  ): Context.ReferenceClass<Self, Id, Service> => {
    keys.add(key)
    return Context.Reference<Self>()(key, options)
  }

/** The keys of every setting declared so far (modules declare them when they load). */
export const settingKeys = (): ReadonlySet<string> => keys

/** The part of `context` that is settings: what a request fiber carries besides the platform's services. */
export const settingsOf = (context: Context.Context<never>): Context.Context<never> => {
  const picked = new Map<string, unknown>()
  for (const [key, value] of context.unsafeMap) if (keys.has(key)) picked.set(key, value)
  return Context.unsafeMake(picked)
}
