/**
 * Verifies a JWT access token (API.md §1.1, SPEC.md § Authentication): EdDSA only, signed by a key
 * of our published set (picked by `kid`), `typ: at+jwt`, issuer `{DASHBOARD_URL}/api/auth`,
 * audience `{API_URL}`, `exp` required and checked against Clock, `sub` an existing, non-deleted
 * account, `jti` the token id, `scope` space-separated. Every failure is an `InvalidCredential`
 * (`expired`, `malformed` or `unknown`) with a message saying what was wrong; a deleted account
 * is `AccountDeleted`.
 */
import { Clock, Effect, Option, Redacted, Schema } from "effect"
import * as jose from "jose"
import { ACCESS_TOKEN_TYP, parseScope } from "../oauth/AccessTokenClaims.js"
import { SIGNING_ALG } from "../oauth/SigningKeyMaterial.js"
import { SigningKeys } from "../oauth/SigningKeys.js"
import { TokenAudience } from "../oauth/TokenAudience.js"
import { AccountId } from "../shared/Identifiers.js"
import { Principal } from "./Access.js"
import { AccountDeleted, InvalidCredential } from "./Errors.js"
import { AccountsRepo } from "./Ports.js"

const invalid = (reason: InvalidCredential["reason"], message: string) => new InvalidCredential({ reason, message })

const isAccountId = Schema.is(AccountId)

/** What jose's refusal means to the caller. */
const rejection = (e: unknown): InvalidCredential => {
  if (e instanceof jose.errors.JWTExpired) return invalid("expired", "The access token has expired.")
  if (e instanceof jose.errors.JWSSignatureVerificationFailed) {
    return invalid("unknown", "The access token's signature is not valid.")
  }
  if (e instanceof jose.errors.JOSEAlgNotAllowed) return invalid("unknown", `Access tokens must be signed with ${SIGNING_ALG}.`)
  if (e instanceof jose.errors.JWTClaimValidationFailed) {
    if (e.reason === "missing") return invalid("malformed", `The access token has no "${e.claim}" claim.`)
    switch (e.claim) {
      case "iss":
        return invalid("unknown", "The access token was issued by another issuer.")
      case "aud":
        return invalid("unknown", "The access token is not meant for this API (aud).")
      case "typ":
        return invalid("unknown", `The token is not an access token (typ must be ${ACCESS_TOKEN_TYP}).`)
      case "nbf":
        return invalid("unknown", "The access token is not valid yet (nbf).")
      default:
        return invalid("malformed", `The access token's "${e.claim}" claim is not valid.`)
    }
  }
  return invalid("malformed", "The access token is not a well-formed JWT.")
}

export class AccessTokenVerifier extends Effect.Service<AccessTokenVerifier>()("core/AccessTokenVerifier", {
  effect: Effect.gen(function*() {
    const keys = yield* SigningKeys
    const accounts = yield* AccountsRepo
    // Read once when the service is built: the server provides the tag from its configuration.
    const { audience, issuer } = yield* TokenAudience

    const verify = Effect.fn("AccessTokenVerifier.verify")(function*(token: Redacted.Redacted<string>): Effect.fn.Return<
      Principal,
      InvalidCredential | AccountDeleted
    > {
      const jwt = Redacted.value(token)
      let header: jose.ProtectedHeaderParameters
      try {
        header = jose.decodeProtectedHeader(jwt)
      } catch {
        return yield* invalid("malformed", "The access token is not a well-formed JWT.")
      }
      // Checked before any key is looked up: `none`, HS256 keyed with our public key, … never get further.
      if (header.alg !== SIGNING_ALG) return yield* invalid("unknown", `Access tokens must be signed with ${SIGNING_ALG}.`)
      if (typeof header.kid !== "string" || header.kid.length === 0) {
        return yield* invalid("malformed", "The access token's header has no kid.")
      }
      const key = yield* keys.publicKeyFor(header.kid)
      if (Option.isNone(key)) return yield* invalid("unknown", "The access token was signed with an unknown key.")

      const now = yield* Clock.currentTimeMillis
      const { payload } = yield* Effect.tryPromise({
        try: () =>
          jose.jwtVerify(jwt, key.value, {
            algorithms: [SIGNING_ALG],
            issuer,
            audience,
            typ: ACCESS_TOKEN_TYP,
            requiredClaims: ["exp", "sub", "jti"],
            currentDate: new Date(now)
          }),
        catch: rejection
      })

      if (typeof payload.jti !== "string" || payload.jti.length === 0) {
        return yield* invalid("malformed", "The access token's \"jti\" claim is not valid.")
      }
      const scopes = parseScope(payload.scope)
      if (scopes === undefined) return yield* invalid("malformed", "The access token's \"scope\" claim is not valid.")
      const sub = payload.sub
      if (!isAccountId(sub)) return yield* invalid("unknown", "The access token's subject is not an account.")
      const account = yield* accounts.findById(sub)
      if (Option.isNone(account)) return yield* invalid("unknown", "The access token's account does not exist.")
      if (account.value.deletedAt !== null) return yield* new AccountDeleted({ accountId: sub })
      return Principal.AccessToken({ accountId: sub, scopes, tokenId: payload.jti })
    })

    return { verify } as const
  }),
  dependencies: [SigningKeys.Default]
}) {}
