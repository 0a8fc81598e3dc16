/**
 * Verifies a project API key credential (`sb_sk_<id26>_<secret>`). Placeholder until project API
 * keys exist: every project key is refused as not yet supported.
 */
import { Effect, type Redacted } from "effect"
import type { Principal } from "./Access.js"
import { InvalidCredential } from "./Errors.js"

export class ProjectKeyVerifier extends Effect.Service<ProjectKeyVerifier>()("core/ProjectKeyVerifier", {
  succeed: {
    verify: (_keyId: string, _secret: Redacted.Redacted<string>): Effect.Effect<Principal, InvalidCredential> =>
      Effect.fail(new InvalidCredential({ reason: "unsupported", message: "Project API keys are not accepted yet." }))
  }
}) {}
