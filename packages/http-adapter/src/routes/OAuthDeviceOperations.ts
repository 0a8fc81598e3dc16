/**
 * The contract's device-flow operations as the versioned API's OpenAPI document lists them.
 * `deviceAuthorize` and `deviceToken` are raw routes (OAuthDevice.ts: JSON or form bodies, RFC 6749
 * error JSON rather than problems), so the HttpApi declaration does not produce them; this table
 * does, and `openApiDocument` adds a path item per row. The schemas describe what the handlers read
 * and answer; the documentation test decodes every example with them, and OAuthDeviceDocs.test.ts
 * checks them against real answers.
 */
import { DEVICE_CODE_GRANT_TYPE } from "@switchboard/core/oauth"
import { Schema } from "effect"
import { DEVICE_V1_PATHS } from "./OAuthDevice.js"

const Text = (max: number, description: string) => Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(max)), Schema.annotate({ description }))
const Seconds = (description: string) => Schema.Int.pipe(Schema.check(Schema.isGreaterThan(0)), Schema.annotate({ description }))

const clientFields = {
  client_id: Schema.optional(Text(255, "The app's client id; defaults to the server's command-line client (DEVICE_CLIENT_ID).")),
  client_secret: Schema.optional(Text(255, "The app's secret, for a confidential app only."))
}

export const DeviceAuthorizeRequest = Schema.Struct({
  ...clientFields,
  scope: Schema.optional(Text(1000, "Space-separated scopes to ask for; defaults to the app's."))
}).annotate({ identifier: "DeviceAuthorizeRequest", description: "Optional: an empty body starts a request for the server's command-line client." })

export const DeviceAuthorizeResponse = Schema.Struct({
  device_code: Text(255, "The secret the device polls deviceToken with."),
  user_code: Text(32, "The code the user types on the verification page."),
  verification_uri: Text(2048, "The page where the user enters the code."),
  verification_uri_complete: Text(2048, "The same page with the code filled in."),
  expires_in: Seconds("Seconds until the device code expires."),
  interval: Seconds("Seconds to wait between polls.")
}).annotate({ identifier: "DeviceAuthorizeResponse" })

export const DeviceTokenRequest = Schema.Union([Schema.Struct({
  grant_type: Schema.Literal(DEVICE_CODE_GRANT_TYPE),
  device_code: Text(255, "From deviceAuthorize."),
  ...clientFields
}), Schema.Struct({
  grant_type: Schema.Literal("refresh_token"),
  refresh_token: Text(255, "The latest refresh token (each grant rotates it)."),
  scope: Schema.optional(Text(1000, "A subset of the granted scopes.")),
  ...clientFields
})]).annotate({ identifier: "DeviceTokenRequest" })

export const DeviceTokenResponse = Schema.Struct({
  access_token: Text(8192, "A bearer token for the API, within the consented scopes."),
  token_type: Schema.Literal("Bearer"),
  expires_in: Seconds("Seconds until the access token expires."),
  scope: Schema.String.pipe(Schema.check(Schema.isMaxLength(1000)), Schema.annotate({ description: "The granted scopes, space-separated." })),
  refresh_token: Schema.optional(Text(255, "A new refresh token; the one used is no longer valid.")),
  id_token: Schema.optional(Text(8192, "An OpenID Connect ID token when `openid` was granted.")),
  user: Schema.Struct({
    id: Text(64, "The account id."),
    email: Text(320, "The account's email."),
    first_name: Schema.NullOr(Schema.String.pipe(Schema.check(Schema.isMaxLength(255)))),
    last_name: Schema.NullOr(Schema.String.pipe(Schema.check(Schema.isMaxLength(255))))
  }),
  authentication_method: Schema.optional(Schema.Literal("device_code"))
}).annotate({ identifier: "DeviceTokenResponse" })

/** RFC 6749 § 5.2 error JSON (the contract's `DeviceTokenBadRequestResponse`). */
export const OAuthErrorResponse = Schema.Struct({
  error: Text(64, "`invalid_request`, `invalid_client`, `invalid_grant`, `unsupported_grant_type`, `invalid_scope`, `authorization_pending`, `slow_down`, `expired_token`, `access_denied`, `server_error`, `temporarily_unavailable`."),
  error_description: Schema.optional(Text(1000, "Human-readable; not for matching."))
}).annotate({ identifier: "DeviceTokenBadRequestResponse", description: "RFC 6749 error JSON (not a problem document)." })

/** One documented error status: its description and an example answer. */
export interface RawErrorResponse {
  readonly description: string
  readonly example: Schema.Codec.Encoded<typeof OAuthErrorResponse>
}

export interface RawV1Operation {
  readonly operationId: string
  readonly method: "post"
  readonly path: string
  readonly tag: string
  readonly summary: string
  readonly description: string
  readonly payload: Schema.Codec<any, any, never>
  readonly payloadRequired: boolean
  readonly requestExample: Record<string, string>
  readonly success: Schema.Codec<any, any, never>
  readonly successExample: Record<string, unknown>
  readonly errors: Readonly<Record<number, RawErrorResponse>>
}

const unavailable: RawErrorResponse = {
  description: "`temporarily_unavailable`: the store did not answer; retry later.",
  example: { error: "temporarily_unavailable", error_description: "The store did not answer; retry." }
}
const serverError: RawErrorResponse = {
  description: "`server_error`.",
  example: { error: "server_error", error_description: "The request could not be completed." }
}

/** The example answers are the server's own words (OAuthDeviceDocs.test.ts compares them). */
export const deviceOperations: ReadonlyArray<RawV1Operation> = [
  {
    operationId: "auth.deviceAuthorize",
    method: "post",
    path: DEVICE_V1_PATHS.code,
    tag: "Auth",
    summary: "Start device authorization",
    description: "Starts a device login for a command-line tool (RFC 8628): show the user `verification_uri_complete` (or `verification_uri` and `user_code`), then poll deviceToken every `interval` seconds. " +
      "No credential (an Authorization header is ignored). The body, JSON or form-encoded, is optional: without `client_id` the server's command-line client is used. Errors are RFC 6749 JSON, not problem documents.",
    payload: DeviceAuthorizeRequest,
    payloadRequired: false,
    requestExample: { client_id: "sb_app_01j9z3c4v5w6x7y8z9a0b1c2d3", scope: "openid email offline_access projects:read" },
    success: DeviceAuthorizeResponse,
    successExample: {
      device_code: "sb_odc_5tq3c9v0n2m8k4j6h1g7f3d2s0a9",
      user_code: "BCDF-GHJK",
      verification_uri: "https://switchboard.example/device",
      verification_uri_complete: "https://switchboard.example/device?user_code=BCDF-GHJK",
      expires_in: 600,
      interval: 5
    },
    errors: {
      400: {
        description: "`invalid_request` (a body that is not an object of strings), `invalid_client` (unknown app, wrong secret, or no client on a server without DEVICE_CLIENT_ID), `invalid_scope`.",
        example: { error: "invalid_client", error_description: "Client authentication failed." }
      },
      500: serverError,
      503: unavailable
    }
  },
  {
    operationId: "auth.deviceToken",
    method: "post",
    path: DEVICE_V1_PATHS.token,
    tag: "Auth",
    summary: "Exchange a device code or refresh token",
    description: "Polls for the tokens of a device login, or rotates a refresh token: `grant_type` `urn:ietf:params:oauth:grant-type:device_code` with `device_code`, or `refresh_token` with `refresh_token`. " +
      "Answers an access token for the API, a new refresh token (the one used stops working) and the `user`. Until the user answers: 400 `authorization_pending`; polling faster than `interval`: 400 `slow_down` (add 5 seconds). " +
      "No credential; JSON or form-encoded; errors are RFC 6749 JSON, not problem documents.",
    payload: DeviceTokenRequest,
    payloadRequired: true,
    requestExample: { grant_type: DEVICE_CODE_GRANT_TYPE, device_code: "sb_odc_5tq3c9v0n2m8k4j6h1g7f3d2s0a9", client_id: "sb_app_01j9z3c4v5w6x7y8z9a0b1c2d3" },
    success: DeviceTokenResponse,
    successExample: {
      access_token: "eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJzdWIiOiJhY2NfMDEifQ.c2lnbmF0dXJl",
      token_type: "Bearer",
      expires_in: 300,
      scope: "openid email offline_access projects:read",
      refresh_token: "sb_ort_8m2n4b6v8c0x2z4l6k8j0h2g4f6d",
      id_token: "eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJzdWIiOiJhY2NfMDEiLCJhdWQiOiJzYl9hcHAifQ.c2lnbmF0dXJl",
      user: { id: "sb_acc_01j9z3c4v5w6x7y8z9a0b1c2d3", email: "ada@example.com", first_name: "Ada", last_name: null },
      authentication_method: "device_code"
    },
    errors: {
      400: {
        description: "`authorization_pending`, `slow_down`, `expired_token`, `access_denied`, `invalid_grant` (unknown, used or revoked code or token), `invalid_request`, `invalid_client`, `unsupported_grant_type`, `invalid_scope`.",
        example: { error: "authorization_pending", error_description: "The user has not answered yet." }
      },
      500: serverError,
      503: unavailable
    }
  }
]
