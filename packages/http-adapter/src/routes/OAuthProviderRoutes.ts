/**
 * The OAuthProvider feature's routes outside the HttpApi declaration (docs/api-notes/oauth.md): the
 * authorization endpoint and its consent screen, token, revocation, introspection, userinfo,
 * registration (disabled), the JWKS and the two path-insertion discovery documents; the device flow
 * (RFC 8628: its endpoint, the `/device` verification page, `/v1/auth/device/*`). The appended form
 * (`/api/auth/.well-known/…`) and the domain root (`/.well-known/openid-configuration`) are not
 * routes: 404. `oAuthProviderRouteTable` lists [method, path] for 405 answers.
 */
import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import { AccountsRepo } from "@switchboard/core/accounts"
import { Sessions } from "@switchboard/core/dashboard"
import { OAuthProvider, SigningKeys } from "@switchboard/core/oauth"
import { Secrets, ServerSecret } from "@switchboard/core/shared"
import { Context, Effect } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { provideRouteServices } from "../http/RouteServices.js"
import type { OAuthFailure } from "../http/Surfaces.js"
import { AUTHORIZE_PATH, authorizeGet, CONSENT_PATH, consentPost } from "./OAuthAuthorize.js"
import { DEVICE_V1_PATHS, devicePageGet, devicePagePost, v1DeviceCode, v1DeviceToken } from "./OAuthDevice.js"
import { DEVICE_PAGE_PATH } from "./OAuthDevicePages.js"
import {
  deviceAuthorizationEndpoint,
  discoveryEndpoint,
  introspectEndpoint,
  jwksEndpoint,
  registerEndpoint,
  revokeEndpoint,
  tokenEndpoint,
  userinfoEndpoint
} from "./OAuthEndpoints.js"

export const OAUTH_PATHS = {
  authorize: AUTHORIZE_PATH,
  consent: CONSENT_PATH,
  token: "/api/auth/oauth2/token",
  userinfo: "/api/auth/oauth2/userinfo",
  revoke: "/api/auth/oauth2/revoke",
  introspect: "/api/auth/oauth2/introspect",
  register: "/api/auth/oauth2/register",
  deviceAuthorization: "/api/auth/oauth2/device_authorization",
  devicePage: DEVICE_PAGE_PATH,
  deviceCodeV1: DEVICE_V1_PATHS.code,
  deviceTokenV1: DEVICE_V1_PATHS.token,
  jwks: "/api/auth/jwks",
  oauthMetadata: "/.well-known/oauth-authorization-server/api/auth",
  openidMetadata: "/.well-known/openid-configuration/api/auth"
} as const

/** The services the handlers use, taken from the application once. */
type Needs = OAuthProvider | Sessions | AccountsRepo | ServerSecret | SigningKeys | Secrets | ServerConfig

export const OAuthProviderRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    // These services only: `Effect.context` is the whole application's (~1 000 entries), which
    // `provideRouteServices` would otherwise check one by one on every request.
    const services = Context.pick(OAuthProvider, Sessions, AccountsRepo, ServerSecret, SigningKeys, Secrets, ServerConfig)(
      yield* Effect.context<Needs>()
    )
    const withServices = provideRouteServices(services)
    const serve = (
      handler: Effect.Effect<HttpServerResponse.HttpServerResponse, OAuthFailure, Needs | HttpServerRequest.HttpServerRequest>
    ) => withServices(handler)
    const p = OAUTH_PATHS
    yield* router.add("GET", p.authorize, serve(authorizeGet))
    yield* router.add("POST", p.consent, serve(consentPost))
    yield* router.add("POST", p.token, serve(tokenEndpoint))
    yield* router.add("GET", p.userinfo, serve(userinfoEndpoint))
    yield* router.add("POST", p.userinfo, serve(userinfoEndpoint))
    yield* router.add("POST", p.revoke, serve(revokeEndpoint))
    yield* router.add("POST", p.introspect, serve(introspectEndpoint))
    yield* router.add("POST", p.register, serve(registerEndpoint))
    // The device flow (RFC 8628): its OAuth endpoint, the verification page, the /v1 endpoints.
    yield* router.add("POST", p.deviceAuthorization, serve(deviceAuthorizationEndpoint))
    yield* router.add("GET", p.devicePage, serve(devicePageGet))
    yield* router.add("POST", p.devicePage, serve(devicePagePost))
    yield* router.add("POST", p.deviceCodeV1, serve(v1DeviceCode))
    yield* router.add("POST", p.deviceTokenV1, serve(v1DeviceToken))
    // HEAD is answered by the GET route (the router's fallback).
    for (const path of [p.jwks, p.oauthMetadata, p.openidMetadata]) {
      yield* router.add("GET", path, serve(path === p.jwks ? jwksEndpoint : discoveryEndpoint))
    }
  }))

export const oAuthProviderRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", OAUTH_PATHS.authorize],
  ["POST", OAUTH_PATHS.consent],
  ["POST", OAUTH_PATHS.token],
  ["GET", OAUTH_PATHS.userinfo],
  ["POST", OAUTH_PATHS.userinfo],
  ["POST", OAUTH_PATHS.revoke],
  ["POST", OAUTH_PATHS.introspect],
  ["POST", OAUTH_PATHS.register],
  ["POST", OAUTH_PATHS.deviceAuthorization],
  ["GET", OAUTH_PATHS.devicePage],
  ["POST", OAUTH_PATHS.devicePage],
  ["POST", OAUTH_PATHS.deviceCodeV1],
  ["POST", OAUTH_PATHS.deviceTokenV1],
  ["GET", OAUTH_PATHS.jwks],
  ["GET", OAUTH_PATHS.oauthMetadata],
  ["GET", OAUTH_PATHS.openidMetadata]
]
