/**
 * The JWT and key types core's public signatures use, declared here rather than taken from `jose`:
 * jose's declarations load its remote-JWKS module, which names `fetch` types (`Headers`,
 * `Response`, `AbortSignal`) that a host compiling with `lib: ["ES2023"]` and no DOM or Node types
 * does not have. Each is structurally what jose takes and returns, so values pass between them as
 * they are (docs/embedding.md, "TypeScript hosts").
 */

/** A WebCrypto key (jose's `CryptoKey` where the runtime's own type is not known). */
export interface SigningCryptoKey {
  readonly algorithm: { name: string }
  readonly extractable: boolean
  readonly type: string
  readonly usages: Array<string>
}

/** A JSON Web Key (RFC 7517): the members an Ed25519 signing key has. */
export interface Jwk {
  readonly kty?: string
  readonly crv?: string
  readonly x?: string
  readonly d?: string
  readonly kid?: string
  readonly alg?: string
  readonly use?: string
}

/** The claims of a JWT (RFC 7519 §4): the registered ones, and any other. */
export interface JwtClaims {
  readonly iss?: string
  readonly sub?: string
  readonly aud?: string | Array<string>
  readonly jti?: string
  readonly nbf?: number
  readonly exp?: number
  readonly iat?: number
  readonly [claim: string]: unknown
}
