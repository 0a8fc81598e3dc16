/** The live bearer authentication of /v1 routes (the `Authn` middleware of Authn.ts). */
import { HttpServerRequest } from "@effect/platform"
import { Authenticator, type Principal } from "@switchboard/core/credentials"
import { CurrentAuthentication } from "@switchboard/core/sso"
import { Effect, FiberRef, Layer, Redacted } from "effect"
import { Authn } from "./Authn.js"
import { domain } from "./Pipeline.js"
import { problem } from "./Problems.js"

/**
 * Bearer authentication: the scheme word is checked here (the platform's extractor does not). A key
 * credential verified before with the same secret is answered from memory without an effect of its
 * own (`Authenticator.cached`); anything else goes through `authenticate`.
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
    const rememberAuthentication = (principal: Principal) =>
      FiberRef.set(
        CurrentAuthentication,
        principal._tag === "Account" ? serviceKeyFacts : {
          method: "access_token",
          ssoOrganizations: [],
          ...(principal._tag === "AccessToken" && principal.sessionId !== undefined ? { sessionId: principal.sessionId } : {})
        }
      )
    return Authn.of({
      bearer: () =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const header = request.headers["authorization"]
          if (header === undefined || header.trim() === "") return Effect.fail(missing())
          const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header)
          if (m === null) return Effect.fail(notBearer())
          const credential = m[1]!
          return Effect.clockWith((clock) => {
            const hit = authenticator.cached(credential, clock.unsafeCurrentTimeMillis())
            const principal = hit === undefined ? domain(authenticator.authenticate(Redacted.make(credential))) : Effect.succeed(hit)
            return Effect.tap(principal, rememberAuthentication)
          })
        })
    })
  })
)
