/**
 * The Voice feature's memory layers: lines, voice profiles (with the lines' assignments) and calls
 * (with their applied signal ids) as tables of the shared `MemoryState`, so a rolled-back
 * transaction drops them too. Each operation is one synchronous step; transactions run one at a
 * time, which is what the SQL layer's row locks give concurrent signals of one call.
 *
 * Also two test doubles of non-store ports: a simulated `LineProvider` handing out fictional
 * numbers (`+1 NPA 555 01xx`, the range reserved for fiction), and a recording `SipGateway`
 * (`makeSipGatewayRecording`) whose commands a test reads back and which can be made to fail.
 */
import { type Voice } from "@switchboard/core"
import {
  CallsRepo,
  type Line,
  LineProvider,
  type LineRecord,
  LineUnavailable,
  LinesRepo,
  SipGateway,
  SipGatewayUnavailable,
  simulatedLineNumber,
  simulatedVoiceCapable,
  VoiceDefaultProfileExists,
  type VoiceProfileRecord,
  VoiceProfilesRepo
} from "@switchboard/core/voice"
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

type Call = Voice.Call

export const LINES_TABLE = "lines"
export const VOICE_PROFILES_TABLE = "voice_profiles"
export const CALLS_TABLE = "calls"
export const CALL_SIGNALS_TABLE = "call_signals"

interface CallRow {
  readonly projectId: string
  readonly call: Call
}

const byCreatedThenId = <A>(time: (a: A) => number, id: (a: A) => string) => (a: A, b: A) =>
  time(a) - time(b) || (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0)

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const lines = state.table<string, LineRecord>(LINES_TABLE)
  const profiles = state.table<string, VoiceProfileRecord>(VOICE_PROFILES_TABLE)
  const calls = state.table<string, CallRow>(CALLS_TABLE)
  const signals = state.table<string, true>(CALL_SIGNALS_TABLE)

  const activeLine = (projectId: string, lineId: string) => {
    const row = lines.get(lineId)
    return row !== undefined && row.line.projectId === projectId && row.releasedAt === null && row.line.phoneNumber !== ""
      ? row
      : undefined
  }
  const ownProfile = (projectId: string, profileId: string) => {
    const row = profiles.get(profileId)
    return row !== undefined && row.projectId === projectId ? row : undefined
  }
  const defaultOf = (projectId: string) => [...profiles.values()].find((p) => p.projectId === projectId && p.isDefault)
  const ownCall = (projectId: string, callId: string) => {
    const row = calls.get(callId)
    return row !== undefined && row.projectId === projectId ? row.call : undefined
  }

  const linesRepo = LinesRepo.of({
    insert: (line) =>
      Effect.sync(() => {
        lines.set(line.lineId, {
          line,
          releasedAt: null,
          profileId: null,
          assignmentVersion: 1,
          assignmentUpdatedAt: line.createdAt
        })
      }),
    listActive: (projectId) =>
      Effect.sync(() =>
        [...lines.values()]
          .filter((r) => r.line.projectId === projectId && r.releasedAt === null && r.line.phoneNumber !== "")
          .map((r) => r.line)
          .sort(byCreatedThenId((l: Line) => DateTime.toEpochMillis(l.createdAt), (l) => l.lineId))
      ),
    find: (projectId, lineId) => Effect.sync(() => Option.fromNullishOr(activeLine(projectId, lineId))),
    lock: (projectId, lineId) => Effect.sync(() => Option.fromNullishOr(activeLine(projectId, lineId))),
    release: ({ lineId, now, projectId }) =>
      Effect.sync(() => {
        const row = activeLine(projectId, lineId)
        if (row === undefined) return Option.none()
        lines.set(lineId, { ...row, releasedAt: now, profileId: null })
        return Option.some(row.line)
      })
  })

  const profilesRepo = VoiceProfilesRepo.of({
    insert: (record) =>
      Effect.suspend(() => {
        const existing = record.isDefault ? defaultOf(record.projectId) : undefined
        if (existing !== undefined) return Effect.fail(new VoiceDefaultProfileExists({ profileId: existing.profileId }))
        profiles.set(record.profileId, record)
        return Effect.void
      }),
    find: (projectId, profileId) => Effect.sync(() => Option.fromNullishOr(ownProfile(projectId, profileId))),
    findDefault: (projectId) => Effect.sync(() => Option.fromNullishOr(defaultOf(projectId))),
    lock: (projectId, profileId) => Effect.sync(() => Option.fromNullishOr(ownProfile(projectId, profileId))),
    lockDefault: (projectId) => Effect.sync(() => Option.fromNullishOr(defaultOf(projectId))),
    update: (record) =>
      Effect.sync(() => {
        if (ownProfile(record.projectId, record.profileId) !== undefined) profiles.set(record.profileId, record)
      }),
    remove: (projectId, profileId) =>
      Effect.sync(() => {
        if (ownProfile(projectId, profileId) !== undefined) profiles.delete(profileId)
      }),
    list: ({ after, isDefault, limit, projectId }) =>
      Effect.sync(() =>
        [...profiles.values()]
          .filter((p) =>
            p.projectId === projectId && (isDefault === undefined || p.isDefault === isDefault) &&
            (after === undefined || DateTime.toEpochMillis(p.createdAt) > DateTime.toEpochMillis(after.createdAt) ||
              (DateTime.toEpochMillis(p.createdAt) === DateTime.toEpochMillis(after.createdAt) && p.profileId > after.profileId))
          )
          .sort(byCreatedThenId((p: VoiceProfileRecord) => DateTime.toEpochMillis(p.createdAt), (p) => p.profileId))
          .slice(0, limit)
      ),
    lineCounts: (projectId, profileIds) =>
      Effect.sync(() => {
        const wanted = new Set(profileIds)
        const counts = new Map<string, number>()
        for (const r of lines.values()) {
          if (r.line.projectId === projectId && r.releasedAt === null && r.profileId !== null && wanted.has(r.profileId)) {
            counts.set(r.profileId, (counts.get(r.profileId) ?? 0) + 1)
          }
        }
        return counts
      }),
    defaultLineCount: (projectId) =>
      Effect.sync(() =>
        [...lines.values()].filter((r) =>
          r.line.projectId === projectId && r.releasedAt === null && r.line.voiceCapable && r.profileId === null
        ).length
      ),
    setAssignment: ({ lineId, profileId, projectId, updatedAt, version }) =>
      Effect.sync(() => {
        const row = activeLine(projectId, lineId)
        if (row !== undefined) lines.set(lineId, { ...row, profileId, assignmentVersion: version, assignmentUpdatedAt: updatedAt })
      }),
    clearAssignments: ({ now, profileId, projectId }) =>
      Effect.sync(() => {
        let n = 0
        for (const [lineId, row] of lines) {
          if (row.line.projectId === projectId && row.profileId === profileId) {
            lines.set(lineId, { ...row, profileId: null, assignmentVersion: row.assignmentVersion + 1, assignmentUpdatedAt: now })
            if (row.releasedAt === null) n++
          }
        }
        return n
      })
  })

  const callsRepo = CallsRepo.of({
    find: (projectId, callId) => Effect.sync(() => Option.fromNullishOr(ownCall(projectId, callId))),
    lock: (projectId, callId) => Effect.sync(() => Option.fromNullishOr(ownCall(projectId, callId))),
    // One fiber at a time runs a memory transaction: nothing to lock.
    lockCalls: () => Effect.void,
    lockForSignal: (projectId, callId, signalId) =>
      Effect.sync(() => {
        const call = ownCall(projectId, callId)
        return call === undefined ? Option.none() : Option.some({ call, signalApplied: signals.has(`${callId}\u0000${signalId}`) })
      }),
    insertApplied: ({ call, projectId, signalId }) =>
      Effect.sync(() => {
        if (calls.has(call.id)) return false
        calls.set(call.id, { projectId, call })
        signals.set(`${call.id}\u0000${signalId}`, true)
        return true
      }),
    updateApplied: ({ call, projectId, signalId }) =>
      Effect.sync(() => {
        if (ownCall(projectId, call.id) === undefined) return
        calls.set(call.id, { projectId, call })
        signals.set(`${call.id}\u0000${signalId}`, true)
      }),
    loadBatch: ({ callIds, profileIds, projectId, signalIds }) =>
      Effect.sync(() => {
        const found = new Map<string, { readonly call: Call; readonly applied: ReadonlySet<string> }>()
        const elsewhere = new Set<string>()
        for (const callId of callIds) {
          const row = calls.get(callId)
          if (row === undefined) continue
          if (row.projectId !== projectId) {
            elsewhere.add(callId)
            continue
          }
          found.set(callId, { call: row.call, applied: new Set(signalIds.filter((s) => signals.has(`${callId}\u0000${s}`))) })
        }
        return { calls: found, elsewhere, profiles: new Set(profileIds.filter((id) => ownProfile(projectId, id) !== undefined)) }
      }),
    writeBatch: ({ applied, created, projectId, updated }) =>
      Effect.sync(() => {
        if (created.some((c) => calls.has(c.id))) return false
        for (const call of created) calls.set(call.id, { projectId, call })
        for (const call of updated) if (ownCall(projectId, call.id) !== undefined) calls.set(call.id, { projectId, call })
        for (const a of applied) signals.set(`${a.callId}\u0000${a.signalId}`, true)
        return true
      }),
    list: ({ after, createdAfter, createdBefore, direction, limit, projectId, status }) =>
      Effect.sync(() =>
        [...calls.values()]
          .filter(({ call, projectId: p }) =>
            p === projectId &&
            (status === undefined || call.status === status) &&
            (direction === undefined || call.direction === direction) &&
            (createdAfter === undefined || DateTime.toEpochMillis(call.createdAt) > DateTime.toEpochMillis(createdAfter)) &&
            (createdBefore === undefined || DateTime.toEpochMillis(call.createdAt) < DateTime.toEpochMillis(createdBefore)) &&
            (after === undefined || DateTime.toEpochMillis(call.createdAt) < DateTime.toEpochMillis(after.createdAt) ||
              (DateTime.toEpochMillis(call.createdAt) === DateTime.toEpochMillis(after.createdAt) && call.id < after.callId))
          )
          .map((r) => r.call)
          .sort((a, b) => -byCreatedThenId((c: Call) => DateTime.toEpochMillis(c.createdAt), (c) => c.id)(a, b))
          .slice(0, limit)
      )
  })

  return Layer.mergeAll(
    Layer.succeed(LinesRepo, linesRepo),
    Layer.succeed(VoiceProfilesRepo, profilesRepo),
    Layer.succeed(CallsRepo, callsRepo)
  )
})

/**
 * A simulated line provider: fictional numbers in order, released ones handed out again (lowest
 * first). Numbers are voice-capable for the `voice` and `sms` platforms.
 */
export const LineProviderSimulatedMemory: Layer.Layer<LineProvider> = Layer.sync(LineProvider, () => {
  let next = 0
  const free: Array<number> = []
  const inUse = new Map<string, number>()
  return LineProvider.of({
    allocate: ({ platform }) =>
      Effect.suspend(() => {
        free.sort((a, b) => a - b)
        const n = free.shift() ?? next++
        const phoneNumber = simulatedLineNumber(n)
        if (phoneNumber === undefined) {
          return Effect.fail(new LineUnavailable({ platform, message: "the simulated number range is used up" }))
        }
        inUse.set(phoneNumber, n)
        return Effect.succeed({ phoneNumber, voiceCapable: simulatedVoiceCapable(platform) })
      }),
    release: ({ phoneNumber }) =>
      Effect.sync(() => {
        const n = inUse.get(phoneNumber)
        if (n !== undefined) {
          inUse.delete(phoneNumber)
          free.push(n)
        }
      })
  })
})

/** One command the SIP gateway was given. */
export type SipCommand =
  | { readonly _tag: "dial"; readonly projectId: string; readonly callId: string; readonly lineId: string; readonly from: string; readonly to: string; readonly voiceProfileId: string }
  | { readonly _tag: "cancel"; readonly projectId: string; readonly callId: string }
  | { readonly _tag: "reject"; readonly projectId: string; readonly callId: string; readonly reason: "rejected" | "busy" }
  | { readonly _tag: "hangup"; readonly projectId: string; readonly callId: string }

export interface SipGatewayRecordingShape {
  /** Every command, oldest first (including those of transactions that later rolled back). */
  readonly commands: ReadonlyArray<SipCommand>
  /** Makes the next command fail with `SipGatewayUnavailable`. */
  readonly failNext: (message?: string) => void
}

/** The recording gateway of `VoiceMemory`, for tests that run against `TestkitLive`. */
export class SipGatewayRecording extends Context.Service<SipGatewayRecording, SipGatewayRecordingShape>()("testkit/SipGatewayRecording") {}

/** A fresh recording `SipGateway`; pass `layer` where one is needed (e.g. as an HTTP test server's adapters). */
export const makeSipGatewayRecording = (): SipGatewayRecordingShape & {
  readonly layer: Layer.Layer<SipGateway | SipGatewayRecording>
} => {
  const commands: Array<SipCommand> = []
  let failure: string | undefined
  const record = (command: SipCommand) =>
    Effect.suspend(() => {
      if (failure !== undefined) {
        const message = failure
        failure = undefined
        return Effect.fail(new SipGatewayUnavailable({ message }))
      }
      commands.push(command)
      return Effect.void
    })
  const shape: SipGatewayRecordingShape = {
    commands,
    failNext: (message = "the SIP edge is unreachable") => {
      failure = message
    }
  }
  const gateway = SipGateway.of({
    dial: (a) => record({ _tag: "dial", ...a }),
    cancel: (a) => record({ _tag: "cancel", ...a }),
    reject: (a) => record({ _tag: "reject", ...a }),
    hangup: (a) => record({ _tag: "hangup", ...a })
  })
  return {
    ...shape,
    layer: Layer.mergeAll(Layer.succeed(SipGateway, gateway), Layer.succeed(SipGatewayRecording, shape))
  }
}

export const VoiceMemory: Layer.Layer<
  LinesRepo | VoiceProfilesRepo | CallsRepo | LineProvider | SipGateway | SipGatewayRecording,
  never,
  MemoryState
> = Layer.mergeAll(
  Layer.unwrap(make),
  LineProviderSimulatedMemory,
  Layer.suspend(() => makeSipGatewayRecording().layer)
)
