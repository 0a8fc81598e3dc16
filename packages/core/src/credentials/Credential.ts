/**
 * Credential format (docs/architecture.md#d5-credentials, docs/api-notes/credentials.md): kinds are
 * told apart by prefix.
 * - account service key `sb_ask_<id26>_<secret>` — its key id is `sb_ask_<id26>`;
 * - project API key `sb_sk_<id26>_<secret>` — its key id is `sb_sk_<id26>`;
 * - a JWT access token (three base64url segments).
 * The secret is 32 CSPRNG bytes (256 bits) as 52 lower-case Crockford base32 characters. Only its
 * SHA-256 is stored; verification is one lookup by key id plus a constant-time hash compare.
 */
import { Data, Effect, Redacted } from "effect"
import { encodeBase32, SVC } from "../shared/Identifiers.js"
import { Secrets } from "../shared/Secrets.js"

export const SECRET_BYTES = 32
export const SECRET_LENGTH = 52

export type ParsedCredential = Data.TaggedEnum<{
  AccountServiceKey: { readonly keyId: string; readonly secret: Redacted.Redacted<string> }
  ProjectApiKey: { readonly keyId: string; readonly secret: Redacted.Redacted<string> }
  AccessToken: { readonly token: Redacted.Redacted<string> }
}>
export const ParsedCredential = Data.taggedEnum<ParsedCredential>()

const id26 = "[0-7][0-9a-hjkmnp-tv-z]{25}"
const secretPart = `[0-9a-hjkmnp-tv-z]{${SECRET_LENGTH}}`
const serviceKeyPattern = new RegExp(`^(${SVC}_ask_${id26})_(${secretPart})$`)
const projectKeyPattern = new RegExp(`^(${SVC}_sk_${id26})_(${secretPart})$`)
const jwtPattern = /^[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*$/

/** The longest credential we look at; anything longer is malformed without further work. */
export const MAX_CREDENTIAL_LENGTH = 8192

/**
 * A key credential's parts as plain strings (no `Redacted` wrapper): the synchronous cache check of
 * the request path uses it (`Authenticator.cached`); `undefined` for anything else.
 */
export const keyCredentialParts = (
  raw: string
): { readonly kind: "AccountServiceKey" | "ProjectApiKey"; readonly keyId: string; readonly secret: string } | undefined => {
  if (raw.length === 0 || raw.length > MAX_CREDENTIAL_LENGTH) return undefined
  if (raw.startsWith(`${SVC}_ask_`)) {
    const m = serviceKeyPattern.exec(raw)
    return m ? { kind: "AccountServiceKey", keyId: m[1]!, secret: m[2]! } : undefined
  }
  if (raw.startsWith(`${SVC}_sk_`)) {
    const m = projectKeyPattern.exec(raw)
    return m ? { kind: "ProjectApiKey", keyId: m[1]!, secret: m[2]! } : undefined
  }
  return undefined
}

/** Tells the three kinds apart by prefix; `undefined` when the string is none of them. */
export const parseCredential = (raw: string): ParsedCredential | undefined => {
  const key = keyCredentialParts(raw)
  if (key !== undefined) {
    return key.kind === "AccountServiceKey"
      ? ParsedCredential.AccountServiceKey({ keyId: key.keyId, secret: Redacted.make(key.secret) })
      : ParsedCredential.ProjectApiKey({ keyId: key.keyId, secret: Redacted.make(key.secret) })
  }
  if (raw.length === 0 || raw.length > MAX_CREDENTIAL_LENGTH || raw.startsWith(`${SVC}_ask_`) || raw.startsWith(`${SVC}_sk_`)) return undefined
  return jwtPattern.test(raw) ? ParsedCredential.AccessToken({ token: Redacted.make(raw) }) : undefined
}

/** `<keyId>_<secret>`: the credential handed to the client once. */
export const formatCredential = (keyId: string, secret: Redacted.Redacted<string>): Redacted.Redacted<string> =>
  Redacted.make(`${keyId}_${Redacted.value(secret)}`)

/** A fresh 256-bit secret. */
export const newSecret: Effect.Effect<Redacted.Redacted<string>, never, Secrets> = Effect.flatMap(
  Secrets,
  (s) => Effect.map(s.randomBytes(SECRET_BYTES), (b) => Redacted.make(encodeBase32(b)))
)
