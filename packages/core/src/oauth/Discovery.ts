/**
 * The authorization server's metadata (RFC 8414, OIDC Discovery; docs/api-notes/oauth.md):
 * one document served at both path-insertion URLs. EdDSA is named explicitly (clients fall
 * back to RS256 otherwise), PKCE S256 only, exactly the three grants (code, refresh, device — RFC 8628), `iss` in every authorization
 * response, and the advertised-but-disabled registration endpoint.
 */
import { SIGNING_ALG } from "./SigningKeyMaterial.js"
import { CODE_CHALLENGE_METHOD } from "./Pkce.js"
import { oauthScopes } from "./Scopes.js"

/** RFC 8628 §3.4's grant type. */
export const DEVICE_CODE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"

/** The endpoints under the issuer `{DASHBOARD_URL}/api/auth`. */
export const oauthEndpoints = (issuer: string) => ({
  authorization: `${issuer}/oauth2/authorize`,
  token: `${issuer}/oauth2/token`,
  userinfo: `${issuer}/oauth2/userinfo`,
  revocation: `${issuer}/oauth2/revoke`,
  introspection: `${issuer}/oauth2/introspect`,
  registration: `${issuer}/oauth2/register`,
  deviceAuthorization: `${issuer}/oauth2/device_authorization`,
  jwks: `${issuer}/jwks`
})

const clientAuthMethods = ["client_secret_basic", "client_secret_post", "none"]

export const discoveryDocument = (issuer: string) => {
  const e = oauthEndpoints(issuer)
  return {
    issuer,
    authorization_endpoint: e.authorization,
    token_endpoint: e.token,
    userinfo_endpoint: e.userinfo,
    jwks_uri: e.jwks,
    revocation_endpoint: e.revocation,
    introspection_endpoint: e.introspection,
    registration_endpoint: e.registration,
    device_authorization_endpoint: e.deviceAuthorization,
    scopes_supported: [...oauthScopes],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token", DEVICE_CODE_GRANT_TYPE],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    token_endpoint_auth_methods_supported: clientAuthMethods,
    revocation_endpoint_auth_methods_supported: clientAuthMethods,
    introspection_endpoint_auth_methods_supported: clientAuthMethods,
    code_challenge_methods_supported: [CODE_CHALLENGE_METHOD],
    authorization_response_iss_parameter_supported: true,
    prompt_values_supported: ["none", "login", "consent"],
    claims_supported: ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "email", "email_verified", "name", "picture"],
    request_parameter_supported: false,
    request_uri_parameter_supported: false
  }
}
