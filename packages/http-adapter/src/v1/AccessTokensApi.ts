/**
 * The AccessTokens feature's /v1 routes: the public `/v1/auth` group
 * (docs/api-notes/credentials.md). No Authn middleware: these routes need no credential and ignore
 * the Authorization header, whatever it holds.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ListOauthScopesResponse } from "@switchboard/core/oauth"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import { problems } from "./Declare.js"

/** A public operation can still be rate limited or fail inside. */
const publicProblems: ReadonlyArray<ProblemCode> = ["VALIDATION_FAILED", "RATE_LIMITED", "INTERNAL_ERROR", "UPSTREAM_UNAVAILABLE", "UPSTREAM_TIMEOUT", "REQUEST_TIMEOUT"]

export const AccessTokensGroup = HttpApiGroup.make("accessTokens")
  .add(
    // The public contract's path (`listOauthScopes`).
    HttpApiEndpoint.get("listOauthScopes", "/v1/auth/oauth/scopes", {
      success: ListOauthScopesResponse,
      error: problems(publicProblems)
    }).annotateMerge(OpenApi.annotations({ summary: "List OAuth scopes", description: "The business scopes an OAuth app can request, with what each allows. Public." })).annotate(OpenApi.Summary, "The business scopes OAuth apps can request (public)")
  )
  .annotateMerge(OpenApi.annotations({
    title: "Auth",
    description: "Public endpoints: no credential needed, the Authorization header is ignored."
  }))
