/**
 * The account group of the versioned API (the caller's account and its service keys): its
 * endpoints, the problems each can answer and the ones that need an Idempotency-Key. The whole API
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
import { type ProblemCode } from "../http/ProblemCatalog.js"
import { Schema } from "effect"
import { Authn } from "./Authn.js"
import { commonProblems as common, idempotencyProblems as idempotent } from "./CommonProblems.js"

export const AccountGroup = HttpApiGroup.make("account")
  .add(HttpApiEndpoint.get("getAccount", "/v1/account", {
    success: Account
  }).annotateMerge(OpenApi.annotations({ summary: "The signed-in account", description: "The account the credential belongs to: id, email, name, picture, phone and security settings." })))
  // Deprecated alias of getAccount: its lifecycle is declared in v1/Lifecycle.ts.
  .add(HttpApiEndpoint.get("getMe", "/v1/me", {
    success: Account
  }).annotateMerge(OpenApi.annotations({ summary: "The caller (deprecated)", description: "The account of the credential. Kept for older clients." })))
  .add(HttpApiEndpoint.get("listAccountServiceKeys", "/v1/account/service-keys", {
    success: ListAccountServiceKeysResponse
  }).annotateMerge(OpenApi.annotations({ summary: "List service keys", description: "The account's service keys, without their secrets." })))
  .add(
    HttpApiEndpoint.post("createAccountServiceKey", "/v1/account/service-keys", {
      payload: CreateAccountServiceKeyRequest,
      success: CreateAccountServiceKeyResponse.pipe(HttpApiSchema.status(201))
    }).annotateMerge(OpenApi.annotations({ summary: "Create a service key", description: "Creates a service key for the versioned API; its secret is in this answer only. The number of live keys is limited." }))
  )
  .add(
    HttpApiEndpoint.delete("revokeAccountServiceKey", "/v1/account/service-keys/:serviceKeyId", {
      params: Schema.Struct({ serviceKeyId: ServiceKeyId }),
      success: RevokeAccountServiceKeyResponse
    }).annotateMerge(OpenApi.annotations({ summary: "Revoke a service key", description: "Revokes the key at once; requests made with it are refused from now on." }))
  )
  .middleware(Authn)
  .annotateMerge(OpenApi.annotations({ title: "Account", description: "The caller's account and its service keys." }))

/** The account group's operations → the problem codes they can answer (for the OpenAPI document). */
export const accountProblems: Record<string, ReadonlyArray<ProblemCode>> = {
  "account.getAccount": common,
  "account.getMe": common,
  "account.listAccountServiceKeys": common,
  "account.createAccountServiceKey": [...common, ...idempotent, "ACCOUNT_SERVICE_KEY_LIMIT_REACHED", "PAYLOAD_TOO_LARGE"],
  "account.revokeAccountServiceKey": [...common, ...idempotent, "ACCOUNT_SERVICE_KEY_NOT_FOUND"]
}

/** The account group's operations that require an Idempotency-Key. */
export const accountIdempotent = ["account.createAccountServiceKey", "account.revokeAccountServiceKey"]
