/**
 * Services for routes registered outside the HttpApi declaration (their handlers must need nothing
 * but the request): taken from the application once, at start, and provided to each request only
 * when its fiber does not already hold them. The server's request fibers carry only the platform's
 * services and the settings (Http.ts `serveLean`), so there they are provided; a host that serves
 * the application on its own whole context already holds them, and providing them anyway would
 * merge a copy of them into the request's context on every request. Give it the routes' services
 * only (`Context.pick`): each is looked up in the fiber's context, and each is copied into the
 * request's context when provided.
 */
import { Context, Effect } from "effect"

export const provideRouteServices = <S>(services: Context.Context<S>) => {
  const entries = [...services.mapUnsafe]
  /** Whether `current` holds every one of the services, the very same instances. */
  const holds = (current: Context.Context<never>) => {
    for (const [key, service] of entries) if (current.mapUnsafe.get(key) !== service) return false
    return true
  }
  return <A, E, R>(handler: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, S>> => {
    const provided = Effect.provideContext(handler, services)
    return Effect.contextWith((current: Context.Context<never>) =>
      // The fiber already holds all of `S` (checked above), so nothing of `S` is missing.
      holds(current) ? handler as Effect.Effect<A, E, Exclude<R, S>> : provided)
  }
}
