/**
 * Agent avatars (docs/api-notes/accounts-and-projects.md avatar rows): the project's agent profile
 * picture, uploaded like an account's profile picture (identity/Uploads.ts) through a ticket bound
 * to the project (`agent_avatar:<projectId>`) and to the principal that asked for it.
 *
 * The project is opened through the projects gate — a caller who cannot see it gets
 * `ProjectNotFound`, a deleted one `ProjectDeleted`, a closing one `ProjectClosing` — and written
 * through `ProjectsRepo.update` under the row lock, so the avatar that is replaced is known exactly.
 */
import { Context, DateTime, Effect, Layer } from "effect"
import { type Principal, principalScope } from "../credentials/Access.js"
import type { ImageContentType } from "../accounts/Schema.js"
import { agentAvatarPurpose } from "../uploads/UploadPorts.js"
import { blobKeyOfFileUrl, Uploads } from "../uploads/Uploads.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { RecordCache } from "../shared/RecordCache.js"
import { makeProjectGate } from "./ProjectGate.js"
import { type ProjectRecord, ProjectsRepo } from "./Ports.js"
import { fn } from "../internal/Traced.js"

export class AgentAvatars extends Context.Service<AgentAvatars>()("core/AgentAvatars", {
  make: Effect.gen(function*() {
    const uploads = yield* Uploads
    const projects = yield* ProjectsRepo
    const tx = yield* Transactor
    const records = yield* RecordCache
    const gate = yield* makeProjectGate

    /** A ticket for the avatar of an active project the principal can see. */
    const createUpload = fn("AgentAvatars.createUpload")(function*(input: {
      readonly projectId: ProjectId
      readonly principal: Principal
      readonly contentType: ImageContentType
    }) {
      yield* gate.open(input.projectId, input.principal, "write")
      return yield* uploads.createTicket({
        owner: principalScope(input.principal),
        purpose: agentAvatarPurpose(input.projectId),
        contentType: input.contentType
      })
    })

    /** Writes the avatar URL of a locked project; returns it with the blob of the avatar it replaced. */
    const setAvatar = (project: ProjectRecord, avatarUrl: string | null, now: DateTime.Utc) =>
      Effect.gen(function*() {
        const next: ProjectRecord = { ...project, agentAvatarUrl: avatarUrl, updatedAt: now }
        yield* projects.update(next)
        yield* records.changed("project", project.projectId)
        return { project: next, replaced: blobKeyOfFileUrl(project.agentAvatarUrl) }
      })

    /**
     * Makes a received avatar upload of this project (asked for by the same principal) the agent's
     * avatar. `replaced` is the old avatar's file: `Uploads.discard` it once the caller's
     * transaction has committed.
     */
    const commit = fn("AgentAvatars.commit")(function*(input: {
      readonly projectId: ProjectId
      readonly principal: Principal
      readonly uploadId: string
    }) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        const project = yield* gate.open(input.projectId, input.principal, "write", { lock: true })
        const { now, url } = yield* uploads.claim({
          owner: principalScope(input.principal),
          purpose: agentAvatarPurpose(input.projectId),
          uploadId: input.uploadId
        })
        return yield* setAvatar(project, url, now)
      }))
    })

    /** Back to the default avatar; a no-op (nothing written) when it is already the default. */
    const reset = fn("AgentAvatars.reset")(function*(projectId: ProjectId, principal: Principal) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        const project = yield* gate.open(projectId, principal, "write", { lock: true })
        if (project.agentAvatarUrl === null) return { project, replaced: null }
        return yield* setAvatar(project, null, yield* DateTime.now)
      }))
    })

    return { createUpload, commit, reset } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
