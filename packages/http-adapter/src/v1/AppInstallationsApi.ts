/**
 * The app installation feature's /v1 routes (docs/app-installation.md):
 * `createAppInstallationRequest` and `redeemAppInstallationDelivery`. Public: no bearer credential
 * (the Authorization header is ignored); the app authenticates with the client assertion in the
 * body, and a refused assertion is 401 `APP_INSTALLATION_ASSERTION_INVALID`.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  CreateAppInstallationRequestRequest,
  CreateAppInstallationRequestResponse,
  RedeemAppInstallationDeliveryRequest,
  RedeemAppInstallationDeliveryResponse
} from "@switchboard/core/oauth"
import type { ProblemCode } from "../http/ProblemCatalog.js"
import { problems } from "./Declare.js"
import { JsonBody } from "./JsonBody.js"

const shared: ReadonlyArray<ProblemCode> = [
  "VALIDATION_FAILED", "RATE_LIMITED", "INTERNAL_ERROR", "APP_INSTALLATION_ASSERTION_INVALID", "APP_INSTALLATION_ASSERTION_REPLAYED"
]

export const AppInstallationsGroup = HttpApiGroup.make("appInstallations")
  .add(
    HttpApiEndpoint.post("createAppInstallationRequest", "/v1/installation-requests", {
      payload: CreateAppInstallationRequestRequest,
      success: CreateAppInstallationRequestResponse.pipe(HttpApiSchema.status(201)),
      error: problems(shared)
    }).annotateMerge(OpenApi.annotations({
      summary: "Request an app installation",
      description: "For a registered OAuth app's backend, without a bearer credential: `clientAssertion` is a JWT (RFC 7523) signed by a key of the app's registered key set, with iss = sub = appId, aud = this endpoint's URL (or the API's base URL), a jti used once and an exp at most 5 minutes ahead. Records a request for a customer to approve in the Dashboard (1 hour); redirectUri must be one of the app's redirect URIs, where the customer's browser is sent with `code` and `state` after approval (`error=access_denied` after a refusal). 401 APP_INSTALLATION_ASSERTION_INVALID for a refused assertion, 409 APP_INSTALLATION_ASSERTION_REPLAYED for a jti used before."
    }))
  )
  .add(
    HttpApiEndpoint.post("redeemAppInstallationDelivery", "/v1/installation-requests/redeem", {
      payload: RedeemAppInstallationDeliveryRequest,
      success: RedeemAppInstallationDeliveryResponse,
      error: problems(shared, "APP_INSTALLATION_DELIVERY_UNAVAILABLE", "APP_INSTALLATION_CONFIG_CHANGED")
    }).annotateMerge(OpenApi.annotations({
      summary: "Redeem an installation code",
      description: "For the app's backend, with a new client assertion (aud = this endpoint's URL or the API's base URL): exchanges the code of an approved request (10 minutes) for the credential — `clientSecret` is a project API key of the approved project with the approved permissions, in this answer only (status created). Redeeming the same code again answers the installation's status (delivery_consumed, or revoked once the key is revoked) without the credential. 409 APP_INSTALLATION_DELIVERY_UNAVAILABLE for an unknown, expired, denied or unapproved code, 409 APP_INSTALLATION_CONFIG_CHANGED when the app's settings changed after the request."
    }))
  )
  // No bearer credential: only the body is read and checked before the platform decodes it.
  .middleware(JsonBody)
  .annotateMerge(OpenApi.annotations({
    title: "App installation",
    description: "Public: a registered OAuth app asks to be installed, a customer approves it in the Dashboard, the app redeems a single-use code for a credential shown once."
  }))
