/**
 * Message-fact ingestion benchmark (docs/messages.md):
 * `POST /v1/projects/{id}/platforms/messages/facts` on the real server (in this process, started as
 * the tests do; the senders run in a child process, `messages-sender.ts`, so this process's CPU
 * time is the server's), batches of 100 facts — 25 outbound messages dispatched, accepted and
 * delivered, 25 inbound received (`messages-facts.ts`) — every fact must be `applied`. Against a
 * **multi-row INSERT baseline** measured in the same run: the rows such a batch writes — 50 message
 * rows (the final records, as stored), 100 event-log rows (`message_event_log`) and 100 outbox
 * events (as stored) — inserted with one multi-row INSERT per table in one transaction through the
 * raw driver (`pg` on PostgreSQL, PGlite's own API on PGlite) into scratch tables of the same
 * shape, by as many concurrent loops as there are HTTP senders. Reported as rows/s for both,
 * facts/s, and the server's CPU µs per fact.
 *
 *   npx tsx bench/messages.ts              # or: npm run bench:messages
 *   BENCH_BACKEND=postgres DATABASE_URL=postgres://… npx tsx bench/messages.ts
 *
 * Environment: BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 4), BENCH_BACKEND (pglite or
 * postgres). Any failed request or baseline statement aborts the run (exit 1). The last stdout
 * line is the JSON summary read by `npm run bench`. No thresholds: a report, not a test.
 */
import { Events } from "@switchboard/core"
import { applyFact, encodeMessage, type Message, MessageFact, messageEventSource } from "@switchboard/core/messages"
import { formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Schema } from "effect"
import { fileURLToPath } from "node:url"
import { startTestServer, type TestServer } from "../packages/http-adapter/test/support/TestServer.js"
import { backendFromEnv, BenchFailure, createProject, fmt, mean, positiveInt, runBench } from "./lib.js"
import { type Baseline, insertBaseline, multiRowInsert } from "./insert-baseline.js"
import { runChild } from "./load.js"
import { BATCH, factBatch, MESSAGES_PER_BATCH } from "./messages-facts.js"

const SECONDS = positiveInt("messages", "BENCH_SECONDS", 5)
const CONNECTIONS = positiveInt("messages", "BENCH_CONNECTIONS", 4)
const BACKEND = backendFromEnv("messages")
const ROUNDS = 2
const ROWS_PER_BATCH = MESSAGES_PER_BATCH + 2 * BATCH
const sender = fileURLToPath(new URL("./messages-sender.ts", import.meta.url))

// ---------------------------------------------------------------------------------------------
// The multi-row INSERT baseline.

/** The shape of `messages` (0080), `message_event_log` (0040) and `events` (0009). */
const SCRATCH = [
  `create table bench_messages (
    project_id uuid not null, message_id text collate "C" not null, platform text not null, status text not null,
    created_at timestamptz not null, record json not null, primary key (project_id, message_id))`,
  "create index bench_messages_by_created on bench_messages (project_id, created_at desc, message_id desc)",
  `create table bench_message_event_log (
    project_id uuid not null, event_id text collate "C" not null, message_id text collate "C" not null, platform text not null,
    direction text not null, event_type text not null, status text not null, occurred_at timestamptz not null,
    recorded_at timestamptz not null, primary key (project_id, event_id))`,
  "create index bench_message_event_log_by_time on bench_message_event_log (project_id, occurred_at)",
  `create table bench_events (
    position bigserial primary key, id text not null unique, project_id uuid, type text not null, source text not null,
    occurred_at timestamptz not null, api_version text not null, data jsonb not null, dispatched_at timestamptz)`,
  "create index bench_events_project on bench_events (project_id, position)",
  "create index bench_events_undispatched on bench_events (position) where dispatched_at is null"
]

const INSERT_MESSAGES = multiRowInsert("bench_messages", ["project_id", "message_id", "platform", "status", "created_at", "record"], MESSAGES_PER_BATCH)
const INSERT_LOG = multiRowInsert(
  "bench_message_event_log",
  ["project_id", "event_id", "message_id", "platform", "direction", "event_type", "status", "occurred_at", "recorded_at"],
  BATCH
)
const INSERT_EVENTS = multiRowInsert("bench_events", ["id", "project_id", "type", "source", "occurred_at", "api_version", "data"], BATCH)

/** One batch as the server stores it (records, log rows, events), built by the reducer; copied with fresh ids. */
const template = (projectId: string) => {
  const facts = factBatch().map((f) => Schema.decodeUnknownSync(MessageFact)(f))
  const records = new Map<string, Message>()
  const log: Array<Array<unknown>> = []
  const events: Array<{ messageId: string; type: string; at: string; data: string }> = []
  for (const f of facts) {
    const d = applyFact(projectId, records.get(f.messageId), f, () => false)
    if (d.outcome !== "applied") throw new BenchFailure(`template: ${f.type} was ${d.outcome}`)
    records.set(f.messageId, d.message)
    const at = new Date(DateTime.toEpochMillis(f.timestamp)).toISOString()
    log.push([f.id, f.messageId, d.message.platform, d.message.status === "received" ? "received" : "addressed", f.type, d.message.status, at])
    events.push({ messageId: f.messageId, type: `message.${f.type}`, at, data: JSON.stringify({ message: encodeMessage(d.message) }) })
  }
  const messages = [...records.values()].map((m) => ({
    messageId: m.id as string,
    platform: m.platform,
    status: m.status,
    createdAt: new Date(DateTime.toEpochMillis(m.createdAt)).toISOString(),
    record: JSON.stringify(encodeMessage(m))
  }))
  return { messages, log, events }
}

const batchParams = (projectId: string, t: ReturnType<typeof template>) => {
  const fresh = new Map(t.messages.map((m) => [m.messageId, formatTypeId(IdKinds.message, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10))))]))
  const now = new Date().toISOString()
  const messages = t.messages.flatMap((m) => {
    const id = fresh.get(m.messageId)!
    return [projectId, id, m.platform, m.status, m.createdAt, m.record.replaceAll(m.messageId, id)]
  })
  const log = t.log.flatMap(([factId, messageId, ...rest]) => {
    const id = fresh.get(messageId as string)!
    return [projectId, (factId as string).replace(messageId as string, id), id, ...rest, now]
  })
  const events = t.events.flatMap((e) => {
    const id = fresh.get(e.messageId)!
    const eventId = formatTypeId(IdKinds.event, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10))))
    return [eventId, projectId, e.type, messageEventSource(projectId, id), e.at, Events.EVENT_API_VERSION, e.data.replaceAll(e.messageId, id)]
  })
  return { messages, log, events }
}

// ---------------------------------------------------------------------------------------------

const httpLoad = async (url: string, headers: Record<string, string>, seconds: number) => {
  const cpu = process.cpuUsage()
  const { code, stderr, stdout } = await runChild(["--conditions=@switchboard/source", "--import", "tsx", sender, JSON.stringify({ url, headers, connections: CONNECTIONS, seconds })], "messages")
  const used = process.cpuUsage(cpu)
  let r: any
  try {
    r = JSON.parse(stdout.trim().split("\n").pop() ?? "")
  } catch {
    throw new BenchFailure(`the sender exited ${code}: ${stderr.slice(0, 500)}`)
  }
  if (code !== 0 || r.error !== undefined) throw new BenchFailure(`sender: ${r.error ?? `exited ${code}`}`)
  return { factsPerSecond: r.factsPerSecond as number, p50: r.p50 as number, cpuUsPerFact: (used.user + used.system) / Math.max(r.facts, 1) }
}

const main = async (): Promise<number> => {
  let server: TestServer | undefined
  let baseline: Baseline | undefined
  try {
    console.log(`bench:messages (${BACKEND}) — ${SECONDS} s per measured run, ${ROUNDS} rounds, ${CONNECTIONS} senders; ` +
      `batches of ${BATCH} facts (25 messages dispatched → accepted → delivered, 25 received)`)
    server = await startTestServer(BACKEND)
    const { projectId, send } = await createProject(server)
    const key = await send("POST", `/v1/projects/${projectId}/api-keys`, { name: "edge", permissions: ["events:write"] })
    const url = `${server.baseUrl}/v1/projects/${projectId}/platforms/messages/facts`
    const headers = { authorization: `Bearer ${key.secret}`, "content-type": "application/json" }
    const t = template(projectId)
    baseline = await insertBaseline({
      backend: BACKEND,
      name: "messages",
      scratch: SCRATCH,
      connections: CONNECTIONS,
      batch: () => {
        const p = batchParams(projectId, t)
        return [[INSERT_MESSAGES, p.messages], [INSERT_LOG, p.log], [INSERT_EVENTS, p.events]]
      }
    })
    const B = baseline
    // Warm-up (not counted).
    await httpLoad(url, headers, 2)
    await B.run(2)
    const http: Array<Awaited<ReturnType<typeof httpLoad>>> = []
    const base: Array<number> = []
    for (let round = 1; round <= ROUNDS; round++) {
      const h = await httpLoad(url, headers, SECONDS)
      http.push(h)
      const b = await B.run(SECONDS)
      const bRows = (b.batches * ROWS_PER_BATCH) / b.seconds
      base.push(bRows)
      console.log(`   run ${round}  switchboard ${fmt(h.factsPerSecond)} facts/s (${fmt((h.factsPerSecond / BATCH) * ROWS_PER_BATCH)} rows/s), ` +
        `batch p50 ${fmt(h.p50, 1)} ms, ${fmt(h.cpuUsPerFact, 1)} µs server CPU/fact;  INSERT baseline ${fmt(bRows)} rows/s`)
    }
    const facts = mean(http.map((h) => h.factsPerSecond))
    const rows = (facts / BATCH) * ROWS_PER_BATCH
    const cpu = mean(http.map((h) => h.cpuUsPerFact))
    const bl = mean(base)
    console.log("")
    console.log(`   switchboard   ${fmt(rows)} rows/s = ${fmt(facts)} facts/s (${ROWS_PER_BATCH} rows per ${BATCH} facts), ${fmt(cpu, 1)} µs server CPU/fact`)
    console.log(`   INSERT        ${fmt(bl)} rows/s`)
    console.log(`   ratio         ${(rows / bl).toFixed(3)} of the multi-row INSERT baseline`)
    const row = (name: string, value: number, unit: string, baseline: string | null, baselineValue: number | null) => ({
      name,
      value: Number(value.toFixed(unit.startsWith("µs") ? 2 : 0)),
      unit,
      baseline,
      baselineValue: baselineValue === null ? null : Number(baselineValue.toFixed(0)),
      ratio: baselineValue === null ? null : Number((value / baselineValue).toFixed(4)),
      goal: null,
      met: null
    })
    console.log(JSON.stringify({
      bench: "messages",
      backend: BACKEND,
      results: [
        row(`message facts over HTTP, batches of ${BATCH}, ${CONNECTIONS} senders (rows written)`, rows, "rows/s", "multi-row INSERT of the same rows, raw driver", bl),
        row(`message facts over HTTP, batches of ${BATCH}`, facts, "facts/s", null, null),
        row("server CPU per fact over HTTP", cpu, "µs CPU/fact", null, null)
      ]
    }))
    return 0
  } catch (e) {
    console.error(e instanceof BenchFailure ? `bench:messages failed: ${e.message}` : e)
    return 1
  } finally {
    if (baseline !== undefined) await baseline.close().catch(() => undefined)
    if (server !== undefined) await server.close()
  }
}

runBench("messages", main)
