/**
 * Calls (docs/api-notes/voice.md): the call records, driven only through the pure reducer
 * `CallMachine.apply`.
 *
 * - **Signals** from the SIP edge are applied in order, a batch in one transaction: the batch's
 *   call rows are locked (`CallsRepo.lockCalls`, so concurrent batches for one call serialise), the
 *   reducer decides each signal, and on `applied` the call, the signal's id and the transition's
 *   event (outbox) are written. Ignored and rejected signals write nothing.
 * - **API actions** are signals too: `create` is a `started` signal for a new outbound call,
 *   `cancel` an `ended(canceled)` (487), `reject` an `ended(rejected|busy)` (603 / 486), `hangup` an
 *   `ended(completed)` — which the machine turns into `failed` before connect and `completed` after.
 *   Each calls the `SipGateway` inside the same transaction, so an unreachable edge changes nothing.
 *   A move the machine does not take is `CallActionNotAllowed` (→ 409 FAILED_PRECONDITION).
 *
 * Signals are applied by `CallIngest.ts`; the API actions and reads are here.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { EventPublisher } from "../events/EventsFeature.js"
import type { Principal } from "../credentials/Access.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { canonicalJson } from "../shared/Idempotency.js"
import { CallId, encodeBase32Uuid, IdKinds, type ProjectId, UserId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { createdAtPage } from "../shared/PageToken.js"
import { Transactor } from "../shared/Ports.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import type { CreateCallRequest } from "./CallApiSchema.js"
import { apply } from "./CallMachine.js"
import { makeCallCommits, makeCallIngest, NO_IDS } from "./CallIngest.js"
import { type CallSignal, CallSignalId, type CallStartedSignalData } from "./CallSignals.js"
import {
  CallActionNotAllowed,
  CallNotFound,
  InvalidVoiceQuery,
  VoiceDefaultProfileRequired,
  VoiceLineNotFound,
  VoiceProfileNotFound
} from "./Errors.js"
import { LinesRepo } from "./Lines.js"
import { CallsRepo, SipGateway, VoiceProfilesRepo } from "./Ports.js"
import type { Call, CallDirection, CallStatus } from "./Schema.js"
import { fn } from "../internal/Traced.js"

export type { CallServiceRejection } from "./CallIngest.js"

const DEFAULT_PAGE_SIZE = 20

/** The latest lifecycle milestone of a call (they are ordered, so the largest). */
const latestMilestone = (call: Call): DateTime.Utc => {
  const t = call.timestamps as Partial<Record<string, DateTime.Utc>>
  let latest = call.timestamps.startedAt
  for (const key of ["ringingAt", "answeredAt", "connectedAt", "endedAt"]) {
    const at = t[key]
    if (at !== undefined && DateTime.toEpochMillis(at) > DateTime.toEpochMillis(latest)) latest = at
  }
  return latest
}

const sha256Bytes = (input: string) =>
  Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(input))).pipe(
    Effect.map((b) => new Uint8Array(b))
  )

/**
 * The user id of a party known only by its number or URI within a project: stable (the same party
 * is the same user across calls), derived from SHA-256 and shaped as a `sb_usr_` id.
 */
export const voiceUserId = (projectId: string, handle: string) =>
  Effect.map(sha256Bytes(`voice-user\u0000${projectId}\u0000${handle}`), (b) =>
    UserId.make(`sb_${IdKinds.user}_${encodeBase32Uuid(b.subarray(0, 16))}`))

/** The direct space of two parties (the same whichever calls whom). */
export const voiceSpaceId = (projectId: string, a: string, b: string) =>
  Effect.map(sha256Bytes(`voice-space\u0000${projectId}\u0000${[a, b].sort().join("\u0000")}`), (bytes) =>
    `voice_${Array.from(bytes.subarray(0, 16), (x) => x.toString(16).padStart(2, "0")).join("")}`)

export class Calls extends Context.Service<Calls>()("core/Calls", {
  make: Effect.gen(function*() {
    const repo = yield* CallsRepo
    const lines = yield* LinesRepo
    const profiles = yield* VoiceProfilesRepo
    const gateway = yield* SipGateway
    const ids = yield* Ids
    const tx = yield* Transactor
    const serverSecret = yield* ServerSecret
    const gate = yield* makeProjectGate
    const commits = yield* makeCallCommits
    const { commit, commitNew } = commits
    const { applySignal, ingest } = yield* makeCallIngest(commits)

    const get = fn("Calls.get")(function*(projectId: ProjectId, principal: Principal, callId: string) {
      yield* gate.open(projectId, principal, "read")
      const found = yield* repo.find(projectId, callId)
      if (Option.isNone(found)) return yield* new CallNotFound({ callId })
      return found.value
    })

    const list = fn("Calls.list")(function*(
      projectId: ProjectId,
      principal: Principal,
      input: {
        readonly pageSize?: number | undefined
        readonly pageToken?: string | undefined
        readonly status?: CallStatus | undefined
        readonly direction?: CallDirection | undefined
        readonly createdAfter?: DateTime.Utc | undefined
        readonly createdBefore?: DateTime.Utc | undefined
      }
    ) {
      yield* gate.open(projectId, principal, "read")
      const pageSize = input.pageSize ?? DEFAULT_PAGE_SIZE
      // The token is bound to the project and the filters: reused with others, it is refused.
      const listName = `calls:${projectId}:${canonicalJson({
        status: input.status ?? null,
        direction: input.direction ?? null,
        createdAfter: input.createdAfter?.epochMilliseconds ?? null,
        createdBefore: input.createdBefore?.epochMilliseconds ?? null
      })}`
      const { page, nextPageToken } = yield* createdAtPage({
        list: listName,
        pageSize,
        pageToken: input.pageToken,
        fetch: (after, limit) =>
          repo.list({
            projectId,
            status: input.status,
            direction: input.direction,
            createdAfter: input.createdAfter,
            createdBefore: input.createdBefore,
            after: after && { createdAt: after.createdAt, callId: after.id },
            limit
          }),
        positionOf: (call) => ({ createdAt: call.createdAt, id: call.id }),
        invalidToken: (message) => new InvalidVoiceQuery({ parameter: "pageToken", message })
      }).pipe(Effect.provideService(ServerSecret, serverSecret))
      return { calls: page, nextPageToken }
    })

    /** Places an outbound call from one of the project's voice lines (a `started` signal, then the INVITE). */
    const create = fn("Calls.create")(function*(projectId: ProjectId, principal: Principal, input: CreateCallRequest) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write")
        const found = yield* lines.find(projectId, input.lineId)
        if (Option.isNone(found) || !found.value.line.voiceCapable) return yield* new VoiceLineNotFound({ lineId: input.lineId })
        const line = found.value
        const profileId = input.voiceProfileId ?? line.profileId
        const profile = profileId !== null
          ? yield* profiles.find(projectId, profileId)
          : yield* profiles.findDefault(projectId)
        if (Option.isNone(profile)) {
          return yield* (profileId !== null ? new VoiceProfileNotFound({ profileId }) : new VoiceDefaultProfileRequired())
        }
        const callId = CallId.make(yield* ids.typeId(IdKinds.call))
        const from = line.line.phoneNumber
        const data: CallStartedSignalData = {
          projectId,
          direction: "outbound",
          voiceProfile: { id: profile.value.profileId, endpoint: { type: "sip" } },
          space: { id: yield* voiceSpaceId(projectId, from, input.to), type: "direct" },
          caller: { id: yield* voiceUserId(projectId, from), handle: from },
          callee: { id: yield* voiceUserId(projectId, input.to), handle: input.to },
          metadata: {}
        }
        const signal: CallSignal = {
          id: CallSignalId.make(`api-create-${callId}`),
          callId,
          type: "started",
          timestamp: yield* DateTime.now,
          data
        }
        const t = apply(undefined, signal, NO_IDS)
        if (t.outcome !== "applied") return yield* Effect.die(new Error(`a new call did not start: ${t.detail}`))
        if (!(yield* commitNew(projectId, signal.id, t))) return yield* Effect.die(new Error(`call id ${callId} is taken`))
        yield* gateway.dial({
          projectId,
          callId,
          lineId: line.line.lineId,
          from,
          to: input.to,
          voiceProfileId: profile.value.profileId
        })
        return t.call
      }))
    })

    type Action = "cancel" | "reject" | "hangup"

    /** One call action: an `ended` signal through the machine, then the SIP command, in one transaction. */
    const act = (
      projectId: ProjectId,
      principal: Principal,
      callId: string,
      action: Action,
      rejectReason: "rejected" | "busy" = "rejected"
    ) =>
      tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write")
        const found = yield* repo.lock(projectId, callId)
        if (Option.isNone(found)) return yield* new CallNotFound({ callId })
        const call = found.value
        if (action === "cancel" && call.direction !== "outbound") {
          return yield* new CallActionNotAllowed({ callId, action, message: "only an outbound call can be canceled; reject an inbound one" })
        }
        if (action === "reject" && call.direction !== "inbound") {
          return yield* new CallActionNotAllowed({ callId, action, message: "only an inbound call can be rejected; cancel an outbound one" })
        }
        const now = yield* DateTime.now
        const latest = latestMilestone(call)
        const uuid = yield* ids.uuidv7()
        const signal: CallSignal = {
          id: CallSignalId.make(`api-${action}-${uuid}`),
          callId: call.id,
          type: "ended",
          // Never before the call's last milestone (the edge's clock may run ahead of ours).
          timestamp: DateTime.toEpochMillis(now) < DateTime.toEpochMillis(latest) ? latest : now,
          data: action === "cancel"
            ? { status: "canceled", reason: { sipCode: 487, hangupCause: "api_cancel" } }
            : action === "reject"
            ? { status: rejectReason, reason: { sipCode: rejectReason === "busy" ? 486 : 603, hangupCause: "api_reject" } }
            : { status: "completed", reason: { hangupCause: "api_hangup" } }
        }
        const t = apply(call, signal, NO_IDS)
        if (t.outcome !== "applied") {
          const message = t.outcome === "ignored" && t.reason === "call-terminal"
            ? `the call already ended as ${call.status}`
            : `a call that is ${call.status} cannot be ${action === "cancel" ? "canceled" : action === "reject" ? "rejected" : "hung up"}`
          return yield* new CallActionNotAllowed({ callId, action, message })
        }
        yield* commit(projectId, signal.id, t)
        if (action === "cancel") yield* gateway.cancel({ projectId, callId })
        else if (action === "reject") yield* gateway.reject({ projectId, callId, reason: rejectReason })
        else yield* gateway.hangup({ projectId, callId })
        return t.call
      }))

    const cancel = fn("Calls.cancel")(function*(projectId: ProjectId, principal: Principal, callId: string) {
      return yield* act(projectId, principal, callId, "cancel")
    })
    const reject = fn("Calls.reject")(function*(
      projectId: ProjectId,
      principal: Principal,
      callId: string,
      reason: "rejected" | "busy"
    ) {
      return yield* act(projectId, principal, callId, "reject", reason)
    })
    const hangup = fn("Calls.hangup")(function*(projectId: ProjectId, principal: Principal, callId: string) {
      return yield* act(projectId, principal, callId, "hangup")
    })

    return { applySignal, ingest, get, list, create, cancel, reject, hangup } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer, EventPublisher.layer]))
}
