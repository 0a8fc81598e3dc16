/**
 * Calls (API.md §1.5; reference/calls.md): the call records, driven only through the pure reducer
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
 */
import { Data, DateTime, Effect, Option } from "effect"
import { EventPublisher } from "../events/EventsFeature.js"
import type { Principal } from "../credentials/Access.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { canonicalJson } from "../shared/Idempotency.js"
import { CallId, encodeBase32Uuid, IdKinds, type ProjectId, UserId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { createdAtPage } from "../shared/PageToken.js"
import { Transactor } from "../shared/Ports.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import type { CallSignalResult, CreateCallRequest } from "./CallApiSchema.js"
import { callEventSource } from "./CallEvents.js"
import { encodeCallEventData } from "./CallWire.js"
import { apply, type CallTransition } from "./CallMachine.js"
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
import { fn } from "../shared/Traced.js"

const DEFAULT_PAGE_SIZE = 20

/** A new call of a signal batch was created by another transaction between the batch's read and write. */
class BatchRace extends Data.TaggedError("BatchRace")<{}> {}
const NO_IDS: ReadonlySet<CallSignalId> = new Set()

/** What an ignored or rejected signal says, and the reason codes the service adds to the machine's. */
export type CallServiceRejection =
  | "project-mismatch" // a `started` signal whose data names another project
  | "unknown-voice-profile" // a `started` signal naming a profile the project does not have
  | "call-id-taken" // a `started` signal for a call id another project uses

/** The latest lifecycle milestone of a call (they are ordered, so the largest). */
const latestMilestone = (call: Call): DateTime.Utc => {
  const t = call.timestamps as Partial<Record<string, DateTime.Utc>>
  let latest = call.timestamps.startedAt
  for (const key of ["ringingAt", "answeredAt", "connectedAt", "endedAt"]) {
    const at = t[key]
    if (at !== undefined && at.epochMillis > latest.epochMillis) latest = at
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

export class Calls extends Effect.Service<Calls>()("core/Calls", {
  effect: Effect.gen(function*() {
    const repo = yield* CallsRepo
    const lines = yield* LinesRepo
    const profiles = yield* VoiceProfilesRepo
    const gateway = yield* SipGateway
    const publisher = yield* EventPublisher
    const ids = yield* Ids
    const tx = yield* Transactor
    const serverSecret = yield* ServerSecret
    const gate = yield* makeProjectGate

    /** Writes an applied transition: the call with the signal id, then the event. Inside the caller's transaction. */
    const commit = (projectId: string, signalId: string, t: CallTransition & { outcome: "applied" }) =>
      Effect.gen(function*() {
        yield* repo.updateApplied({ projectId, call: t.call, signalId, appliedAt: t.events[0].timestamp })
        yield* publish(projectId, t)
      })

    const publish = (projectId: string, t: CallTransition & { outcome: "applied" }) => {
      const source = callEventSource(projectId, t.call.id)
      return publisher.publish(projectId, t.events.map((e) => ({
        type: e.type,
        source,
        timestamp: e.timestamp,
        data: encodeCallEventData(e)
      })))
    }

    /** Stores a new call with the signal that created it and its event; false when the id is taken. */
    const commitNew = (projectId: string, signalId: string, t: CallTransition & { outcome: "applied" }) =>
      Effect.gen(function*() {
        const inserted = yield* repo.insertApplied({ projectId, call: t.call, signalId, appliedAt: t.events[0].timestamp })
        if (inserted) yield* publish(projectId, t)
        return inserted
      })

    const result = (signal: CallSignal, t: CallTransition): CallSignalResult => ({
      id: signal.id,
      outcome: t.outcome,
      ...(t.outcome === "applied" ? {} : { reason: t.reason }),
      ...(t.call === undefined ? {} : { call: t.call })
    })

    const refused = (signal: CallSignal, reason: CallServiceRejection, call?: Call): CallSignalResult => ({
      id: signal.id,
      outcome: "rejected",
      reason,
      ...(call === undefined ? {} : { call })
    })

    /**
     * Applies one signal in its own transaction (API.md §1.5 ingestCallSignals; calls.md §3): the
     * call's row is locked for the whole read-decide-write.
     */
    const applySignal = fn("Calls.applySignal")(function*(projectId: string, signal: CallSignal) {
      return yield* tx.withTransaction(applyInTransaction(projectId, signal))
    })

    /** One signal's read-decide-write, inside the caller's transaction (the call row stays locked). */
    const applyInTransaction = (projectId: string, signal: CallSignal) =>
      Effect.gen(function*(): Effect.fn.Return<CallSignalResult> {
        let locked = yield* repo.lockForSignal(projectId, signal.callId, signal.id)
        if (Option.isNone(locked) && signal.type === "started") {
          if (signal.data.projectId !== projectId) return refused(signal, "project-mismatch")
          const profile = yield* profiles.find(projectId, signal.data.voiceProfile.id)
          if (Option.isNone(profile)) return refused(signal, "unknown-voice-profile")
          const t = apply(undefined, signal, NO_IDS)
          if (t.outcome !== "applied") return result(signal, t)
          if (yield* commitNew(projectId, signal.id, t)) return result(signal, t)
          // Another transaction created it first (or another project holds the id).
          locked = yield* repo.lockForSignal(projectId, signal.callId, signal.id)
          if (Option.isNone(locked)) return refused(signal, "call-id-taken")
        }
        const current = Option.getOrUndefined(locked)
        const t = apply(current?.call, signal, current?.signalApplied === true ? new Set([signal.id]) : NO_IDS)
        if (t.outcome === "applied") yield* commit(projectId, signal.id, t)
        return result(signal, t)
      })

    /**
     * A batch, set-based: one read of the batch's calls (locked, in call-id order), of which of its
     * signals they have applied and of the voice profiles its `started` signals name; every signal
     * decided in order by the pure reducer on the calls in memory; then one write of the new calls,
     * changed calls and applied signal ids, and one of the events. The same results, calls and
     * events as one signal at a time (V1VoiceBatch.test.ts).
     */
    const applyBatch = (projectId: string, signals: ReadonlyArray<CallSignal>) =>
      Effect.gen(function*() {
        const profileIds = new Set<string>()
        for (const s of signals) if (s.type === "started") profileIds.add(s.data.voiceProfile.id)
        const loaded = yield* repo.loadBatch({
          projectId,
          callIds: [...new Set(signals.map((s) => s.callId))],
          signalIds: [...new Set(signals.map((s) => s.id))],
          profileIds: [...profileIds]
        })
        const state = new Map<string, { call: Call; applied: Set<string> }>()
        for (const [id, c] of loaded.calls) state.set(id, { call: c.call, applied: new Set(c.applied) })
        const created = new Set<string>()
        const changed = new Set<string>()
        const applied: Array<{ readonly callId: string; readonly signalId: string; readonly appliedAt: DateTime.Utc }> = []
        const transitions: Array<CallTransition & { outcome: "applied" }> = []
        const results: Array<CallSignalResult> = []
        for (const signal of signals) {
          const current = state.get(signal.callId)
          if (current === undefined && signal.type === "started") {
            if (signal.data.projectId !== projectId) {
              results.push(refused(signal, "project-mismatch"))
              continue
            }
            if (!loaded.profiles.has(signal.data.voiceProfile.id)) {
              results.push(refused(signal, "unknown-voice-profile"))
              continue
            }
            const t = apply(undefined, signal, NO_IDS)
            if (t.outcome !== "applied") {
              results.push(result(signal, t))
              continue
            }
            if (loaded.elsewhere.has(signal.callId)) {
              results.push(refused(signal, "call-id-taken"))
              continue
            }
            state.set(signal.callId, { call: t.call, applied: new Set([signal.id]) })
            created.add(signal.callId)
            applied.push({ callId: signal.callId, signalId: signal.id, appliedAt: t.events[0].timestamp })
            transitions.push(t)
            results.push(result(signal, t))
            continue
          }
          const t = apply(current?.call, signal, current?.applied.has(signal.id) === true ? new Set([signal.id]) : NO_IDS)
          if (t.outcome === "applied" && current !== undefined) {
            current.call = t.call
            current.applied.add(signal.id)
            if (!created.has(signal.callId)) changed.add(signal.callId)
            applied.push({ callId: signal.callId, signalId: signal.id, appliedAt: t.events[0].timestamp })
            transitions.push(t)
          }
          results.push(result(signal, t))
        }
        const written = yield* repo.writeBatch({
          projectId,
          created: [...created].map((id) => state.get(id)!.call),
          updated: [...changed].map((id) => state.get(id)!.call),
          applied
        })
        if (!written) return yield* new BatchRace()
        const source = (t: CallTransition & { outcome: "applied" }) => callEventSource(projectId, t.call.id)
        if (transitions.length > 0) {
          yield* publisher.publish(projectId, transitions.flatMap((t) =>
            t.events.map((e) => ({ type: e.type, source: source(t), timestamp: e.timestamp, data: encodeCallEventData(e) }))))
        }
        return results
      })

    /**
     * A batch of signals from the SIP edge, in one transaction, set-based (`applyBatch`). Should a
     * new call of the batch be created by another transaction meanwhile, the batch is rolled back
     * and applied again one signal at a time (still one transaction, the calls locked together in
     * call-id order) — the same results, calls and events either way.
     */
    const ingest = fn("Calls.ingest")(function*(
      projectId: ProjectId,
      principal: Principal,
      signals: ReadonlyArray<CallSignal>
    ) {
      yield* gate.open(projectId, principal, "write")
      const batched = yield* tx.withTransaction(applyBatch(projectId, signals)).pipe(
        Effect.catchTag("BatchRace", () => Effect.succeed(undefined))
      )
      if (batched !== undefined) return batched
      // A new call of the batch was created by another transaction meanwhile: one signal at a time,
      // in one transaction, exactly as the machine decides for each.
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* repo.lockCalls(projectId, [...new Set(signals.map((s) => s.callId))])
        return yield* Effect.forEach(signals, (signal) => applyInTransaction(projectId, signal))
      }))
    })

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
        createdAfter: input.createdAfter?.epochMillis ?? null,
        createdBefore: input.createdBefore?.epochMillis ?? null
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
        if (t.outcome !== "applied") return yield* Effect.dieMessage(`a new call did not start: ${t.detail}`)
        if (!(yield* commitNew(projectId, signal.id, t))) return yield* Effect.dieMessage(`call id ${callId} is taken`)
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
          timestamp: now.epochMillis < latest.epochMillis ? latest : now,
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
  }),
  dependencies: [Ids.Default, EventPublisher.Default]
}) {}
