/**
 * How a client presents its credentials at the token, revocation and introspection endpoints
 * (RFC 6749 §2.3.1; docs/api-notes/oauth.md): HTTP Basic with the id and secret
 * form-URL-encoded before base64 (so they are form-URL-decoded here: `+` is a space, `%XX` a byte
 * of UTF-8), or `client_id` (+ `client_secret`) in the form body. Exactly one method per request:
 * Basic together with body credentials is `invalid_request`. Pure functions.
 */
import { Redacted } from "effect"

/** Credentials as presented. */
export interface PresentedClient {
  readonly clientId: string
  readonly secret: Redacted.Redacted<string> | null
  /** Whether they came in an `Authorization: Basic` header (a refusal then carries a Basic challenge). */
  readonly viaBasic: boolean
}

export type ClientCredentialsResult =
  | { readonly _tag: "Presented"; readonly client: PresentedClient }
  /** No credentials at all. */
  | { readonly _tag: "Missing" }
  /** `invalid_request`: both methods, or a malformed header. */
  | { readonly _tag: "Invalid"; readonly error: "invalid_request" | "invalid_client"; readonly description: string; readonly viaBasic: boolean }

/** `application/x-www-form-urlencoded` decoding of one value (WHATWG URL: `+` → space, percent-decoding as UTF-8). */
export const formUrlDecode = (value: string): string | undefined => {
  // Nothing encoded (the usual id and secret): the value as it is.
  if (!value.includes("%") && !value.includes("+")) return value
  try {
    return decodeURIComponent(value.replace(/\+/g, " "))
  } catch {
    return undefined
  }
}

const MAX_HEADER = 4096
const NON_ASCII = /[\x80-\xff]/
const utf8 = new TextDecoder("utf-8", { fatal: true })

/** Parses `Authorization: Basic …`; undefined when it is not a well-formed Basic credential. */
export const parseBasic = (header: string): { readonly clientId: string; readonly secret: string } | undefined => {
  if (header.length > MAX_HEADER) return undefined
  const m = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header)
  if (m === null) return undefined
  let decoded: string
  try {
    decoded = atob(m[1]!)
    // Bytes over 0x7f: the text is UTF-8 (ASCII, the usual case, is its own decoding).
    if (NON_ASCII.test(decoded)) decoded = utf8.decode(Uint8Array.from(decoded, (c) => c.charCodeAt(0)))
  } catch {
    return undefined
  }
  const colon = decoded.indexOf(":")
  if (colon < 0) return undefined
  const clientId = formUrlDecode(decoded.slice(0, colon))
  const secret = formUrlDecode(decoded.slice(colon + 1))
  if (clientId === undefined || secret === undefined || clientId === "") return undefined
  return { clientId, secret }
}

/**
 * The client's credentials from the `Authorization` header (if any) and the form's `client_id` and
 * `client_secret` (if any).
 */
export const clientCredentials = (args: {
  readonly authorization: string | undefined
  readonly bodyClientId: string | undefined
  readonly bodyClientSecret: string | undefined
}): ClientCredentialsResult => {
  const { authorization, bodyClientId, bodyClientSecret } = args
  const header = authorization?.trim()
  if (header !== undefined && header !== "") {
    if (!/^Basic\b/i.test(header)) {
      return { _tag: "Invalid", error: "invalid_client", description: "Client authentication must use HTTP Basic or the form body.", viaBasic: true }
    }
    const basic = parseBasic(header)
    if (basic === undefined) {
      return { _tag: "Invalid", error: "invalid_client", description: "The Basic credentials are malformed.", viaBasic: true }
    }
    if (bodyClientSecret !== undefined) {
      return {
        _tag: "Invalid",
        error: "invalid_request",
        description: "Send client credentials once: HTTP Basic or the form body, not both.",
        viaBasic: true
      }
    }
    if (bodyClientId !== undefined && bodyClientId !== basic.clientId) {
      return { _tag: "Invalid", error: "invalid_request", description: "client_id in the body differs from the Basic credentials.", viaBasic: true }
    }
    return { _tag: "Presented", client: { clientId: basic.clientId, secret: Redacted.make(basic.secret), viaBasic: true } }
  }
  if (bodyClientId === undefined || bodyClientId === "") {
    return bodyClientSecret === undefined
      ? { _tag: "Missing" }
      : { _tag: "Invalid", error: "invalid_request", description: "client_secret was sent without client_id.", viaBasic: false }
  }
  return {
    _tag: "Presented",
    client: {
      clientId: bodyClientId,
      secret: bodyClientSecret === undefined ? null : Redacted.make(bodyClientSecret),
      viaBasic: false
    }
  }
}
