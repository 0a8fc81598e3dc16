/**
 * The reducer's whole transition table (docs/api-notes/voice.md): every from-state × every
 * signal kind, with the outcome, the reason, and the state it leads to. Each cell is written out,
 * so a change of any rule shows up as a changed row here.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { IdKinds } from "../../src/shared/Identifiers.js"
import { apply, run } from "../../src/voice/CallMachine.js"
import { CallSignal } from "../../src/voice/CallSignals.js"
import { Call } from "../../src/voice/Schema.js"
import { projectIdFixture, T0, typeId } from "../schema/SchemaAssertions.js"

const callId = typeId(IdKinds.call, 11)
const alice = typeId(IdKinds.user, 12)
const w = (s: number) => new Date(T0 + s * 1000).toISOString()
let counter = 0
const signal = (type: string, s: number, data: unknown = {}): CallSignal =>
  Schema.decodeUnknownSync(CallSignal)({ id: `t-${++counter}`, callId, type, timestamp: w(s), data })

const startedData = {
  projectId: projectIdFixture,
  direction: "inbound",
  voiceProfile: { id: typeId(IdKinds.voiceProfile, 13), endpoint: { type: "sip" } },
  space: { id: "space", type: "direct" },
  caller: { id: alice, handle: "+15550100" },
  callee: { id: typeId(IdKinds.user, 14) },
  metadata: {}
}

/** The signal kinds of the table's columns; each is sent at t = 50 s, after every path's milestones. */
const columns = {
  started: () => signal("started", 50, startedData),
  ringing: () => signal("ringing", 50),
  answered: () => signal("answered", 50),
  connected: () => signal("connected", 50),
  "dtmf 5": () => signal("dtmf", 50, { digit: "5", actorId: alice }),
  "dtmf A": () => signal("dtmf", 50, { digit: "A", actorId: alice }),
  "ended completed": () => signal("ended", 50, { status: "completed" }),
  "ended busy": () => signal("ended", 50, { status: "busy" }),
  "ended no-answer": () => signal("ended", 50, { status: "no-answer" }),
  "ended rejected": () => signal("ended", 50, { status: "rejected" }),
  "ended canceled": () => signal("ended", 50, { status: "canceled" }),
  "ended failed": () => signal("ended", 50, { status: "failed" })
} as const
type Column = keyof typeof columns

/** How each row's state is reached (each step applies). */
const rows = {
  none: () => [],
  started: () => [signal("started", 0, startedData)],
  ringing: () => [signal("started", 0, startedData), signal("ringing", 1)],
  answered: () => [signal("started", 0, startedData), signal("ringing", 1), signal("answered", 2)],
  connected: () => [signal("started", 0, startedData), signal("answered", 2), signal("connected", 3)],
  completed: () => [
    signal("started", 0, startedData), signal("answered", 2), signal("connected", 3), signal("ended", 9, { status: "completed" })
  ],
  busy: () => [signal("started", 0, startedData), signal("ended", 9, { status: "busy" })],
  "no-answer": () => [signal("started", 0, startedData), signal("ringing", 1), signal("ended", 9, { status: "no-answer" })],
  rejected: () => [signal("started", 0, startedData), signal("ended", 9, { status: "rejected" })],
  canceled: () => [signal("started", 0, startedData), signal("ringing", 1), signal("ended", 9, { status: "canceled" })],
  "failed before answer": () => [signal("started", 0, startedData), signal("ended", 9, { status: "failed" })],
  "failed after answer": () => [
    signal("started", 0, startedData), signal("answered", 2), signal("ended", 9, { status: "completed" })
  ]
} as const
type Row = keyof typeof rows

// Cell notation: "→<status>" applied (to that status); "ignored <reason>"; "rejected <reason>".
const U = "rejected unknown-call"
const S = "ignored stale-signal"
const T = "ignored call-terminal"
const E = "rejected end-not-allowed"
const D = "rejected dtmf-not-allowed"
const terminalRow: Record<Column, string> = {
  started: T, ringing: T, answered: T, connected: T, "dtmf 5": T, "dtmf A": T,
  "ended completed": T, "ended busy": T, "ended no-answer": T, "ended rejected": T, "ended canceled": T, "ended failed": T
}
const preAnswer = (from: "started" | "ringing"): Record<Column, string> => ({
  started: S,
  ringing: from === "started" ? "→ringing" : S,
  answered: "→answered",
  connected: "rejected answer-skipped",
  "dtmf 5": D,
  "dtmf A": D,
  "ended completed": E,
  "ended busy": "→busy",
  "ended no-answer": "→no-answer",
  "ended rejected": "→rejected",
  "ended canceled": "→canceled",
  "ended failed": "→failed"
})

const table: Record<Row, Record<Column, string>> = {
  none: {
    started: "→started", ringing: U, answered: U, connected: U, "dtmf 5": U, "dtmf A": U,
    "ended completed": U, "ended busy": U, "ended no-answer": U, "ended rejected": U, "ended canceled": U, "ended failed": U
  },
  started: preAnswer("started"),
  ringing: preAnswer("ringing"),
  answered: {
    started: S, ringing: S, answered: S, connected: "→connected", "dtmf 5": "→answered", "dtmf A": "rejected invalid-digit",
    "ended completed": "→failed", "ended busy": E, "ended no-answer": E, "ended rejected": E, "ended canceled": E,
    "ended failed": "→failed"
  },
  connected: {
    started: S, ringing: S, answered: S, connected: S, "dtmf 5": "→connected", "dtmf A": "rejected invalid-digit",
    "ended completed": "→completed", "ended busy": E, "ended no-answer": E, "ended rejected": E, "ended canceled": E,
    "ended failed": "→completed"
  },
  completed: terminalRow,
  busy: terminalRow,
  "no-answer": terminalRow,
  rejected: terminalRow,
  canceled: terminalRow,
  "failed before answer": terminalRow,
  "failed after answer": terminalRow
}

const cells = (Object.keys(table) as Array<Row>).flatMap((row) =>
  (Object.keys(columns) as Array<Column>).map((column) => ({ row, column, expected: table[row][column] }))
)

const encodeCall = Schema.encodeSync(Call)

describe("CallMachine: the whole transition table (every state × every signal)", () => {
  it("covers 12 states × 12 signal kinds", () => {
    expect(cells).toHaveLength(144)
  })

  it.each(cells)("$row × $column → $expected", ({ column, expected, row }) => {
    const reached = run(rows[row]())
    for (const t of reached.transitions) expect(t.outcome).toBe("applied")
    const before = reached.state.call
    const t = apply(before, columns[column](), reached.state.appliedSignalIds)
    const got = t.outcome === "applied" ? `→${t.call.status}` : `${t.outcome} ${t.reason}`
    expect(got).toBe(expected)
    if (t.outcome === "applied") {
      // One event, its timestamp the signal's; the new call passes the strict schema.
      expect(t.events).toHaveLength(1)
      expect(t.events[0].timestamp.epochMilliseconds).toBe(T0 + 50_000)
      expect(Schema.is(Call)(t.call)).toBe(true)
    } else {
      // No change, no event.
      expect(t.events).toEqual([])
      expect(t.call).toBe(before)
      if (before !== undefined) expect(encodeCall(t.call!)).toStrictEqual(encodeCall(before))
    }
  })
})
