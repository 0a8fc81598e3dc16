/**
 * Access-token fixtures for tests: `mintAccessToken` signs a valid token with the store's current
 * key through `SigningKeys.sign` (iss/aud from `TokenAudience`, times from Clock);
 * `forgeAccessToken` makes the tokens a verifier must refuse — claims left out, another key,
 * `alg: none`, HS256 keyed with our own public key.
 */
import {
  ACCESS_TOKEN_TYP,
  formatScope,
  generateSigningKey,
  SigningKeys,
  SigningKeysRepo,
  signJwt,
  TokenAudience,
  unsealPrivateKey
} from "@switchboard/core/oauth"
import { base64url, fromBase64url, hmacSha256 } from "@switchboard/core/internal"
import { Clock, DateTime, Duration, Effect } from "effect"

type Claim = "iss" | "aud" | "sub" | "exp" | "iat" | "jti" | "scope"

export interface MintAccessTokenOptions {
  readonly accountId: string
  /** Default: none. */
  readonly scopes?: ReadonlyArray<string>
  /** From the issue time; default 1 hour. */
  readonly expiresIn?: Duration.Input
  /** How long before now the token was issued; default 0. `issuedAgo: "2 hours"` with the default lifetime is expired. */
  readonly issuedAgo?: Duration.Input
  /** `jti`; default a random id. */
  readonly tokenId?: string
  /** Default: the `TokenAudience` issuer. */
  readonly issuer?: string
  /** Default: the `TokenAudience` audience. */
  readonly audience?: string | ReadonlyArray<string>
  /** The `typ` header; default `at+jwt`, null leaves it out. */
  readonly typ?: string | null
  /** Claims to leave out (with `mintAccessToken`, not `exp`: use `forgeAccessToken` with the store signer). */
  readonly omit?: ReadonlyArray<Claim>
  /** Extra or replacing claims. */
  readonly claims?: Record<string, unknown>
}

let counter = 0

/** The payload of a token described by `o`, at Clock's now. */
export const accessTokenPayload = (o: MintAccessTokenOptions) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const target = yield* TokenAudience
    const issuedAt = now - (o.issuedAgo === undefined ? 0 : Duration.toMillis(o.issuedAgo))
    const expiresAt = issuedAt + Duration.toMillis(o.expiresIn ?? Duration.hours(1))
    const payload: Record<string, unknown> = {
      iss: o.issuer ?? target.issuer,
      aud: o.audience ?? target.audience,
      sub: o.accountId,
      iat: Math.floor(issuedAt / 1000),
      exp: Math.floor(expiresAt / 1000),
      jti: o.tokenId ?? `at_test_${now.toString(36)}_${++counter}`,
      scope: formatScope(o.scopes ?? []),
      ...o.claims
    }
    for (const claim of o.omit ?? []) delete payload[claim]
    return payload
  })

const typOf = (o: MintAccessTokenOptions) => (o.typ === null ? {} : { typ: o.typ ?? ACCESS_TOKEN_TYP })

/** A valid access token signed with the store's current key through `SigningKeys.sign`. */
export const mintAccessToken = (o: MintAccessTokenOptions) =>
  Effect.gen(function*() {
    const keys = yield* SigningKeys
    const payload = yield* accessTokenPayload(o)
    return yield* keys.sign(payload, typOf(o))
  })

/** A token that expired an hour ago (issued two hours ago for one hour). */
export const mintExpiredAccessToken = (o: MintAccessTokenOptions) =>
  mintAccessToken({ ...o, issuedAgo: "2 hours", expiresIn: "1 hour" })

/** How `forgeAccessToken` signs. */
export type AccessTokenForgery =
  /** The store's current private key, without `SigningKeys.sign`'s checks (so `exp` can be left out). */
  | { readonly signer: "store" }
  /** A fresh key that is not in the store, under the current key's `kid` or its own (unknown) one. */
  | { readonly signer: "foreign"; readonly kid: "current" | "own" }
  /** `alg: none` with an empty signature (RFC 7519 §6), naming the current `kid`. */
  | { readonly signer: "none" }
  /** HS256 keyed with the bytes of the current public key: the classic algorithm-confusion attack. */
  | { readonly signer: "hs256-public-key" }

const encodeJson = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)))

/** A token signed (or not) as `forgery` says, with the claims of `o`. */
export const forgeAccessToken = (o: MintAccessTokenOptions, forgery: AccessTokenForgery) =>
  Effect.gen(function*() {
    const repo = yield* SigningKeysRepo
    const now = yield* DateTime.now
    const current = (yield* repo.listPublished(now)).find((k) => k.state === "current")
    if (current === undefined) return yield* Effect.die(new Error("forgeAccessToken: the store has no current signing key"))
    const payload = yield* accessTokenPayload(o)
    const header = typOf(o)
    switch (forgery.signer) {
      case "store":
        return yield* signJwt(yield* unsealPrivateKey(current), current.kid, payload, header)
      case "foreign": {
        const foreign = yield* generateSigningKey
        return yield* signJwt(foreign.privateKey, forgery.kid === "current" ? current.kid : foreign.kid, payload, header)
      }
      case "none":
        return `${encodeJson({ alg: "none", kid: current.kid, ...header })}.${encodeJson(payload)}.`
      case "hs256-public-key": {
        const input = `${encodeJson({ alg: "HS256", kid: current.kid, ...header })}.${encodeJson(payload)}`
        const secret = fromBase64url(current.publicJwk.x) ?? new Uint8Array()
        return `${input}.${base64url(yield* hmacSha256(secret, input))}`
      }
    }
  })
