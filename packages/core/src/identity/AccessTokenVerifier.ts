/**
 * Verifies a JWT access token. Placeholder until signing keys exist: every token is refused as not
 * yet supported.
 */
import { Effect, type Redacted } from "effect"
import type { Principal } from "./Access.js"
import type { AccountDeleted } from "./Errors.js"
import { InvalidCredential } from "./Errors.js"

export class AccessTokenVerifier extends Effect.Service<AccessTokenVerifier>()("core/AccessTokenVerifier", {
  succeed: {
    verify: (_token: Redacted.Redacted<string>): Effect.Effect<Principal, InvalidCredential | AccountDeleted> =>
      Effect.fail(new InvalidCredential({ reason: "unsupported", message: "Access tokens are not accepted yet." }))
  }
}) {}
