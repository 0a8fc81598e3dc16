/**
 * A /v1 group whose requests carry only the services it names (and the settings), not the whole
 * application context. `HttpApiBuilder.group` captures the context its layer is built in and merges
 * it into every request's context (a copy of every entry, ~600 in the server: the largest piece of
 * context work left on a cached read once request fibers went lean; issue 12 goal 1). Built in a
 * context of just `tags`, the group's merge is a few dozen entries.
 *
 * The type checks the list: every service the group's layer requires (what its build and its
 * handlers read, at build or per request) must be among `tags`, else it does not compile. Not for a
 * group that reads a service with `Effect.serviceOption` (invisible to the type: it would silently
 * find nothing).
 */
import { settingsOf } from "@switchboard/core/internal"
import { Context, Effect, Layer, Scope } from "effect"

export const leanGroup = <const Tags extends ReadonlyArray<Context.Tag<any, any>>>(...tags: Tags) =>
  <A, E, R extends Context.Tag.Identifier<Tags[number]>>(group: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
    Layer.scopedContext(Effect.gen(function*() {
      const full = yield* Effect.context<R>()
      const picked = new Map(settingsOf(full as Context.Context<never>).unsafeMap)
      for (const tag of tags) {
        if (full.unsafeMap.has(tag.key)) picked.set(tag.key, full.unsafeMap.get(tag.key))
      }
      // Built in the same memo map as the rest of the application (the router is shared), with
      // nothing else in its context: `Layer.provide` would merge the whole outer context back in.
      const memoMap = yield* Layer.CurrentMemoMap
      const scope = yield* Scope.Scope
      const only = Context.unsafeMake<R>(picked)
      return yield* Effect.mapInputContext(Layer.buildWithMemoMap(group, memoMap, scope), (_: Context.Context<never>) => only)
    })) as Layer.Layer<A, E, R>
