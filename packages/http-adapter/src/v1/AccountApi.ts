/**
 * The account group of the versioned API (the caller's account and its service keys): its
 * endpoints, each with the problems it can answer and whether it needs an Idempotency-Key. The whole API
 * (`V1Api`, with every feature's group) is declared in the registry, `Features.ts`.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  Account,
  CreateAccountServiceKeyRequest,
  CreateAccountServiceKeyResponse,
  ListAccountServiceKeysResponse,
  RevokeAccountServiceKeyResponse
} from "@switchboard/core/accounts"
import { ServiceKeyId } from "@switchboard/core/shared"
import { Schema } from "effect"
import { commonProblems as common, idempotencyProblems as idempotency } from "./CommonProblems.js"
import { accountAccess } from "./Access.js"
import { Requirement } from "@switchboard/core/credentials"
import { Idempotent, Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

export const AccountGroup = HttpApiGroup.make("account")
  .add(HttpApiEndpoint.get("getAccount", "/v1/account", {
    success: Account,
    error: problems(common)
  }).annotate(Requires, accountAccess(Requirement.Account({ access: "profile" }))).annotateMerge(OpenApi.annotations({ summary: "The signed-in account", description: "The account the credential belongs to: id, email, name, picture, phone and security settings." })))
  // Deprecated alias of getAccount: its lifecycle is declared in v1/Lifecycle.ts.
  .add(HttpApiEndpoint.get("getMe", "/v1/me", {
    success: Account,
    error: problems(common)
  }).annotate(Requires, accountAccess(Requirement.Account({ access: "profile" }))).annotateMerge(OpenApi.annotations({ summary: "The caller (deprecated)", description: "The account of the credential. Kept for older clients." })))
  .add(HttpApiEndpoint.get("listAccountServiceKeys", "/v1/account/service-keys", {
    success: ListAccountServiceKeysResponse,
    error: problems(common)
  }).annotate(Requires, accountAccess()).annotateMerge(OpenApi.annotations({ summary: "List service keys", description: "The account's service keys, without their secrets." })))
  .add(
    HttpApiEndpoint.post("createAccountServiceKey", "/v1/account/service-keys", {
      payload: CreateAccountServiceKeyRequest,
      success: CreateAccountServiceKeyResponse.pipe(HttpApiSchema.status(201)),
      error: problems(common, idempotency, "ACCOUNT_SERVICE_KEY_LIMIT_REACHED", "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, accountAccess()).annotate(Idempotent, true)
      .annotateMerge(OpenApi.annotations({ summary: "Create a service key", description: "Creates a service key for the versioned API; its secret is in this answer only. The number of live keys is limited." }))
  )
  .add(
    HttpApiEndpoint.delete("revokeAccountServiceKey", "/v1/account/service-keys/:serviceKeyId", {
      params: Schema.Struct({ serviceKeyId: ServiceKeyId }),
      success: RevokeAccountServiceKeyResponse,
      error: problems(common, idempotency, "ACCOUNT_SERVICE_KEY_NOT_FOUND")
    }).annotate(Requires, accountAccess()).annotate(Idempotent, true)
      .annotateMerge(OpenApi.annotations({ summary: "Revoke a service key", description: "Revokes the key at once; requests made with it are refused from now on." }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({ title: "Account", description: "The caller's account and its service keys." }))
