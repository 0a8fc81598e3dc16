/**
 * Signals from the SIP edge (docs/api-notes/voice.md ingestCallSignals): applied in
 * order, a batch in one transaction — the batch's call rows are locked (`CallsRepo.lockCalls`, so
 * concurrent batches for one call serialise), the reducer `CallMachine.apply` decides each signal,
 * and on `applied` the call, the signal's id and the transition's event (outbox) are written.
 * Ignored and rejected signals write nothing. The writes (`makeCallCommits`) are shared with the
 * API actions of `Calls.ts`.
 */
import { Data, DateTime, Effect, Option } from "effect"
import { EventPublisher } from "../events/EventsFeature.js"
import type { Principal } from "../credentials/Access.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { fn } from "../internal/Traced.js"
import type { CallSignalResult } from "./CallApiSchema.js"
import { callEventSource } from "./CallEvents.js"
import { apply, type CallTransition } from "./CallMachine.js"
import type { CallSignal, CallSignalId } from "./CallSignals.js"
import { encodeCallEventData } from "./CallWire.js"
import { CallsRepo, VoiceProfilesRepo } from "./Ports.js"
import type { Call } from "./Schema.js"

/** A new call of a signal batch was created by another transaction between the batch's read and write. */
class BatchRace extends Data.TaggedError("BatchRace")<{}> {}
export const NO_IDS: ReadonlySet<CallSignalId> = new Set()

/** What an ignored or rejected signal says, and the reason codes the service adds to the machine's. */
export type CallServiceRejection =
  | "project-mismatch" // a `started` signal whose data names another project
  | "unknown-voice-profile" // a `started` signal naming a profile the project does not have
  | "call-id-taken" // a `started` signal for a call id another project uses

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

/** Writing an applied transition (the call, the signal's id, the event), inside the caller's transaction. */
export const makeCallCommits = Effect.gen(function*() {
  const repo = yield* CallsRepo
  const publisher = yield* EventPublisher

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
  return { commit, commitNew } as const
})

export type CallCommits = Effect.Success<typeof makeCallCommits>

export const makeCallIngest = (commits: CallCommits) =>
  Effect.gen(function*() {
    const repo = yield* CallsRepo
    const profiles = yield* VoiceProfilesRepo
    const publisher = yield* EventPublisher
    const tx = yield* Transactor
    const gate = yield* makeProjectGate
    const { commit, commitNew } = commits

    /**
     * Applies one signal in its own transaction (docs/api-notes/voice.md ingestCallSignals): the
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

    return { applySignal, ingest } as const
  })
