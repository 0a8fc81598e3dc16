/**
 * A /v1 group whose requests carry only the services it names (and the settings), not the whole
 * application context. `HttpApiBuilder.group` captures the context its layer is built in and merges
 * it into every request's context (a copy of every entry, ~600 in the server: the largest piece of
 * context work left on a cached read once request fibers went lean; bench/README.md). Built in a
 * context of just `tags`, the group's merge is a few dozen entries.
 *
 * The type checks the list: every service the group's layer requires (what its build and its
 * handlers read, at build or per request) must be among `tags`, else it does not compile. Not for a
 * group that reads a service with `Effect.serviceOption` (invisible to the type: it would silently
 * find nothing).
 */
import { settingsOf } from "@switchboard/core/internal"
import type { HttpRouter } from "effect/http"
import { Context, Effect, Layer } from "effect"

/**
 * `R` may name a service as its build's or, what `HttpApiBuilder.group` calls a handler's, as a
 * per-request requirement (`HttpRouter.Request<"Requires", S>`): the group provides both from the
 * context it is built in.
 */
export const leanGroup = <const Tags extends ReadonlyArray<Context.Key<any, any>>>(...tags: Tags) =>
  <
    A,
    E,
    R extends Context.Service.Identifier<Tags[number]> | HttpRouter.Request<"Requires", Context.Service.Identifier<Tags[number]>>
  >(group: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
    // Built in the same memo map as the rest of the application (the router is shared), with
    // nothing else in its context: `Layer.provide` would merge the whole outer context back in.
    Layer.fromBuildMemo((memoMap, scope) =>
      Effect.gen(function*() {
        const full = yield* Effect.context<R>()
        const picked = new Map(settingsOf(full as Context.Context<never>).mapUnsafe)
        for (const tag of tags) {
          if (full.mapUnsafe.has(tag.key)) picked.set(tag.key, full.mapUnsafe.get(tag.key))
        }
        const only = Context.makeUnsafe<R>(picked)
        return yield* Effect.updateContext(Layer.buildWithMemoMap(group, memoMap, scope), (_: Context.Context<never>) => only)
      })
    )
