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

/**
 * A refusal of the OAuth protocol (RFC 6749 §5.2, RFC 6750 §3.1, RFC 7009, RFC 8707): `error` is
 * the registered error code (`invalid_grant`, `invalid_client`, `invalid_scope`, `invalid_target`,
 * `invalid_token`, `insufficient_scope`, …), `description` says what was wrong. The adapter picks
 * the status from the code.
 */
export class OAuthProtocolError extends Schema.TaggedError<OAuthProtocolError>()("OAuthProtocolError", {
  error: Schema.String,
  description: Schema.String
}) {}

export const oauthError = (error: string, description: string) => new OAuthProtocolError({ error, description })
