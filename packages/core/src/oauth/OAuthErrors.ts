/** The OAuth provider's domain errors (no HTTP knowledge; the adapters map them). */
import { Schema } from "effect"

/** An app setting is not acceptable. */
export class InvalidOAuthApp extends Schema.TaggedError<InvalidOAuthApp>()("InvalidOAuthApp", {
  field: Schema.String,
  message: Schema.String
}) {}

/** No such app of this owner (or it was removed). */
export class OAuthAppNotFound extends Schema.TaggedError<OAuthAppNotFound>()("OAuthAppNotFound", {
  clientId: Schema.String
}) {}

/** Public clients have no secret to rotate. */
export class OAuthAppIsPublic extends Schema.TaggedError<OAuthAppIsPublic>()("OAuthAppIsPublic", {
  clientId: Schema.String
}) {}

/** The account has no live grant for this app. */
export class OAuthGrantNotFound extends Schema.TaggedError<OAuthGrantNotFound>()("OAuthGrantNotFound", {
  clientId: Schema.String
}) {}

/** The errors of OAuth applications and grants (the adapters' tables are typed against it). */
export type OAuthAppError = InvalidOAuthApp | OAuthAppNotFound | OAuthAppIsPublic | OAuthGrantNotFound

/**
 * The registered error codes core refuses with (RFC 6749 §5.2, OpenID Connect Core §3.1.2.6,
 * RFC 6750 §3.1, RFC 8707 §2, RFC 8628 §3.5). The adapter's table has one row per code (its status), so a new
 * code must be placed consciously.
 */
export const OAuthErrorCode = Schema.Literals(["invalid_request", "invalid_client", "invalid_grant", "invalid_scope", "invalid_target", "consent_required", "invalid_token", "insufficient_scope", "server_error", "temporarily_unavailable", // RFC 8628 §3.5: the device flow's polling answers.
  "authorization_pending", "slow_down", "expired_token", "access_denied"])
export type OAuthErrorCode = typeof OAuthErrorCode.Type

/**
 * A refusal of the OAuth protocol (RFC 6749 §5.2, RFC 6750 §3.1, RFC 7009, RFC 8707): `error` is
 * the registered error code, `description` says what was wrong and, for `insufficient_scope`,
 * `scope` is the scope that is missing (for the RFC 6750 challenge). The adapter picks the status
 * from the code.
 */
export class OAuthProtocolError extends Schema.TaggedError<OAuthProtocolError>()("OAuthProtocolError", {
  error: OAuthErrorCode,
  description: Schema.String,
  scope: Schema.optional(Schema.String)
}) {}

export const oauthError = (error: OAuthErrorCode, description: string) => new OAuthProtocolError({ error, description })

/** An `insufficient_scope` refusal naming the missing scope. */
export const oauthInsufficientScope = (scope: string, description: string) =>
  new OAuthProtocolError({ error: "insufficient_scope", description, scope })
