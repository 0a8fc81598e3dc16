/**
 * Call-signal ingestion benchmark (docs/architecture.md#hot-paths: a hot path). Every call is 25
 * signals (started, ringing, answered, connected, 20 key presses, ended); a batch is 4 whole calls,
 * 100 signals. Each number comes with a baseline measured in the same run:
 *
 * 1. In process — the pure reducer `CallMachine.apply` folding whole calls, µs per signal, against
 *    decoding the same signals with their schema (what any implementation pays per signal).
 * 2. Over HTTP, the goal's number — `POST /v1/projects/{id}/platforms/voice/calls/signals` on the
 *    real server (in this process, started as the tests do; the senders run in a child process,
 *    `calls-sender.ts`, so this process's CPU time is the server's), every signal must be
 *    `applied`; against a **multi-row INSERT baseline**: the rows such a batch writes — 4 call
 *    rows (the final records, as stored), 100 applied signal ids and 100 events (as stored) —
 *    inserted with one multi-row INSERT per table in one transaction through the raw driver (`pg`
 *    on PostgreSQL, PGlite's own API on PGlite) into scratch tables of the same shape (keys,
 *    indexes, foreign key), by as many concurrent loops as there are HTTP senders. Reported as rows/s
 *    and as signals/s equivalent (one batch's rows = 100 signals).
 * 3. The same HTTP load against a raw `node:http` handler that parses the batch, decodes every
 *    signal and applies it to calls in a `Map` (no database, no Effect HTTP stack).
 *
 *   npx tsx bench/calls.ts              # or: npm run bench:calls
 *   BENCH_SECONDS=3 npx tsx bench/calls.ts
 *   BENCH_BACKEND=postgres DATABASE_URL=postgres://… npx tsx bench/calls.ts
 *
 * Environment:
 *   BENCH_SECONDS      length of each measured run in seconds (default 5)
 *   BENCH_CONNECTIONS  concurrent HTTP senders, and baseline loops (default 4)
 *   BENCH_BACKEND      pglite (default) or postgres (uses DATABASE_URL)
 *
 * Any failed request or baseline statement aborts the run (exit 1). The last stdout line is the
 * JSON summary read by `npm run bench`. There are no speed thresholds: it is a report, not a test.
 */
import { Events, Voice } from "@switchboard/core"
import { formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import { CallMachine, CallSignal, callEventSource } from "@switchboard/core/voice"
import { DateTime, Schema } from "effect"
import { createServer, type Server } from "node:http"
import { performance } from "node:perf_hooks"
import { startTestServer, type TestServer } from "../packages/http-adapter/test/support/TestServer.js"
import { signalLoadInChild, voiceFixture } from "./calls-load.js"
import { BATCH, CALLS_PER_BATCH, PRESSES, SIGNALS_PER_CALL, wholeCall } from "./calls-signals.js"
import { type Baseline, insertBaseline, multiRowInsert } from "./insert-baseline.js"
import { backendFromEnv, BenchFailure, closeServer, fmt, listenLocal, mean, positiveInt, runBench } from "./lib.js"

const SECONDS = positiveInt("calls", "BENCH_SECONDS", 5)
const CONNECTIONS = positiveInt("calls", "BENCH_CONNECTIONS", 4)
const BACKEND = backendFromEnv("calls")
const WARMUP_SECONDS = 1
const ROUNDS = 2
const GOAL = BACKEND === "postgres" ? 5000 : 1500
const GOAL_TEXT = BACKEND === "postgres" ? "≥ 5 000 signals/s" : "≥ 1 500 signals/s"

const decodeSignal = Schema.decodeUnknownSync(CallSignal)
const encodeCall = Schema.encodeSync(Voice.Call)
const encodeDraft = Schema.encodeSync(CallMachine.CallEventDraft)

// ---------------------------------------------------------------------------------------------
// 1. The reducer.

/** Applies one call's signals with the reducer, applied ids kept as the service keeps them. */
const foldCall = (signals: ReadonlyArray<CallSignal>) => {
  let call: CallMachine.CallTransition["call"] = undefined
  const applied = new Set<string>()
  const events: Array<CallMachine.CallEventDraft> = []
  for (const s of signals) {
    const t = CallMachine.apply(call, s, applied as unknown as ReadonlySet<never>)
    if (t.outcome !== "applied") throw new BenchFailure(`reducer: ${s.type} was ${t.outcome}`)
    call = t.call
    applied.add(s.id)
    events.push(...t.events)
  }
  return { call: call!, events }
}

/** Runs `work` (which handles `perRun` signals) repeatedly for about `seconds`; returns µs per signal. */
const timeLoop = (seconds: number, perRun: number, work: () => void) => {
  const deadline = performance.now() + seconds * 1000
  let signals = 0
  const t0 = performance.now()
  do {
    work()
    signals += perRun
  } while (performance.now() < deadline)
  return ((performance.now() - t0) * 1000) / signals
}

const benchReducer = () => {
  const projectId = "01890a5d-ac96-774b-bcce-b302099a8057"
  const profileId = formatTypeId(IdKinds.voiceProfile, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10))))
  const wire = Array.from({ length: 200 }, () => wholeCall(projectId, profileId))
  const decoded = wire.map((c) => c.map((s) => decodeSignal(s)))
  const perRun = wire.length * SIGNALS_PER_CALL
  const fold = () => decoded.forEach(foldCall)
  const decode = () => wire.forEach((c) => c.forEach((s) => decodeSignal(s)))
  timeLoop(WARMUP_SECONDS / 2, perRun, fold)
  timeLoop(WARMUP_SECONDS / 2, perRun, decode)
  const reducer: Array<number> = []
  const decoding: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    reducer.push(timeLoop(SECONDS / 4, perRun, fold))
    decoding.push(timeLoop(SECONDS / 4, perRun, decode))
  }
  return { reducerUs: mean(reducer), decodeUs: mean(decoding) }
}

// ---------------------------------------------------------------------------------------------
// 2. The multi-row INSERT baseline.

/** The scratch tables: the shape of `calls`, `call_signals` and `events` (migrations 0009, 0012). */
const SCRATCH = [
  `create table bench_calls (
    call_id text collate "C" primary key, project_id uuid not null, status text not null, direction text not null,
    created_at timestamptz not null, record json not null)`,
  "create index bench_calls_by_project on bench_calls (project_id, created_at desc, call_id desc)",
  "create index bench_calls_by_project_status on bench_calls (project_id, status, created_at desc, call_id desc)",
  `create table bench_call_signals (
    call_id text collate "C" not null references bench_calls (call_id), signal_id text collate "C" not null,
    applied_at timestamptz not null, primary key (call_id, signal_id))`,
  `create table bench_events (
    position bigserial primary key, id text not null unique, project_id uuid, type text not null, source text not null,
    occurred_at timestamptz not null, api_version text not null, data jsonb not null, dispatched_at timestamptz)`,
  "create index bench_events_project on bench_events (project_id, position)",
  "create index bench_events_undispatched on bench_events (position) where dispatched_at is null"
]

const CALL_COLS = ["call_id", "project_id", "status", "direction", "created_at", "record"]
const SIGNAL_COLS = ["call_id", "signal_id", "applied_at"]
const EVENT_COLS = ["id", "project_id", "type", "source", "occurred_at", "api_version", "data"]
const INSERT_CALLS = multiRowInsert("bench_calls", CALL_COLS, CALLS_PER_BATCH)
const INSERT_SIGNALS = multiRowInsert("bench_call_signals", SIGNAL_COLS, BATCH)
const INSERT_EVENTS = multiRowInsert("bench_events", EVENT_COLS, BATCH)
const ROWS_PER_BATCH = CALLS_PER_BATCH + 2 * BATCH

/**
 * One template call as the server stores it: the final record's JSON, its signals' ids and times,
 * its events' type, time and data JSON. Each batch copies it with fresh ids.
 */
const template = (projectId: string, profileId: string) => {
  const signals = wholeCall(projectId, profileId).map((s) => decodeSignal(s))
  const { call, events } = foldCall(signals)
  return {
    callId: call.id as string,
    status: call.status,
    direction: call.direction,
    createdAt: new Date(DateTime.toEpochMillis(call.createdAt)).toISOString(),
    record: JSON.stringify(encodeCall(call)),
    signals: signals.map((s) => ({ suffix: s.id.slice(call.id.length), at: new Date(DateTime.toEpochMillis(s.timestamp)).toISOString() })),
    events: events.map((e) => ({ type: e.type, at: new Date(DateTime.toEpochMillis(e.timestamp)).toISOString(), data: JSON.stringify(encodeDraft(e).data) }))
  }
}

/** The parameters of one batch's three INSERTs, with fresh call and event ids. */
const batchParams = (projectId: string, t: ReturnType<typeof template>) => {
  const calls: Array<unknown> = []
  const signals: Array<unknown> = []
  const events: Array<unknown> = []
  for (let c = 0; c < CALLS_PER_BATCH; c++) {
    const now = Date.now()
    const callId = formatTypeId(IdKinds.call, uuidv7Bytes(now, crypto.getRandomValues(new Uint8Array(10))))
    calls.push(callId, projectId, t.status, t.direction, t.createdAt, t.record.replaceAll(t.callId, callId))
    for (const s of t.signals) signals.push(callId, `${callId}${s.suffix}`, s.at)
    const source = callEventSource(projectId, callId)
    for (const e of t.events) {
      const id = formatTypeId(IdKinds.event, uuidv7Bytes(now, crypto.getRandomValues(new Uint8Array(10))))
      events.push(id, projectId, e.type, source, e.at, Events.EVENT_API_VERSION, e.data.replaceAll(t.callId, callId))
    }
  }
  return { calls, signals, events }
}

// ---------------------------------------------------------------------------------------------
// 3. The raw node:http handler.

/** Parses the batch, decodes every signal, applies it to calls kept in a Map; answers the outcomes. */
const startRawHandler = async (): Promise<{ server: Server; url: string }> => {
  const calls = new Map<string, { call: CallMachine.CallTransition["call"]; ids: Set<string> }>()
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { signals: ReadonlyArray<unknown> }
      const results = body.signals.map((raw) => {
        const s = decodeSignal(raw)
        const entry = calls.get(s.callId) ?? { call: undefined, ids: new Set<string>() }
        const t = CallMachine.apply(entry.call, s, entry.ids as unknown as ReadonlySet<never>)
        if (t.outcome === "applied") {
          entry.call = t.call
          entry.ids.add(s.id)
          calls.set(s.callId, entry)
        }
        return { id: s.id, outcome: t.outcome }
      })
      const out = Buffer.from(JSON.stringify({ results }))
      res.writeHead(200, { "content-type": "application/json", "content-length": out.length })
      res.end(out)
    })
  })
  const { origin } = await listenLocal(server)
  return { server, url: `${origin}/signals` }
}

// ---------------------------------------------------------------------------------------------

interface Measured {
  readonly signalsPerSecond: number
  readonly p50: number | undefined
  readonly cpuUsPerSignal: number | undefined
}

const main = async (): Promise<number> => {
  const t0 = Date.now()
  let server: TestServer | undefined
  let raw: Server | undefined
  let baseline: Baseline | undefined
  try {
    console.log(`bench:calls (${BACKEND}) — ${SECONDS} s per measured run, ${ROUNDS} rounds, ${CONNECTIONS} senders; ` +
      `batches of ${BATCH} signals = ${CALLS_PER_BATCH} calls of ${SIGNALS_PER_CALL} (started, ringing, answered, connected, ${PRESSES} key presses, ended)`)
    console.log("")
    console.log("1. In process: CallMachine.apply vs decoding the signal with its schema")
    const r = benchReducer()
    console.log(`   reducer  ${fmt(r.reducerUs, 3)} µs/signal  (${fmt(1e6 / r.reducerUs)} signals/s on one core)`)
    console.log(`   decode   ${fmt(r.decodeUs, 3)} µs/signal  (Schema.decodeUnknownSync(CallSignal), the baseline)`)
    console.log(`   ratio    the reducer costs ${fmt(r.reducerUs / r.decodeUs, 2)}x decoding its input`)
    console.log("")

    server = await startTestServer(BACKEND)
    const target = await voiceFixture(server)
    const rawHandler = await startRawHandler()
    raw = rawHandler.server
    const t = template(target.projectId, target.profileId)
    baseline = await insertBaseline({
      backend: BACKEND,
      name: "calls",
      scratch: SCRATCH,
      connections: CONNECTIONS,
      batch: () => {
        const p = batchParams(target.projectId, t)
        return [[INSERT_CALLS, p.calls], [INSERT_SIGNALS, p.signals], [INSERT_EVENTS, p.events]]
      }
    })
    console.log(`   (setup ${fmt((Date.now() - t0) / 1000, 1)} s)`)
    console.log(`2. HTTP, batches of ${BATCH} (senders in a child process) vs the multi-row INSERT baseline (raw ${BACKEND === "postgres" ? "pg" : "PGlite"}, ${CONNECTIONS} loops)`)
    console.log(`3. HTTP vs a raw node:http handler (no database)`)

    const B = baseline
    type Target = { readonly name: string; readonly run: (seconds: number) => Promise<Measured> }
    const http = (name: string, url: string, headers: Record<string, string>): Target => ({
      name,
      run: async (seconds) => {
        const cpu = process.cpuUsage()
        const load = await signalLoadInChild({ url, headers, projectId: target.projectId, profileId: target.profileId, connections: CONNECTIONS, seconds, label: name })
        const used = process.cpuUsage(cpu)
        return { signalsPerSecond: load.signalsPerSecond, p50: load.p50, cpuUsPerSignal: (used.user + used.system) / Math.max(load.signals, 1) }
      }
    })
    const targets: ReadonlyArray<Target> = [
      http(`switchboard (${BACKEND})`, target.url, target.headers),
      {
        name: "multi-row INSERT baseline",
        run: async (seconds) => {
          const b = await B.run(seconds)
          return { signalsPerSecond: (b.batches * BATCH) / b.seconds, p50: undefined, cpuUsPerSignal: undefined }
        }
      },
      http("raw node:http + reducer in a Map", rawHandler.url, { "content-type": "application/json" })
    ]
    const width = Math.max(...targets.map((x) => x.name.length)) + 1
    // Warm-up (not counted): the JIT, the pools, the tables' first pages.
    for (const x of targets) await x.run(2 * WARMUP_SECONDS)
    const runs = new Map<string, Array<Measured>>(targets.map((x) => [x.name, []]))
    for (let round = 1; round <= ROUNDS; round++) {
      for (const x of targets) {
        const m = await x.run(SECONDS)
        runs.get(x.name)!.push(m)
        console.log(`   run ${round} ${x.name.padEnd(width)} ${fmt(m.signalsPerSecond).padStart(8)} signals/s` +
          (m.p50 === undefined ? "" : `  batch p50 ${fmt(m.p50, 1)} ms`) +
          (m.cpuUsPerSignal === undefined ? "" : `  ${fmt(m.cpuUsPerSignal, 1)} µs CPU/signal in this process`))
      }
    }
    const avg = (name: string, f: (m: Measured) => number | undefined) => mean(runs.get(name)!.map((m) => f(m) ?? 0))
    const [sbName, blName, rawName] = targets.map((x) => x.name) as [string, string, string]
    const sb = avg(sbName, (m) => m.signalsPerSecond)
    const sbCpu = avg(sbName, (m) => m.cpuUsPerSignal)
    const bl = avg(blName, (m) => m.signalsPerSecond)
    const rw = avg(rawName, (m) => m.signalsPerSecond)
    const blRows = (bl / BATCH) * ROWS_PER_BATCH
    console.log("")
    console.log(`   ${sbName.padEnd(width)} ${fmt(sb).padStart(8)} signals/s  (${fmt(sbCpu, 1)} µs server CPU/signal; goal ≥ ${fmt(GOAL)})`)
    console.log(`   ${blName.padEnd(width)} ${fmt(bl).padStart(8)} signals/s equivalent  (${fmt(blRows)} rows/s: ${ROWS_PER_BATCH} rows per ${BATCH} signals)`)
    console.log(`   ${rawName.padEnd(width)} ${fmt(rw).padStart(8)} signals/s`)
    console.log(`   ratio to the INSERT baseline ${(sb / bl).toFixed(3)}; to the raw handler ${(sb / rw).toFixed(3)}`)
    console.log("")
    const row = (name: string, value: number, unit: string, baseline: string | null, baselineValue: number | null, goal: string | null = null, met: boolean | null = null) => ({
      name,
      value: Number(value.toFixed(unit.startsWith("µs") ? 2 : 0)),
      unit,
      baseline,
      baselineValue: baselineValue === null ? null : Number(baselineValue.toFixed(unit.startsWith("µs") ? 2 : 0)),
      ratio: baselineValue === null ? null : Number((value / baselineValue).toFixed(4)),
      goal,
      met
    })
    console.log(JSON.stringify({
      bench: "calls",
      backend: BACKEND,
      results: [
        row(`signals over HTTP, batches of ${BATCH}, ${CONNECTIONS} senders`, sb, "signals/s", "multi-row INSERT of the same rows, raw driver", bl, GOAL_TEXT, sb >= GOAL),
        row("multi-row INSERT baseline (calls, applied ids, events)", blRows, "rows/s", null, null),
        row(`signals over HTTP vs a raw node:http handler without a database`, sb, "signals/s", "raw node:http + reducer in a Map", rw),
        row("server CPU per signal over HTTP", sbCpu, "µs CPU/signal", null, null),
        row("reducer (CallMachine.apply)", r.reducerUs, "µs/signal", "Schema decode of the signal", r.decodeUs)
      ]
    }))
    return 0
  } catch (e) {
    console.error(e instanceof BenchFailure ? `bench:calls failed: ${e.message}` : e)
    return 1
  } finally {
    if (baseline !== undefined) await baseline.close().catch(() => undefined)
    if (raw !== undefined) await closeServer(raw)
    if (server !== undefined) await server.close()
  }
}

runBench("calls", main)
