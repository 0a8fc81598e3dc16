/** The AccessTokens feature's /v1 handlers: the public `/v1/auth` routes. */
import { HttpApiBuilder } from "effect/http-api"
import { decide, Requirement } from "@switchboard/core/credentials"
import { businessScopes, ListOauthScopesResponse } from "@switchboard/core/oauth"
import { Effect, Result } from "effect"
import { refusal } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { AccessTokensGroup } from "./AccessTokensApi.js"
import { rendered, toResponse } from "./Pipeline.js"

/**
 * Access to a public route: core decides without a principal, since no credential is read here
 * (`authorize` in v1/Access.ts needs the principal the Authn middleware provides).
 */
const publicRoute = Effect.suspend(() => {
  const decision = decide(undefined, Requirement.Public())
  return Result.isSuccess(decision) ? Effect.void : Effect.fail(refusal(decision.failure))
})

const listScopes = Effect.gen(function*() {
  yield* publicRoute
  return toResponse(yield* rendered(ListOauthScopesResponse, { scopes: [...businessScopes] }, 200, {
    "cache-control": "public, max-age=300"
  }))
})

export const AccessTokensGroupLive = HttpApiBuilder.group(v1Group(AccessTokensGroup), "accessTokens", (handlers) =>
  handlers
    .handle("listOauthScopes", () => listScopes))
