/**
 * Services for routes registered outside the HttpApi declaration (their handlers must need nothing
 * but the request): taken from the application once, at start, and provided to each request only
 * when its fiber does not already hold them. In the server every request fiber runs on the
 * application's own context, so the services are there already; providing them anyway merged
 * the whole context into a copy and compared it key by key with the old one on every request
 * (`Effect.provide` sets the context FiberRef): several per cent of a cheap request (issue 12 goal 7).
 * Give it the routes' services only (`Context.pick`): each is looked up in the fiber's context on
 * every request, so the whole application context here meant a thousand lookups per request.
 */
import { Context, Effect } from "effect"

export const provideRouteServices = <S>(services: Context.Context<S>) => {
  const entries = [...services.unsafeMap]
  /** Whether `current` holds every one of the services, the very same instances. */
  const holds = (current: Context.Context<never>) => {
    for (const [key, service] of entries) if (current.unsafeMap.get(key) !== service) return false
    return true
  }
  return <A, E, R>(handler: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, S>> => {
    const provided = Effect.provide(handler, services)
    return Effect.contextWithEffect((current: Context.Context<never>) =>
      // The fiber already holds all of `S` (checked above), so nothing of `S` is missing.
      holds(current) ? handler as Effect.Effect<A, E, Exclude<R, S>> : provided)
  }
}
