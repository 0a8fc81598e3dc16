/** The OAuthProvider feature's /v1 handlers: the account's authorized applications. */
import { HttpApiBuilder } from "effect/http-api"
import { HttpServerResponse } from "effect/http"
import {
  authorizedApplication,
  DEFAULT_AUTHORIZED_APPLICATIONS_LIMIT,
  OAuthGrants,
  paginateByCursor
} from "@switchboard/core/oauth"
import { Effect } from "effect"
import { actingAccount } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { OAuthProviderGroup } from "./OAuthProviderApi.js"
import { domain } from "./Pipeline.js"
import { validationFailed } from "./ProblemFailure.js"

export const OAuthProviderGroupLive = HttpApiBuilder.group(v1Group(OAuthProviderGroup), "oAuthProvider", (handlers) =>
  Effect.gen(function*() {
    const grants = yield* OAuthGrants
    return handlers
      .handle("listAuthorizedApplications", ({ query: urlParams }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          if (urlParams.after !== undefined && urlParams.before !== undefined) {
            return yield* validationFailed([{
              code: "invalid_value",
              location: "query",
              message: "Send after or before, not both.",
              path: "/before"
            }])
          }
          const apps = yield* grants.listForAccount(accountId)
          const { after, before, page } = paginateByCursor(apps.map((a) => ({ ...a, id: a.grantId })), {
            after: urlParams.after,
            before: urlParams.before,
            limit: urlParams.limit ?? DEFAULT_AUTHORIZED_APPLICATIONS_LIMIT,
            order: urlParams.order ?? "desc"
          })
          return {
            authorizedApplications: page.map(authorizedApplication),
            listMetadata: { after, before }
          }
        }))
      .handle("revokeAuthorizedApplication", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          yield* domain(grants.withdraw(accountId, path.applicationId))
          return HttpServerResponse.empty({ status: 204 })
        }))
  }))
