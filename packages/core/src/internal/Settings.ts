/**
 * Settings: `Context.Reference`s that every part of the application may read at request time, and
 * that the HTTP adapter therefore carries into request fibers. A request fiber holds only the
 * platform's services plus these (not the application's ~600 context entries, whose per-request
 * copies were the largest share of a cached read's CPU): every service a route uses is
 * captured when the route is built, but a setting is read where it is used, often inside a
 * handler, and without its entry it silently falls back to its default.
 *
 * So a `Context.Reference` is declared with `Setting` (a lint test refuses `Context.Reference`
 * elsewhere), which records its key. A host's own reference read inside its own routes can be
 * declared the same way.
 */
import { Context } from "effect"

const keys = new Set<string>()

/**
 * A setting's key: a `Context.Reference` to extend as a class (`class X extends Setting<X>()(…) {}`),
 * yielded for its value (the default when no entry is provided). `Self` is type-level only.
 */
export interface SettingClass<Self, Id extends string, Shape> extends Context.Reference<Shape> {
  readonly key: Id
  readonly "~Self"?: Self
}

/** `Context.Reference`, with its key recorded among the settings request fibers carry. */
export const Setting = <Self>() =>
  <const Id extends string, Shape>(
    key: Id,
    options: { readonly defaultValue: () => Shape }
  ): SettingClass<Self, Id, Shape> => {
    keys.add(key)
    // `Context.Reference` types its key as `string`; this one is the literal it was given.
    return Context.Reference<Shape>(key, options) as SettingClass<Self, Id, Shape>
  }

/** The keys of every setting declared so far (modules declare them when they load). */
export const settingKeys = (): ReadonlySet<string> => keys

/** The part of `context` that is settings: what a request fiber carries besides the platform's services. */
export const settingsOf = (context: Context.Context<never>): Context.Context<never> => {
  const picked = new Map<string, unknown>()
  for (const [key, value] of context.mapUnsafe) if (keys.has(key)) picked.set(key, value)
  return Context.makeUnsafe(picked)
}
