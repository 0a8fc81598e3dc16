/**
 * The call record (docs/api-notes/voice.md).
 */
import { describe, expect, it } from "@effect/vitest"
import { formatUuid, IdKinds, uuidv7Bytes } from "../../src/shared/Identifiers.js"
import {
  AnsweredCall, AnsweredCallTimestamps, Call, CallStatus, callStatuses, CallVoiceProfile, CanceledCall,
  ConnectedCallTimestamps, DtmfDigit, DtmfInputs, EndedAfterConnectCallTimestamps, EndedBeforeAnswerCallTimestamps,
  EndedCallTimestamps, KeyPress, LiveCallStatus, MAX_DTMF_INPUTS, RingingCallTimestamps, StartedCallTimestamps,
  TerminalCallStatus
} from "../../src/voice/Schema.js"
import { rejects, rejectsExtra, roundTrips, T0, typeId } from "./SchemaAssertions.js"

const without = <T extends Record<string, unknown>>(input: T, key: string): Record<string, unknown> => {
  const { [key]: _, ...rest } = input
  return rest
}

/** The wire form of T0 + `s` seconds. */
const t = (s: number) => new Date(T0 + s * 1000).toISOString()

const caller = typeId(IdKinds.user, 1)
const keyPress = (i: number) => ({ digit: DtmfDigit.literals[i % 12]!, timestamp: t(3 + i / 1000), actorId: caller })
const presses = (n: number) => Array.from({ length: n }, (_, i) => keyPress(i))

const baseCall = {
  id: typeId(IdKinds.call),
  projectId: formatUuid(uuidv7Bytes(T0, new Uint8Array(10).fill(9))),
  platform: "voice",
  createdAt: t(0),
  updatedAt: t(10),
  direction: "outbound",
  voiceProfile: { id: typeId(IdKinds.voiceProfile), endpoint: { type: "sip" } },
  space: { id: "space_1", type: "direct" },
  caller: { id: caller, handle: "+15551234567" },
  callee: { id: typeId(IdKinds.user, 2) },
  dtmfInputs: [] as Array<ReturnType<typeof keyPress>>,
  dtmfInputsTruncated: false,
  metadata: { campaign: "spring" }
}

const call = (status: string, timestamps: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  ...baseCall,
  status,
  timestamps,
  ...extra
})

/** A valid timestamps object for each status (docs/api-notes/voice.md). */
const timestampsOf = {
  started: { startedAt: t(0) },
  ringing: { startedAt: t(0), ringingAt: t(1) },
  answered: { startedAt: t(0), ringingAt: t(1), answeredAt: t(2) },
  connected: { startedAt: t(0), ringingAt: t(1), answeredAt: t(2), connectedAt: t(3) },
  completed: { startedAt: t(0), ringingAt: t(1), answeredAt: t(2), connectedAt: t(3), endedAt: t(9) },
  busy: { startedAt: t(0), ringingAt: t(1), endedAt: t(2) },
  "no-answer": { startedAt: t(0), ringingAt: t(1), endedAt: t(30) },
  rejected: { startedAt: t(0), endedAt: t(2) },
  canceled: { startedAt: t(0), ringingAt: t(1), endedAt: t(5) },
  failed: { startedAt: t(0), answeredAt: t(2), endedAt: t(4) }
} satisfies Record<CallStatus, Record<string, string>>

// ---------------------------------------------------------------------------------------------
// Statuses
// ---------------------------------------------------------------------------------------------

describe("CallStatus", () => {
  it("has exactly the ten statuses, with the spec's spellings", () => {
    expect([...callStatuses].sort()).toStrictEqual(
      ["answered", "busy", "canceled", "completed", "connected", "failed", "no-answer", "rejected", "ringing", "started"]
    )
    for (const s of callStatuses) roundTrips(CallStatus, s)
  })

  it("live and terminal statuses partition them", () => {
    const live = LiveCallStatus.literals as ReadonlyArray<string>
    const terminal = TerminalCallStatus.literals as ReadonlyArray<string>
    expect([...live, ...terminal].sort()).toStrictEqual([...callStatuses].sort())
    expect(live.filter((s) => terminal.includes(s))).toStrictEqual([])
  })

  it.each(["cancelled", "in-progress", "no_answer", "ended", ""])("rejects %j", (s) => {
    rejects(CallStatus, s)
    rejects(Call, call(s, timestampsOf.started))
  })
})

// ---------------------------------------------------------------------------------------------
// The call
// ---------------------------------------------------------------------------------------------

describe("Call", () => {
  it.each(callStatuses)("decodes and round-trips a %s call with its timestamps", (status) => {
    roundTrips(Call, call(status, timestampsOf[status]))
  })

  it("a failed call ends before answer or after answer (never after connect)", () => {
    roundTrips(Call, call("failed", { startedAt: t(0), ringingAt: t(1), endedAt: t(4) }))
    roundTrips(Call, call("failed", { startedAt: t(0), answeredAt: t(2), endedAt: t(4) }))
    rejects(Call, call("failed", timestampsOf.completed))
  })

  it("requires each common field", () => {
    const answered = call("answered", timestampsOf.answered)
    for (const key of Object.keys(answered)) rejects(Call, without(answered, key))
  })

  it.each([
    ["started", timestampsOf.ringing],
    ["ringing", timestampsOf.started],
    ["ringing", timestampsOf.answered],
    ["answered", timestampsOf.connected],
    ["answered", timestampsOf.busy],
    ["connected", timestampsOf.answered],
    ["connected", { startedAt: t(0), connectedAt: t(3) }],
    ["completed", timestampsOf.connected],
    ["completed", timestampsOf.failed],
    ["busy", timestampsOf.failed],
    ["no-answer", timestampsOf.answered],
    ["rejected", timestampsOf.completed],
    ["canceled", timestampsOf.failed],
    ["canceled", timestampsOf.ringing],
    ["failed", timestampsOf.connected]
  ] as const)("rejects a %s call with another status's timestamps", (status, timestamps) => {
    rejects(Call, call(status, timestamps))
  })

  it("rejects another platform, direction, endpoint type or profile id kind", () => {
    const answered = call("answered", timestampsOf.answered)
    roundTrips(Call, { ...answered, direction: "inbound" })
    rejects(Call, { ...answered, platform: "sms" })
    rejects(Call, { ...answered, direction: "internal" })
    rejects(Call, { ...answered, voiceProfile: { ...answered.voiceProfile, endpoint: { type: "webrtc" } } })
    rejects(Call, { ...answered, voiceProfile: { ...answered.voiceProfile, id: typeId(IdKinds.user) } })
    rejects(Call, { ...answered, space: { id: "space_1", type: "group" } })
    rejects(Call, { ...answered, caller: { id: typeId(IdKinds.account) } })
    rejects(Call, { ...answered, id: typeId(IdKinds.message) })
  })

  it("rejects extra properties at the top and in nested objects", () => {
    const answered = call("answered", timestampsOf.answered)
    rejectsExtra(Call, answered)
    rejectsExtra(AnsweredCall, answered)
    rejects(Call, { ...answered, timestamps: { ...timestampsOf.answered, hangupAt: t(5) } })
    rejects(Call, { ...answered, voiceProfile: { ...answered.voiceProfile, name: "default" } })
    rejects(Call, { ...answered, dtmfInputs: [{ ...keyPress(0), duration: 160 }] })
  })

  it("the per-status schema accepts only its own status", () => {
    roundTrips(CanceledCall, call("canceled", timestampsOf.canceled))
    rejects(CanceledCall, call("busy", timestampsOf.busy))
  })
})

// ---------------------------------------------------------------------------------------------
// Timestamps shapes (docs/api-notes/voice.md)
// ---------------------------------------------------------------------------------------------

describe("AnsweredCallTimestamps", () => {
  it("requires startedAt and answeredAt; ringingAt is optional", () => {
    roundTrips(AnsweredCallTimestamps, timestampsOf.answered)
    roundTrips(AnsweredCallTimestamps, { startedAt: t(0), answeredAt: t(2) })
    rejects(AnsweredCallTimestamps, without(timestampsOf.answered, "startedAt"))
    rejects(AnsweredCallTimestamps, without(timestampsOf.answered, "answeredAt"))
  })

  it.each(["connectedAt", "endedAt"])("forbids %s (in the shape and in an answered call)", (key) => {
    rejects(AnsweredCallTimestamps, { ...timestampsOf.answered, [key]: t(5) })
    rejects(AnsweredCallTimestamps, { ...timestampsOf.answered, [key]: null })
    rejects(Call, call("answered", { ...timestampsOf.answered, [key]: t(5) }))
  })
})

describe("timestamps shapes", () => {
  it("started: only startedAt", () => {
    roundTrips(StartedCallTimestamps, timestampsOf.started)
    for (const key of ["ringingAt", "answeredAt", "connectedAt", "endedAt"]) {
      rejects(StartedCallTimestamps, { ...timestampsOf.started, [key]: t(1) })
    }
  })

  it("ringing: startedAt and ringingAt, nothing later", () => {
    roundTrips(RingingCallTimestamps, timestampsOf.ringing)
    rejects(RingingCallTimestamps, timestampsOf.started)
    rejects(RingingCallTimestamps, { ...timestampsOf.ringing, answeredAt: t(2) })
  })

  it("connected: answeredAt and connectedAt required, endedAt forbidden", () => {
    roundTrips(ConnectedCallTimestamps, timestampsOf.connected)
    rejects(ConnectedCallTimestamps, without(timestampsOf.connected, "answeredAt"))
    rejects(ConnectedCallTimestamps, without(timestampsOf.connected, "connectedAt"))
    rejects(ConnectedCallTimestamps, { ...timestampsOf.connected, endedAt: t(9) })
  })

  it("ended-before-answer: endedAt required, answeredAt and connectedAt forbidden", () => {
    roundTrips(EndedBeforeAnswerCallTimestamps, timestampsOf.busy)
    roundTrips(EndedBeforeAnswerCallTimestamps, timestampsOf.rejected)
    rejects(EndedBeforeAnswerCallTimestamps, without(timestampsOf.busy, "endedAt"))
    rejects(EndedBeforeAnswerCallTimestamps, { ...timestampsOf.busy, answeredAt: t(1) })
    rejects(EndedBeforeAnswerCallTimestamps, { ...timestampsOf.busy, connectedAt: t(1) })
  })

  it("ended-after-connect: every milestone but ringingAt required", () => {
    roundTrips(EndedAfterConnectCallTimestamps, timestampsOf.completed)
    roundTrips(EndedAfterConnectCallTimestamps, without(timestampsOf.completed, "ringingAt"))
    for (const key of ["startedAt", "answeredAt", "connectedAt", "endedAt"]) {
      rejects(EndedAfterConnectCallTimestamps, without(timestampsOf.completed, key))
    }
  })

  it("generic ended: answeredAt optional, connectedAt forbidden", () => {
    roundTrips(EndedCallTimestamps, timestampsOf.failed)
    roundTrips(EndedCallTimestamps, timestampsOf.busy)
    rejects(EndedCallTimestamps, timestampsOf.completed)
    rejects(EndedCallTimestamps, without(timestampsOf.failed, "endedAt"))
  })

  it("milestones are ordered; equal instants are fine", () => {
    roundTrips(EndedAfterConnectCallTimestamps, { startedAt: t(1), ringingAt: t(1), answeredAt: t(1), connectedAt: t(1), endedAt: t(1) })
    rejects(RingingCallTimestamps, { startedAt: t(2), ringingAt: t(1) })
    rejects(AnsweredCallTimestamps, { startedAt: t(0), ringingAt: t(3), answeredAt: t(2) })
    rejects(AnsweredCallTimestamps, { startedAt: t(3), answeredAt: t(2) })
    rejects(ConnectedCallTimestamps, { startedAt: t(0), answeredAt: t(3), connectedAt: t(2) })
    rejects(EndedAfterConnectCallTimestamps, { ...timestampsOf.completed, endedAt: t(2) })
    rejects(EndedBeforeAnswerCallTimestamps, { startedAt: t(5), endedAt: t(4) })
    rejects(EndedCallTimestamps, { startedAt: t(0), answeredAt: t(5), endedAt: t(4) })
    rejects(Call, call("completed", { ...timestampsOf.completed, startedAt: t(20) }))
  })

  it("rejects offset and impossible timestamps", () => {
    rejects(StartedCallTimestamps, { startedAt: "2030-01-01T00:00:00+00:00" })
    rejects(StartedCallTimestamps, { startedAt: "2030-02-30T00:00:00Z" })
  })
})

// ---------------------------------------------------------------------------------------------
// DTMF (docs/api-notes/voice.md, dtmfInputs)
// ---------------------------------------------------------------------------------------------

describe("KeyPress and dtmfInputs", () => {
  it.each(["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#"])("accepts the digit %s", (digit) => {
    roundTrips(KeyPress, { digit, timestamp: t(3), actorId: caller })
  })

  it.each(["A", "a", "D", "w", "", "12", "**"])("rejects the digit %j", (digit) => {
    rejects(KeyPress, { digit, timestamp: t(3), actorId: caller })
  })

  it("rejects a numeric digit, a missing actor, an actor of another kind and an offset timestamp", () => {
    rejects(KeyPress, { digit: 1, timestamp: t(3), actorId: caller })
    rejects(KeyPress, { digit: "1", timestamp: t(3) })
    rejects(KeyPress, { digit: "1", timestamp: t(3), actorId: typeId(IdKinds.account) })
    rejects(KeyPress, { digit: "1", timestamp: "2030-01-01T00:00:03+00:00", actorId: caller })
  })

  it("dtmfInputs: 100 key presses ok, 101 rejected", () => {
    expect(MAX_DTMF_INPUTS).toBe(100)
    roundTrips(DtmfInputs, presses(100))
    rejects(DtmfInputs, presses(101))
    roundTrips(Call, call("connected", timestampsOf.connected, { dtmfInputs: presses(100) }))
    rejects(Call, call("connected", timestampsOf.connected, { dtmfInputs: presses(101) }))
  })

  it("keeps recording order, even when timestamps are not monotonic (docs/api-notes/voice.md)", () => {
    const outOfOrder = [keyPress(5), keyPress(1), keyPress(3)]
    roundTrips(Call, call("answered", timestampsOf.answered, { dtmfInputs: outOfOrder }))
  })

  it("dtmfInputsTruncated is true only with a full buffer (docs/api-notes/voice.md)", () => {
    roundTrips(Call, call("completed", timestampsOf.completed, { dtmfInputs: presses(100), dtmfInputsTruncated: true }))
    rejects(Call, call("completed", timestampsOf.completed, { dtmfInputs: presses(99), dtmfInputsTruncated: true }))
    rejects(Call, call("completed", timestampsOf.completed, { dtmfInputs: [], dtmfInputsTruncated: true }))
    roundTrips(Call, call("completed", timestampsOf.completed, { dtmfInputs: presses(100), dtmfInputsTruncated: false }))
    rejects(Call, call("completed", timestampsOf.completed, { dtmfInputsTruncated: "false" }))
  })

  it("CallVoiceProfile: a voice profile id and a sip endpoint", () => {
    roundTrips(CallVoiceProfile, baseCall.voiceProfile)
    rejects(CallVoiceProfile, { id: baseCall.voiceProfile.id })
    rejects(CallVoiceProfile, { id: baseCall.voiceProfile.id, endpoint: {} })
  })
})
