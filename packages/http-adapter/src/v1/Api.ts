/**
 * The versioned API's declaration (API.md §1.2): routes, path parameters, payloads and success
 * schemas, from which routing and `/openapi.json` both come. Every error leaves as an RFC 9457
 * problem; the problem codes each operation can answer are listed here for the OpenAPI document.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  Account,
  CreateAccountServiceKeyRequest,
  CreateAccountServiceKeyResponse,
  ListAccountServiceKeysResponse,
  RevokeAccountServiceKeyResponse
} from "@switchboard/core/accounts"
import { type ProblemCode, ServiceKeyId } from "@switchboard/core/shared"
import { Schema } from "effect"
import { Authn } from "./Authn.js"
import { OrganizationsGroup, organizationsIdempotent, organizationsProblems } from "./OrganizationsApi.js"
import { ProjectsGroup, projectsIdempotent, projectsProblems } from "./ProjectsApi.js"
import { ProjectApiKeysGroup, projectApiKeysIdempotent, projectApiKeysProblems } from "./ProjectApiKeysApi.js"
import { AccountSecurityGroup, accountSecurityIdempotent, accountSecurityProblems } from "./AccountSecurityApi.js"
import { UploadsGroup, uploadsIdempotent, uploadsProblems } from "./UploadsApi.js"
import { AccessTokensGroup, accessTokensIdempotent, accessTokensProblems } from "./AccessTokensApi.js"
import { VoiceGroup, voiceIdempotent, voiceProblems } from "./VoiceApi.js"
import { BillingGroup, billingIdempotent, billingProblems } from "./BillingApi.js"
import { OAuthProviderGroup, oAuthProviderIdempotent, oAuthProviderProblems } from "./OAuthProviderApi.js"
import { WebhooksGroup, webhooksIdempotent, webhooksProblems } from "./WebhooksApi.js"
import { commonProblems as common, idempotencyProblems as idempotent } from "./CommonProblems.js"

export { Authn, CurrentPrincipal } from "./Authn.js"

export const AccountGroup = HttpApiGroup.make("account")
  .add(HttpApiEndpoint.get("getAccount", "/v1/account").addSuccess(Account))
  // Deprecated alias of getAccount: its lifecycle is declared in v1/Lifecycle.ts.
  .add(HttpApiEndpoint.get("getMe", "/v1/me").addSuccess(Account))
  .add(HttpApiEndpoint.get("listAccountServiceKeys", "/v1/account/service-keys").addSuccess(ListAccountServiceKeysResponse))
  .add(
    HttpApiEndpoint.post("createAccountServiceKey", "/v1/account/service-keys")
      .setPayload(CreateAccountServiceKeyRequest)
      .addSuccess(CreateAccountServiceKeyResponse, { status: 201 })
  )
  .add(
    HttpApiEndpoint.del("revokeAccountServiceKey", "/v1/account/service-keys/:serviceKeyId")
      .setPath(Schema.Struct({ serviceKeyId: ServiceKeyId }))
      .addSuccess(RevokeAccountServiceKeyResponse)
  )
  .middleware(Authn)
  .annotateContext(OpenApi.annotations({ title: "Account", description: "The caller's account and its service keys." }))

export class V1Api extends HttpApi.make("switchboard-v1")
  .add(AccountGroup)
  .add(OrganizationsGroup)
  .add(ProjectsGroup)
  .add(ProjectApiKeysGroup)
  .add(AccountSecurityGroup)
  .add(UploadsGroup)
  .add(AccessTokensGroup)
  .add(VoiceGroup)
  .add(BillingGroup)
  .add(WebhooksGroup)
  .add(OAuthProviderGroup)
  .annotateContext(OpenApi.annotations({
    title: "Switchboard versioned API",
    version: "1.0.0",
    description: "Every endpoint is under /v1. Errors are RFC 9457 problem documents (application/problem+json)."
  })) {}

/** operationId → the problem codes it can answer (for the OpenAPI document). */
export const operationProblems: Record<string, ReadonlyArray<ProblemCode>> = {
  "account.getAccount": common,
  "account.getMe": common,
  "account.listAccountServiceKeys": common,
  "account.createAccountServiceKey": [...common, ...idempotent, "ACCOUNT_SERVICE_KEY_LIMIT_REACHED", "PAYLOAD_TOO_LARGE"],
  "account.revokeAccountServiceKey": [...common, ...idempotent, "ACCOUNT_SERVICE_KEY_NOT_FOUND"],
  ...organizationsProblems,
  ...projectsProblems,
  ...projectApiKeysProblems,
  ...accountSecurityProblems,
  ...uploadsProblems,
  ...accessTokensProblems,
  ...voiceProblems,
  ...billingProblems,
  ...webhooksProblems,
  ...oAuthProviderProblems
}

/** Operations that require an Idempotency-Key (*Idem* in API.md). */
export const idempotentOperations: ReadonlySet<string> = new Set([
  "account.createAccountServiceKey",
  "account.revokeAccountServiceKey",
  ...organizationsIdempotent,
  ...projectsIdempotent,
  ...projectApiKeysIdempotent,
  ...accountSecurityIdempotent,
  ...uploadsIdempotent,
  ...accessTokensIdempotent,
  ...voiceIdempotent,
  ...billingIdempotent,
  ...webhooksIdempotent,
  ...oAuthProviderIdempotent
])
