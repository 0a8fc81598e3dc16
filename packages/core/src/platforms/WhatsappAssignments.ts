/**
 * WhatsApp shared-line assignments (docs/provisioning.md): an end user's phone number
 * mapped onto one of the pooled shared WhatsApp lines, taking one of the project's seats
 * (`WhatsappSettings.maxUserAssignments`). The server picks the line (round robin over the pool);
 * one unreleased assignment per handle; releasing keeps the row with `releasedAt` (a repeat answers
 * the same). Creating checks the mode, the seats and the handle with the project row locked, so the
 * cap holds under concurrency. The optional `email` is kept; sending the invitation is not done.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import type { Principal } from "../credentials/Access.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { IdKinds, type ProjectId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { createdAtPage } from "../shared/PageToken.js"
import { Transactor } from "../shared/Ports.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { fn } from "../internal/Traced.js"
import { PlatformProviderUnavailable } from "./PlatformErrors.js"
import {
  InvalidQueryParameter,
  SharedLineAssignmentExists,
  SharedLineAssignmentNotFound,
  SharedLineCapExceeded,
  SharedLinePoolExhausted,
  WhatsappModeDedicated
} from "./WhatsappErrors.js"
import { WhatsappAssignmentsRepo, WhatsappProvider, WhatsappSettings } from "./WhatsappPorts.js"
import {
  assignmentView,
  type CreateWhatsappSharedLineAssignmentRequest,
  type ListSharedLineAssignmentsQuery
} from "./WhatsappSchema.js"

export class WhatsappAssignments extends Context.Service<WhatsappAssignments>()("core/WhatsappAssignments", {
  make: Effect.gen(function*() {
    const repo = yield* WhatsappAssignmentsRepo
    const provider = yield* WhatsappProvider
    const tx = yield* Transactor
    const ids = yield* Ids
    const gate = yield* makeProjectGate
    const serverSecret = yield* ServerSecret

    const own = (projectId: string, assignmentId: string) =>
      Effect.flatMap(repo.find(projectId, assignmentId), (found) =>
        Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new SharedLineAssignmentNotFound({ assignmentId })))

    const create = fn("WhatsappAssignments.create")(function*(
      projectId: ProjectId,
      principal: Principal,
      body: CreateWhatsappSharedLineAssignmentRequest
    ) {
      yield* gate.open(projectId, principal, "write")
      const settings = yield* WhatsappSettings
      if (settings.mode === "dedicated") return yield* new WhatsappModeDedicated({ projectId })
      // What the request is comes before capacity: a taken handle (409) can never succeed, an empty
      // pool (503) may later. The insert below stays the authoritative check.
      if (yield* repo.handleTaken(projectId, body.handle)) return yield* new SharedLineAssignmentExists({ handle: body.handle })
      const pool = yield* Effect.mapError(provider.sharedLines, (e) => new PlatformProviderUnavailable({ provider: e.provider, message: e.message }))
      if (pool.length === 0) return yield* new SharedLinePoolExhausted({ platform: "whatsapp" })
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write", { lock: true })
        const active = yield* repo.countActive(projectId)
        if (active >= settings.maxUserAssignments) {
          return yield* new SharedLineCapExceeded({ maxUserAssignments: settings.maxUserAssignments })
        }
        const now = yield* DateTime.now
        const record = {
          assignmentId: yield* ids.typeId(IdKinds.assignment),
          projectId,
          handle: body.handle,
          assignedPhoneNumber: pool[active % pool.length]!,
          email: body.email ?? null,
          firstName: body.firstName ?? null,
          lastName: body.lastName ?? null,
          createdAt: now,
          updatedAt: now,
          releasedAt: null
        }
        yield* Effect.catchTag(repo.insert(record), "AssignmentHandleTaken", () => new SharedLineAssignmentExists({ handle: body.handle }))
        return assignmentView(record)
      }))
    })

    const get = fn("WhatsappAssignments.get")(function*(projectId: ProjectId, principal: Principal, assignmentId: string) {
      yield* gate.open(projectId, principal, "read")
      return assignmentView(yield* own(projectId, assignmentId))
    })

    /** Releases the seat; a released assignment answers as it is (repeat safe). */
    const release = fn("WhatsappAssignments.release")(function*(projectId: ProjectId, principal: Principal, assignmentId: string) {
      yield* gate.open(projectId, principal, "write")
      const released = yield* repo.release({ projectId, assignmentId, now: yield* DateTime.now })
      return assignmentView(Option.isSome(released) ? released.value : yield* own(projectId, assignmentId))
    })

    const list = fn("WhatsappAssignments.list")(function*(
      projectId: ProjectId,
      principal: Principal,
      query: ListSharedLineAssignmentsQuery
    ) {
      yield* gate.open(projectId, principal, "read")
      const includeReleased = query.includeReleased === "true"
      const { nextPageToken, page } = yield* createdAtPage({
        list: `whatsapp-assignments:${projectId}:${includeReleased}`,
        pageSize: query.pageSize ?? 50,
        pageToken: query.pageToken,
        fetch: (after, limit) =>
          repo.list({ projectId, includeReleased, after: after && { createdAt: after.createdAt, assignmentId: after.id }, limit }),
        positionOf: (r) => ({ createdAt: r.createdAt, id: r.assignmentId }),
        invalidToken: (message) => new InvalidQueryParameter({ parameter: "pageToken", message })
      }).pipe(Effect.provideService(ServerSecret, serverSecret))
      return { assignments: page.map(assignmentView), nextPageToken }
    })

    return { create, get, release, list } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}
