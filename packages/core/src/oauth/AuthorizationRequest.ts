/**
 * The authorization request's rules, in the order they are checked (docs/api-notes/oauth.md), as
 * pure functions:
 *
 * 1. `client_id` missing, repeated or unknown, and 2. `redirect_uri` missing, repeated or not
 *    exactly registered: the user sees an error page, never a redirect (RFC 6749 §4.1.2.1).
 * 3. From here every error is redirected to the validated `redirect_uri` (with `state` and `iss`):
 *    repeated parameters and `request`/`request_uri` (OIDC Core §3.1.2.6); 4. `response_type`;
 *    5. `scope` (required; unknown or beyond the app's maximum set is `invalid_scope`); 6. PKCE
 *    (S256 only, for every client; `plain` and a missing method are refused); 7. `prompt`
 *    (`none`, `login`, `consent`; `none` alone), `response_mode` (`query`), `resource` (only the
 *    API's URL: RFC 8707 `invalid_target` otherwise), bounds on `state` and `nonce`.
 */
import { CODE_CHALLENGE_METHOD, isCodeChallenge } from "./Pkce.js"
import { catalogOrder, type OAuthApp } from "./OAuthSchema.js"
import { isOauthScope } from "./Scopes.js"

export type Prompt = "none" | "login" | "consent"

/** A valid authorization request, ready for sign-in and consent. */
export interface AuthorizationRequest {
  readonly clientId: string
  readonly redirectUri: string
  /** Requested scopes, catalog order, no duplicates. */
  readonly scopes: ReadonlyArray<string>
  readonly state: string | null
  readonly codeChallenge: string
  readonly nonce: string | null
  readonly prompt: ReadonlySet<Prompt>
  /** The API's URL when a JWT access token for it was asked for (RFC 8707), else null. */
  readonly resource: string | null
}

export type AuthorizationCheck =
  /** Steps 1–2: show an error page; the redirect URI is not trusted. */
  | { readonly _tag: "ShowError"; readonly error: string; readonly description: string }
  /** From step 3: redirect the error to the registered redirect URI. */
  | {
    readonly _tag: "RedirectError"
    readonly redirectUri: string
    readonly state: string | null
    readonly error: string
    readonly description: string
  }
  | { readonly _tag: "Valid"; readonly request: AuthorizationRequest }

/** Query parameters in order of appearance (repeats kept, so they can be refused). */
export type Params = ReadonlyArray<readonly [string, string]>

export const CLIENT_ID_MAX = 128
export const STATE_MAX = 2048
export const NONCE_MAX = 512
export const SCOPE_PARAM_MAX = 1024

const all = (params: Params, name: string) => params.filter(([k]) => k === name).map(([, v]) => v)

/** The one value of `name`: undefined when absent, null when repeated. */
const single = (params: Params, name: string): string | undefined | null => {
  const values = all(params, name)
  return values.length === 0 ? undefined : values.length === 1 ? values[0]! : null
}

const showError = (error: string, description: string): AuthorizationCheck => ({ _tag: "ShowError", error, description })

/** Step 1's first half: the `client_id` to look up, or the error page. */
export const clientIdOf = (params: Params): { readonly clientId: string } | Extract<AuthorizationCheck, { _tag: "ShowError" }> => {
  const clientId = single(params, "client_id")
  if (clientId === undefined || clientId === "") return { _tag: "ShowError", error: "invalid_request", description: "client_id is required." }
  if (clientId === null) return { _tag: "ShowError", error: "invalid_request", description: "client_id must not be repeated." }
  if (clientId.length > CLIENT_ID_MAX) return { _tag: "ShowError", error: "invalid_client", description: "Unknown client_id." }
  return { clientId }
}

/** Parses the `scope` parameter: space-separated, duplicates dropped; undefined when empty or malformed. */
export const parseScopeParam = (raw: string): ReadonlyArray<string> | undefined => {
  if (raw.length > SCOPE_PARAM_MAX) return undefined
  const scopes = raw.split(" ").filter((s) => s.length > 0)
  if (scopes.length === 0 || scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) return undefined
  return [...new Set(scopes)]
}

const PROMPTS: ReadonlySet<string> = new Set(["none", "login", "consent"])

/**
 * Validates an authorization request for `app` (undefined: no such client). `resourceUrl` is the
 * one resource JWT access tokens can be issued for (the API's URL).
 */
export const checkAuthorizationRequest = (
  params: Params,
  app: OAuthApp | undefined,
  resourceUrl: string
): AuthorizationCheck => {
  const client = clientIdOf(params)
  if ("_tag" in client) return client
  if (app === undefined || app.clientId !== client.clientId) return showError("invalid_client", "Unknown client_id.")

  // Step 2: the redirect URI, exactly as registered.
  const redirectUri = single(params, "redirect_uri")
  if (redirectUri === undefined || redirectUri === "") return showError("invalid_request", "redirect_uri is required.")
  if (redirectUri === null) return showError("invalid_request", "redirect_uri must not be repeated.")
  if (!app.redirectUris.includes(redirectUri)) {
    return showError("invalid_request", "redirect_uri is not registered for this client.")
  }

  // From here on errors go back to the client, with its state when that is usable.
  const rawState = single(params, "state")
  const state = typeof rawState === "string" && rawState.length <= STATE_MAX && rawState !== "" ? rawState : null
  const fail = (error: string, description: string): AuthorizationCheck => ({
    _tag: "RedirectError",
    redirectUri,
    state,
    error,
    description
  })

  // Step 3.
  const seen = new Set<string>()
  for (const [name] of params) {
    if (seen.has(name)) return fail("invalid_request", `The parameter ${name.slice(0, 64)} must not be repeated.`)
    seen.add(name)
  }
  if (rawState !== undefined && state === null) return fail("invalid_request", `state must be 1 to ${STATE_MAX} characters.`)
  if (seen.has("request")) return fail("request_not_supported", "Request objects are not supported.")
  if (seen.has("request_uri")) return fail("request_uri_not_supported", "request_uri is not supported.")

  // Step 4.
  const responseType = single(params, "response_type")
  if (responseType === undefined || responseType === "") return fail("invalid_request", "response_type is required.")
  if (responseType !== "code") return fail("unsupported_response_type", "Only response_type=code is supported.")
  const responseMode = single(params, "response_mode")
  if (responseMode !== undefined && responseMode !== "query") {
    return fail("invalid_request", "Only response_mode=query is supported.")
  }

  // Step 5.
  const rawScope = single(params, "scope")
  if (rawScope === undefined || rawScope === null || rawScope.trim() === "") return fail("invalid_scope", "scope is required.")
  const requested = parseScopeParam(rawScope)
  if (requested === undefined) return fail("invalid_scope", "scope is not a list of scopes.")
  const unknown = requested.filter((s) => !isOauthScope(s))
  if (unknown.length > 0) return fail("invalid_scope", `Unknown scopes: ${unknown.join(" ").slice(0, 200)}.`)
  const beyond = requested.filter((s) => !app.scopes.includes(s))
  if (beyond.length > 0) return fail("invalid_scope", `The client may not request: ${beyond.join(" ")}.`)

  // Step 6: PKCE, S256, for every client.
  const challenge = single(params, "code_challenge")
  if (challenge === undefined || challenge === null || challenge === "") {
    return fail("invalid_request", "code_challenge is required (PKCE with S256).")
  }
  const method = single(params, "code_challenge_method")
  if (method === undefined || method === null || method === "") {
    return fail("invalid_request", "code_challenge_method is required and must be S256.")
  }
  if (method !== CODE_CHALLENGE_METHOD) return fail("invalid_request", "code_challenge_method must be S256.")
  if (!isCodeChallenge(challenge)) return fail("invalid_request", "code_challenge must be 43 base64url characters (S256).")

  // Step 7.
  const rawPrompt = single(params, "prompt")
  const prompts = new Set<Prompt>()
  if (typeof rawPrompt === "string") {
    for (const p of rawPrompt.split(" ").filter((s) => s.length > 0)) {
      if (!PROMPTS.has(p)) return fail("invalid_request", `Unsupported prompt value ${JSON.stringify(p.slice(0, 32))}.`)
      prompts.add(p as Prompt)
    }
    if (prompts.has("none") && prompts.size > 1) return fail("invalid_request", "prompt=none cannot be combined with other values.")
  }
  const nonce = single(params, "nonce")
  if (typeof nonce === "string" && (nonce.length === 0 || nonce.length > NONCE_MAX)) {
    return fail("invalid_request", `nonce must be 1 to ${NONCE_MAX} characters.`)
  }
  const resource = single(params, "resource")
  if (typeof resource === "string" && resource !== resourceUrl) {
    return fail("invalid_target", `The only resource available is ${resourceUrl}.`)
  }

  return {
    _tag: "Valid",
    request: {
      clientId: app.clientId,
      redirectUri,
      scopes: catalogOrder(requested),
      state,
      codeChallenge: challenge,
      nonce: typeof nonce === "string" ? nonce : null,
      prompt: prompts,
      resource: typeof resource === "string" ? resource : null
    }
  }
}
