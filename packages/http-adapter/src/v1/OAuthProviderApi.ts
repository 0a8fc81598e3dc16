/**
 * The OAuthProvider feature's /v1 routes (docs/api-notes/accounts-and-projects.md): the account's
 * authorized OAuth applications and their withdrawal (the same effect as the Dashboard's
 * `DELETE /api/oauth-consents/{clientId}`: the consent and every live code and token of the grant).
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  ListAuthorizedApplicationsParams,
  ListAuthorizedApplicationsResponse,
  OAuthClientId
} from "@switchboard/core/oauth"
import { Schema } from "effect"
import { commonProblems as common } from "./CommonProblems.js"
import { accountAccess } from "./Access.js"
import { problems, Requires } from "./Declare.js"
import { authenticated } from "./V1Group.js"

export const OAuthProviderGroup = HttpApiGroup.make("oAuthProvider")
  .add(
    HttpApiEndpoint.get("listAuthorizedApplications", "/v1/account/oauth/authorized-applications", {
      query: ListAuthorizedApplicationsParams,
      success: ListAuthorizedApplicationsResponse,
      error: problems(common)
    }).annotate(Requires, accountAccess()).annotateMerge(OpenApi.annotations({ summary: "List authorized apps", description: "The OAuth apps the account authorized (one entry per live grant)." })).annotate(OpenApi.Summary, "The OAuth apps the account authorized (one entry per live grant)")
  )
  .add(
    HttpApiEndpoint.delete("revokeAuthorizedApplication", "/v1/account/oauth/authorized-applications/:applicationId", {
      params: Schema.Struct({ applicationId: OAuthClientId }),
      success: HttpApiSchema.NoContent,
      error: problems(common, "RESOURCE_NOT_FOUND")
    }).annotate(Requires, accountAccess()).annotateMerge(OpenApi.annotations({ summary: "Withdraw an app", description: "Withdraws the account's consent to an app and revokes every live token of it." })).annotate(OpenApi.Summary, "Withdraws the account's consent to an app and revokes every live token of it")
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Authorized applications",
    description: "OAuth apps the account has authorized, and withdrawing them."
  }))
