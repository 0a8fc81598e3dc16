/** The live bearer authentication of /v1 routes (the `Authn` middleware of Authn.ts). */
import { HttpServerRequest } from "effect/http"
import { Authenticator, type Principal } from "@switchboard/core/credentials"
import { CurrentAuthentication } from "@switchboard/core/sso"
import { Effect, Layer, Redacted } from "effect"
import { Authn, CurrentPrincipal } from "./Authn.js"
import { domain } from "./Pipeline.js"
import { problem } from "./Problems.js"

/**
 * Bearer authentication: the scheme word is checked here, on the raw header (the platform's
 * extractor takes any credential after a case-insensitive "Bearer "; a header without one still
 * needs its own answer). A key credential verified before with the same secret is answered from
 * memory without an effect of its own (`Authenticator.cached`); anything else goes through
 * `authenticate`. The principal and its authentication facts are provided to the handler.
 */
export const AuthnLive = Layer.effect(
  Authn,
  Effect.gen(function*() {
    const authenticator = yield* Authenticator
    const missing = () =>
      problem("NOT_AUTHENTICATED", "Send Authorization: Bearer <credential>.", {
        headers: { "www-authenticate": `Bearer realm="api"` }
      })
    const notBearer = () =>
      problem("NOT_AUTHENTICATED", "The Authorization header must use the Bearer scheme.", {
        headers: { "www-authenticate": `Bearer realm="api", error="invalid_request"` }
      })
    // Required SSO (core sso/SsoEnforcement.ts): bearer credentials carry no SSO sign-in. A service
    // key's facts are one shared value, so the cached path allocates nothing for them.
    const serviceKeyFacts = { method: "service_key", ssoOrganizations: [] } as const
    const factsOf = (principal: Principal) =>
      principal._tag === "Account" ? serviceKeyFacts : {
        method: "access_token" as const,
        ssoOrganizations: [],
        ...(principal._tag === "AccessToken" && principal.sessionId !== undefined ? { sessionId: principal.sessionId } : {})
      }
    const authenticated = <A, E, R>(handler: Effect.Effect<A, E, R>, principal: Principal) =>
      handler.pipe(
        Effect.provideService(CurrentPrincipal, principal),
        Effect.provideService(CurrentAuthentication, factsOf(principal))
      )
    return {
      bearer: (httpEffect) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const header = request.headers["authorization"]
          if (header === undefined || header.trim() === "") return Effect.fail(missing())
          const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header)
          if (m === null) return Effect.fail(notBearer())
          const credential = m[1]!
          return Effect.clockWith((clock) => {
            const hit = authenticator.cached(credential, clock.currentTimeMillisUnsafe())
            return hit === undefined
              ? Effect.flatMap(domain(authenticator.authenticate(Redacted.make(credential))), (principal) => authenticated(httpEffect, principal))
              : authenticated(httpEffect, hit)
          })
        })
    }
  })
)
