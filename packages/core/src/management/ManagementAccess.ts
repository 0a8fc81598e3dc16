/**
 * Who may use the management API (docs/api-notes/credentials.md; docs/api-notes/management-api.md):
 * HTTP Basic with the project id as username and the project's management secret as password. The
 * username must be the project of the path; the secret is checked as `ProjectsService.verifySecret`
 * checks it (its SHA-256 against the stored hash, constant-time compare), read through the projects
 * port so that this service needs no other feature's services. Credentials never expire on their
 * own; a rotation ends the old secret at once; a deleted project's secret opens nothing.
 */
import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { ProjectsRepo } from "../projects/Ports.js"
import { constantTimeEqual, sha256Hex } from "../internal/Crypto.js"
import { ProjectId } from "../shared/Identifiers.js"
import { ManagementUnauthorized } from "./Errors.js"
import { fn } from "../internal/Traced.js"

/** Longest username or password looked at: a project id is 36 characters, a secret 52. */
const MAX_CREDENTIAL_PART = 256

const decodeProjectId = Schema.decodeUnknownOption(ProjectId)

export class ManagementAccess extends Context.Service<ManagementAccess>()("core/ManagementAccess", {
  make: Effect.gen(function*() {
    const repo = yield* ProjectsRepo
    const invalid = new ManagementUnauthorized({ message: "Invalid project credentials." })

    /**
     * The project that `username:password` opens, when the username is the path's project id
     * (UUIDs compare without regard to case). Fails `ManagementUnauthorized` otherwise.
     */
    const authenticate = fn("ManagementAccess.authenticate")(function*(input: {
      readonly pathProjectId: string
      readonly username: string
      readonly password: Redacted.Redacted<string>
    }) {
      if (input.username.length > MAX_CREDENTIAL_PART || input.username.toLowerCase() !== input.pathProjectId.toLowerCase()) {
        return yield* new ManagementUnauthorized({ message: "The Basic username must be the project id of the path." })
      }
      const projectId = decodeProjectId(input.pathProjectId.toLowerCase())
      if (Option.isNone(projectId) || Redacted.value(input.password).length > MAX_CREDENTIAL_PART) return yield* invalid
      const record = yield* repo.findById(projectId.value)
      if (Option.isNone(record) || record.value.state === "deleted") return yield* invalid
      const stored = yield* repo.findSecretHash(projectId.value)
      const presented = yield* sha256Hex(Redacted.value(input.password))
      if (Option.isNone(stored) || !constantTimeEqual(presented, stored.value)) return yield* invalid
      return record.value
    })

    return { authenticate } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
