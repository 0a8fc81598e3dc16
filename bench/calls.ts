/**
 * Call-signal ingestion benchmark (issue 5; DESIGN.md §6: a hot path). Two parts, each against a
 * baseline measured in the same run:
 *
 * 1. In process — the pure reducer `CallMachine.apply` folding whole calls (started, ringing,
 *    answered, connected, 20 key presses, ended), in µs per signal, against decoding the same
 *    signals from JSON with their schema (the least any implementation does per signal).
 * 2. In the server's process, no HTTP — `Calls.applySignal` on the same store, one signal per
 *    transaction, sequentially; against one `select 1` round trip to the same database, so the
 *    cost of a signal reads as a number of round trips whatever the machine's load.
 * 3. Over HTTP — `POST /v1/projects/{id}/platforms/voice/calls/signals` on the real server
 *    (embedded PGlite, started exactly as the tests do), batches of 100 signals (4 whole calls),
 *    each signal in its own transaction with the call row, its id and its event; against a raw
 *    `node:http` handler that parses the same batch, decodes and applies it to calls in a `Map`
 *    (no database, no Effect HTTP stack).
 *
 *   npx tsx bench/calls.ts              # or: npm run bench:calls
 *   BENCH_SECONDS=3 npx tsx bench/calls.ts
 *
 * Environment:
 *   BENCH_SECONDS      length of each measured run in seconds (default 5)
 *   BENCH_CONNECTIONS  concurrent HTTP senders (default 4)
 *   BENCH_BACKEND      pglite (default) or postgres (uses DATABASE_URL)
 *
 * Every HTTP batch must answer 200 with all 100 signals applied, or the run aborts (exit 1). There
 * are no speed thresholds: the output is a report, not a test.
 */
import { SqlClient } from "@effect/sql"
import { CallMachine, Calls, CallSignal, formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core"
import { Effect, Schema } from "effect"
import { createServer, type Server } from "node:http"
import { performance } from "node:perf_hooks"
import { startTestServer, type TestServer } from "../packages/http-adapter/test/TestServer.js"
import { alternateRounds, backendFromEnv, BenchFailure, closeServer, createProject, fmt, listenLocal, mean, positiveInt, runBench } from "./lib.js"

const SECONDS = positiveInt("calls", "BENCH_SECONDS", 5)
const CONNECTIONS = positiveInt("calls", "BENCH_CONNECTIONS", 4)
const BACKEND = backendFromEnv("calls")
const WARMUP_SECONDS = 1
const ROUNDS = 2
const PRESSES = 20
const SIGNALS_PER_CALL = 5 + PRESSES
const CALLS_PER_BATCH = 4
const BATCH = CALLS_PER_BATCH * SIGNALS_PER_CALL

const rand = () => crypto.getRandomValues(new Uint8Array(10))
const DIGITS = "0123456789*#"

// ---------------------------------------------------------------------------------------------
// Signals: one whole call in wire form.

let callCounter = 0
const wholeCall = (projectId: string, profileId: string): ReadonlyArray<Record<string, unknown>> => {
  const base = Date.UTC(2031, 0, 1) + ++callCounter * 60_000
  const callId = formatTypeId(IdKinds.call, uuidv7Bytes(base, rand()))
  const caller = formatTypeId(IdKinds.user, uuidv7Bytes(base, rand()))
  const at = (ms: number) => new Date(base + ms).toISOString()
  const sig = (n: number, type: string, ms: number, data: unknown = {}) => ({ id: `${callId}-${n}`, callId, type, timestamp: at(ms), data })
  return [
    sig(0, "started", 0, {
      projectId,
      direction: "inbound",
      voiceProfile: { id: profileId, endpoint: { type: "sip" } },
      space: { id: `space-${callId}`, type: "direct" },
      caller: { id: caller, handle: "+15550100" },
      callee: { id: formatTypeId(IdKinds.user, uuidv7Bytes(base, rand())), handle: "+12015550100" },
      metadata: {}
    }),
    sig(1, "ringing", 1000),
    sig(2, "answered", 2000),
    sig(3, "connected", 3000),
    ...Array.from({ length: PRESSES }, (_, i) => sig(4 + i, "dtmf", 4000 + i * 100, { digit: DIGITS[i % 12], actorId: caller })),
    sig(4 + PRESSES, "ended", 30_000, { status: "completed", reason: { hangupCause: "normal_clearing" } })
  ]
}

const decodeSignal = Schema.decodeUnknownSync(CallSignal)

/** Applies one call's signals with the reducer, applied ids kept as the service keeps them. */
const foldCall = (signals: ReadonlyArray<CallSignal>) => {
  let call: CallMachine.CallTransition["call"] = undefined
  const applied = new Set<string>()
  for (const s of signals) {
    const t = CallMachine.apply(call, s, applied as unknown as ReadonlySet<never>)
    if (t.outcome !== "applied") throw new BenchFailure(`reducer: ${s.type} was ${t.outcome}`)
    call = t.call
    applied.add(s.id)
  }
  return call
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
  return { usPerSignal: ((performance.now() - t0) * 1000) / signals, signals }
}

const benchReducer = () => {
  const projectId = "01890a5d-ac96-774b-bcce-b302099a8057"
  const profileId = formatTypeId(IdKinds.voiceProfile, uuidv7Bytes(Date.now(), rand()))
  const wire = Array.from({ length: 200 }, () => wholeCall(projectId, profileId))
  const decoded = wire.map((c) => c.map((s) => decodeSignal(s)))
  const perRun = wire.length * SIGNALS_PER_CALL
  // Warm-up (JIT), then alternating measured runs.
  timeLoop(WARMUP_SECONDS, perRun, () => decoded.forEach(foldCall))
  timeLoop(WARMUP_SECONDS, perRun, () => wire.forEach((c) => c.forEach((s) => decodeSignal(s))))
  const reducer: Array<number> = []
  const decode: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    reducer.push(timeLoop(SECONDS / 2, perRun, () => decoded.forEach(foldCall)).usPerSignal)
    decode.push(timeLoop(SECONDS / 2, perRun, () => wire.forEach((c) => c.forEach((s) => decodeSignal(s)))).usPerSignal)
  }
  return { reducerUs: mean(reducer), decodeUs: mean(decode) }
}

// ---------------------------------------------------------------------------------------------
// HTTP.

interface Target {
  readonly name: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly projectId: string
  readonly profileId: string
}

/** The baseline: parse the batch, decode every signal, apply it to calls kept in a Map; answer the outcomes. */
const startBaseline = async (): Promise<{ server: Server; url: string }> => {
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

/** Organization, project, default voice profile and an events:write project key on the server. */
const voiceFixture = async (server: TestServer): Promise<Target> => {
  const { projectId, send } = await createProject(server)
  const voice = `/v1/projects/${projectId}/platforms/voice`
  const profile = await send("PUT", `${voice}/profiles/default`, { protocol: "sip" })
  const key = await send("POST", `/v1/projects/${projectId}/api-keys`, { name: "edge", permissions: ["events:write"] })
  return {
    name: `switchboard (${BACKEND})`,
    url: `${server.baseUrl}${voice}/calls/signals`,
    headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" },
    projectId,
    profileId: profile.profileId
  }
}

/** Sequential runs of `work` for about `seconds`; milliseconds per run. */
const sequential = async (seconds: number, work: (i: number) => Promise<unknown>) => {
  const deadline = performance.now() + seconds * 1000
  const t0 = performance.now()
  let n = 0
  do await work(n++)
  while (performance.now() < deadline)
  return (performance.now() - t0) / n
}

/** Calls.applySignal in the server's process vs a `select 1` round trip, alternating. */
const benchService = async (server: TestServer, target: Target) => {
  const roundTrip = () => server.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`select 1`))
  let queue: Array<CallSignal> = []
  const apply = () => {
    if (queue.length === 0) queue = wholeCall(target.projectId, target.profileId).map((s) => decodeSignal(s))
    const signal = queue.shift()!
    return server.run(Effect.flatMap(Calls, (calls) => calls.applySignal(target.projectId, signal))).then((r) => {
      if (r.outcome !== "applied") throw new BenchFailure(`applySignal: ${signal.type} was ${r.outcome} (${r.reason})`)
    })
  }
  await sequential(WARMUP_SECONDS / 2, roundTrip)
  await sequential(WARMUP_SECONDS / 2, apply)
  const rt: Array<number> = []
  const sv: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    rt.push(await sequential(SECONDS / 4, roundTrip))
    sv.push(await sequential(SECONDS / 2, apply))
  }
  return { roundTripMs: mean(rt), signalMs: mean(sv) }
}

/** `CONNECTIONS` senders posting batches for `seconds`; every signal must be applied. */
const load = async (target: Target, seconds: number) => {
  const deadline = performance.now() + seconds * 1000
  const latencies: Array<number> = []
  let signals = 0
  const t0 = performance.now()
  const sender = async () => {
    while (performance.now() < deadline) {
      const batch = Array.from({ length: CALLS_PER_BATCH }, () => wholeCall(target.projectId, target.profileId)).flat()
      const started = performance.now()
      const res = await fetch(target.url, { method: "POST", headers: target.headers, body: JSON.stringify({ signals: batch }) })
      const text = await res.text()
      latencies.push(performance.now() - started)
      if (res.status !== 200) throw new BenchFailure(`${target.name}: HTTP ${res.status} ${text.slice(0, 300)}`)
      const body = JSON.parse(text) as { results: ReadonlyArray<{ outcome: string }> }
      if (body.results.length !== BATCH || body.results.some((r) => r.outcome !== "applied")) {
        throw new BenchFailure(`${target.name}: not every signal applied: ${text.slice(0, 300)}`)
      }
      signals += BATCH
    }
  }
  await Promise.all(Array.from({ length: CONNECTIONS }, sender))
  const elapsed = (performance.now() - t0) / 1000
  latencies.sort((a, b) => a - b)
  return {
    signalsPerSecond: signals / elapsed,
    p50: latencies[Math.floor(latencies.length / 2)] ?? 0,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    batches: latencies.length
  }
}

const main = async (): Promise<number> => {
  const t0 = Date.now()
  let server: TestServer | undefined
  let baseline: Server | undefined
  try {
    console.log(`bench:calls — ${SECONDS} s per measured run, ${ROUNDS} rounds; calls of ${SIGNALS_PER_CALL} signals ` +
      `(started, ringing, answered, connected, ${PRESSES} key presses, ended)`)
    console.log("")
    console.log("1. In process: CallMachine.apply vs decoding the signal from JSON")
    const r = benchReducer()
    console.log(`   reducer  ${fmt(r.reducerUs, 3)} µs/signal  (${fmt(1e6 / r.reducerUs)} signals/s on one core)`)
    console.log(`   decode   ${fmt(r.decodeUs, 3)} µs/signal  (Schema.decodeUnknownSync(CallSignal), the baseline)`)
    console.log(`   ratio    the reducer costs ${fmt(r.reducerUs / r.decodeUs, 2)}x decoding its input`)

    console.log("")
    server = await startTestServer(BACKEND)
    const target = await voiceFixture(server)
    console.log(`   (server startup ${fmt((Date.now() - t0) / 1000, 1)} s)`)
    console.log(`2. In the server's process: Calls.applySignal (one transaction per signal) vs a select 1 round trip (${BACKEND})`)
    const sv = await benchService(server, target)
    console.log(`   applySignal  ${fmt(sv.signalMs, 2)} ms/signal  (${fmt(1000 / sv.signalMs)} signals/s, sequential)`)
    console.log(`   round trip   ${fmt(sv.roundTripMs, 2)} ms  (select 1, the baseline)`)
    console.log(`   ratio        a signal costs ${fmt(sv.signalMs / sv.roundTripMs, 1)} round trips ` +
      "(BEGIN, lock + seen, update + id, event, COMMIT)")
    console.log("")
    console.log(`3. HTTP: batches of ${BATCH} signals, ${CONNECTIONS} concurrent senders`)
    const base = await startBaseline()
    baseline = base.server
    const baseTarget: Target = { ...target, name: "raw node:http + reducer in a Map", url: base.url, headers: { "content-type": "application/json" } }
    const targets = [target, baseTarget]
    const width = Math.max(...targets.map((t) => t.name.length)) + 1
    const runs = await alternateRounds({
      targets,
      warmupSeconds: WARMUP_SECONDS,
      seconds: SECONDS,
      rounds: ROUNDS,
      run: load,
      onRun: (round, t, run) =>
        console.log(`   run ${round} ${t.name.padEnd(width)} ${fmt(run.signalsPerSecond).padStart(8)} signals/s  ` +
          `batch p50 ${fmt(run.p50, 1)} ms  p99 ${fmt(run.p99, 1)} ms  (${run.batches} batches)`)
    })
    const summary = targets.map((t) => {
      const rs = runs.get(t.name)!
      return { name: t.name, signalsPerSecond: mean(rs.map((x) => x.signalsPerSecond)), p50: mean(rs.map((x) => x.p50)) }
    })
    const [sb, bl] = summary as [typeof summary[0], typeof summary[0]]
    const ratio = sb.signalsPerSecond / bl.signalsPerSecond
    console.log("")
    console.log(`   ${sb.name.padEnd(width)} ${fmt(sb.signalsPerSecond).padStart(8)} signals/s  (${fmt(1000 / sb.signalsPerSecond, 2)} ms/signal, batch p50 ${fmt(sb.p50, 1)} ms)`)
    console.log(`   ${bl.name.padEnd(width)} ${fmt(bl.signalsPerSecond).padStart(8)} signals/s`)
    console.log(`   ratio ${ratio.toPrecision(2)} (${fmt(1 / ratio, 1)}x slower than the raw handler without a database)`)
    console.log("")
    console.log(JSON.stringify({
      bench: "calls",
      backend: BACKEND,
      seconds: SECONDS,
      connections: CONNECTIONS,
      reducerMicrosPerSignal: Number(r.reducerUs.toFixed(3)),
      decodeMicrosPerSignal: Number(r.decodeUs.toFixed(3)),
      reducerToDecodeRatio: Number((r.reducerUs / r.decodeUs).toFixed(3)),
      serviceMsPerSignal: Number(sv.signalMs.toFixed(3)),
      roundTripMs: Number(sv.roundTripMs.toFixed(3)),
      signalToRoundTripRatio: Number((sv.signalMs / sv.roundTripMs).toFixed(2)),
      httpSignalsPerSecond: Math.round(sb.signalsPerSecond),
      baselineSignalsPerSecond: Math.round(bl.signalsPerSecond),
      httpToBaselineRatio: Number(ratio.toFixed(4))
    }))
    return 0
  } catch (e) {
    console.error(e instanceof BenchFailure ? `bench:calls failed: ${e.message}` : e)
    return 1
  } finally {
    if (baseline !== undefined) await closeServer(baseline)
    if (server !== undefined) await server.close()
  }
}

runBench("calls", main)
