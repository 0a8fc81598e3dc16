/**
 * Services for routes registered outside the HttpApi declaration (their handlers must need nothing
 * but the request): taken from the application once, at start, and provided to each request only
 * when its fiber does not already hold them. Pass only the services the handlers need
 * (`Context.pick`): the standalone server's request fibers carry only the platform's services
 * (`serveLean` in Http.ts), so those few are merged per request; a host serving `HttpAppLive`
 * itself runs requests on the whole application context, which already holds them, and then
 * nothing is merged at all (issue 12 goal 7: merging the whole context and comparing it key by key
 * cost several per cent of a cheap request).
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
