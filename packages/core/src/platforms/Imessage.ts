/**
 * iMessage on the /v1 API (docs/provisioning.md): the project's mode, shared-line assignments
 * and dedicated lines.
 *
 * - **Mode** follows the project's entitlements (`PricedResources.ts`): `dedicated` when its plans
 *   grant `imessage_dedicated_lines.can_purchase`, else `shared` with the seat cap
 *   `imessage_shared_lines.max_user_assignments` (`ImessageSettings.defaultSharedSeats` when no plan
 *   sets one).
 * - **Shared-line assignments** map an end user's handle onto a seat of a pooled shared line. A seat
 *   comes from `ImessagePool`; when every shared line is full the pool grows only if the project's
 *   Dashboard **auto-scale** setting is on (`PATCH /api/projects/{id}/imessage/auto-scale`), else
 *   503 SHARED_LINE_POOL_EXHAUSTED. The seat is taken before the transaction and handed back if
 *   the assignment is refused there (cap, a live assignment of the handle, a closing project).
 *   Release keeps the row with `releasedAt` and is safe to repeat.
 * - **Dedicated lines** are resources (`imessage_line`) provisioned by a `resource.provision`
 *   operation the worker runs first in, first out (`ImessageProvisioning.ts`); priced through
 *   billing's fixed charge `imessage_dedicated_line` while active.
 *
 * Events: `imessage.assignment.updated` on create and release (operations and resources have theirs).
 */
import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import type { Principal } from "../credentials/Access.js"
import { EventPublisher } from "../events/EventsFeature.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { ProjectSettingsRepo } from "../projects/ProjectSettingsPorts.js"
import { IdKinds, type ProjectId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { createdAtPage } from "../shared/PageToken.js"
import { Transactor } from "../shared/Ports.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { fn } from "../internal/Traced.js"
import { ImessageModeDedicated } from "./ImessageErrors.js"
import { ImessagePool, SharedLineAssignmentsRepo } from "./ImessagePorts.js"
import { DEDICATED_LINES_ENTITLEMENT, SHARED_SEATS_ENTITLEMENT } from "./ImessageProvisioning.js"
import {
  type CreateSharedLineAssignmentRequest,
  handleKeyOf,
  imessageAssignmentView as assignmentView,
  type SharedLineAssignmentRecord
} from "./ImessageSchema.js"
import { makeOperationRecords } from "./OperationRecords.js"
import { InvalidPlatformRequest, PlatformProviderUnavailable } from "./PlatformErrors.js"
import { OperationsRepo } from "./PlatformPorts.js"
import { makePricedResources } from "./PricedResources.js"
import {
  PlatformEntitlementRequired,
  SharedLineAssignmentExists,
  SharedLineAssignmentNotFound,
  SharedLineCapExceeded,
  SharedLinePoolExhausted
} from "./WhatsappErrors.js"
import { type ListSharedLineAssignmentsQuery, type ProjectPlatformSettings, SharedLineAssignment } from "./WhatsappSchema.js"
import { Setting } from "../internal/Settings.js"

export class ImessageSettings extends Setting<ImessageSettings>()("core/ImessageSettings", {
  defaultValue: () => ({
    /** The shared-mode seat cap when no plan of the project sets `imessage_shared_lines.max_user_assignments`. */
    defaultSharedSeats: 25
  })
}) {}

const encodeAssignment = Schema.encodeSync(SharedLineAssignment)
const DEFAULT_PAGE_SIZE = 50

const seatCap = (values: ReadonlyMap<string, string>, fallback: number): number => {
  const raw = values.get(SHARED_SEATS_ENTITLEMENT)?.trim()
  return raw !== undefined && /^[0-9]{1,9}$/.test(raw) ? Number(raw) : fallback
}

export class Imessage extends Context.Service<Imessage>()("core/Imessage", {
  make: Effect.gen(function*() {
    const assignments = yield* SharedLineAssignmentsRepo
    const pool = yield* ImessagePool
    const ops = yield* OperationsRepo
    const settingsRepo = yield* ProjectSettingsRepo
    const tx = yield* Transactor
    const ids = yield* Ids
    const gate = yield* makeProjectGate
    const publisher = yield* EventPublisher
    const serverSecret = yield* ServerSecret
    const priced = yield* makePricedResources
    const { submit } = yield* makeOperationRecords

    const provider = <A>(self: Effect.Effect<A, { readonly provider: string; readonly message: string }>) =>
      Effect.mapError(self, (e) => new PlatformProviderUnavailable({ provider: e.provider, message: e.message }))

    const modeOf = (projectId: string) =>
      Effect.gen(function*() {
        const values = yield* priced.entitlements(projectId)
        const settings = yield* ImessageSettings
        return priced.granted(values, DEDICATED_LINES_ENTITLEMENT)
          ? { mode: "dedicated" as const }
          : { mode: "shared" as const, maxUserAssignments: seatCap(values, settings.defaultSharedSeats) }
      })

    const published = (projectId: string, r: SharedLineAssignmentRecord, at: DateTime.Utc) =>
      publisher.publish(projectId, [{
        type: "imessage.assignment.updated",
        source: `/v1/projects/${projectId}/platforms/imessage/assignments/${r.assignmentId}`,
        timestamp: at,
        data: encodeAssignment(assignmentView(r)) as Record<string, unknown>
      }])

    const getSettings = fn("Imessage.getSettings")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read")
      const mode = yield* modeOf(projectId)
      if (mode.mode === "shared") return { settings: mode satisfies ProjectPlatformSettings, dedicatedLineAvailable: false }
      const free = yield* provider(pool.dedicatedAvailable)
      const queued = yield* ops.findUnfinished({ resourceType: "imessage_line" })
      // The contract's dedicated arm is `{mode}` alone; whether a line is free now goes in a header.
      return { settings: { mode: "dedicated" } satisfies ProjectPlatformSettings, dedicatedLineAvailable: free > 0 && Option.isNone(queued) }
    })

    const createAssignment = fn("Imessage.createAssignment")(function*(
      projectId: ProjectId,
      principal: Principal,
      body: CreateSharedLineAssignmentRequest
    ) {
      yield* gate.open(projectId, principal, "write")
      const mode = yield* modeOf(projectId)
      if (mode.mode === "dedicated") return yield* new ImessageModeDedicated({ projectId })
      const cap = new SharedLineCapExceeded({ maxUserAssignments: mode.maxUserAssignments })
      // What the request is comes before capacity: a handle that is taken can never succeed, so it
      // is refused (409) before a seat is looked for — a full pool (503, retry later) would mislead.
      // Both are checked before taking a seat (cheap), and again under the project lock (authoritative).
      if (yield* assignments.handleTaken(projectId, "imessage", handleKeyOf(body.handle))) {
        return yield* new SharedLineAssignmentExists({ handle: body.handle })
      }
      if ((yield* assignments.countLive(projectId, "imessage")) >= mode.maxUserAssignments) return yield* cap
      const autoScale = Option.exists(yield* settingsRepo.getAutoScale(projectId), (s) => s.autoScale)
      const seat = yield* provider(pool.claimSharedSeat({ projectId, autoScale }))
      if (Option.isNone(seat)) {
        return yield* new SharedLinePoolExhausted({ platform: "imessage" })
      }
      const phoneNumber = seat.value.phoneNumber
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write", { lock: true })
        const used = yield* assignments.countLive(projectId, "imessage")
        if (used >= mode.maxUserAssignments) return yield* cap
        const now = yield* DateTime.now
        const record: SharedLineAssignmentRecord = {
          assignmentId: yield* ids.typeId(IdKinds.assignment),
          projectId,
          platform: "imessage",
          handle: body.handle,
          handleKey: handleKeyOf(body.handle),
          assignedPhoneNumber: phoneNumber,
          email: body.email ?? null,
          firstName: body.firstName ?? null,
          lastName: body.lastName ?? null,
          createdAt: now,
          updatedAt: now,
          releasedAt: null
        }
        if (!(yield* assignments.insert(record))) return yield* new SharedLineAssignmentExists({ handle: body.handle })
        yield* published(projectId, record, now)
        return assignmentView(record)
      })).pipe(Effect.tapError(() => pool.releaseSharedSeat(phoneNumber)))
    })

    const getAssignment = fn("Imessage.getAssignment")(function*(projectId: ProjectId, principal: Principal, assignmentId: string) {
      yield* gate.open(projectId, principal, "read")
      const found = yield* assignments.find(projectId, assignmentId)
      if (Option.isNone(found) || found.value.platform !== "imessage") return yield* new SharedLineAssignmentNotFound({ assignmentId })
      return assignmentView(found.value)
    })

    /** Releases the seat and the handle; the row stays with `releasedAt`. Repeating it answers the same. */
    const releaseAssignment = fn("Imessage.releaseAssignment")(function*(
      projectId: ProjectId,
      principal: Principal,
      assignmentId: string
    ) {
      yield* gate.open(projectId, principal, "write")
      const done = yield* tx.withTransaction(Effect.gen(function*() {
        const now = yield* DateTime.now
        const r = yield* assignments.release({ projectId, assignmentId, now })
        if (Option.isNone(r) || r.value.assignment.platform !== "imessage") return yield* new SharedLineAssignmentNotFound({ assignmentId })
        if (r.value.released) yield* published(projectId, r.value.assignment, now)
        return r.value
      }))
      if (done.released) yield* pool.releaseSharedSeat(done.assignment.assignedPhoneNumber)
      return assignmentView(done.assignment)
    })

    const listAssignments = fn("Imessage.listAssignments")(function*(
      projectId: ProjectId,
      principal: Principal,
      query: ListSharedLineAssignmentsQuery
    ) {
      yield* gate.open(projectId, principal, "read")
      const includeReleased = query.includeReleased === "true"
      const { page, nextPageToken } = yield* createdAtPage({
        list: `imessage-assignments:${projectId}:${includeReleased}`,
        pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE,
        pageToken: query.pageToken,
        fetch: (after, limit) =>
          assignments.list({
            projectId,
            platform: "imessage",
            includeReleased,
            after: after && { createdAt: after.createdAt, assignmentId: after.id },
            limit
          }),
        positionOf: (r) => ({ createdAt: r.createdAt, id: r.assignmentId }),
        invalidToken: (message) => new InvalidPlatformRequest({ parameter: "pageToken", message })
      }).pipe(Effect.provideService(ServerSecret, serverSecret))
      return { assignments: page.map(assignmentView), nextPageToken }
    })

    /** Claims one dedicated line: always an operation, which may wait for capacity for hours (FIFO). */
    const provisionDedicatedLine = fn("Imessage.provisionDedicatedLine")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "write")
      if (!priced.granted(yield* priced.entitlements(projectId), DEDICATED_LINES_ENTITLEMENT)) {
        return yield* new PlatformEntitlementRequired({
          feature: DEDICATED_LINES_ENTITLEMENT,
          message: "The project's plan does not include dedicated iMessage lines."
        })
      }
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write", { lock: true })
        return yield* submit({ projectId, resourceType: "imessage_line", params: {} })
      }))
    })

    return {
      getSettings,
      createAssignment,
      getAssignment,
      releaseAssignment,
      listAssignments,
      provisionDedicatedLine
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer, EventPublisher.layer]))
}
