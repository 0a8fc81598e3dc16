/**
 * Profiles signal ingestion under load, after a warm-up: the server runs in this process, the
 * senders (batches of 100 fresh signals) in a child process, so the profile and the CPU time are
 * the server's alone. Writes a `.cpuprofile` and prints signals/s and CPU µs per signal.
 *
 *   npx tsx bench/profile-calls.ts                     # PGlite
 *   BENCH_BACKEND=postgres DATABASE_URL=postgres://… npx tsx bench/profile-calls.ts
 *   PROFILE_OUT=/tmp/calls.cpuprofile BENCH_SECONDS=5 BENCH_CONNECTIONS=4 npx tsx bench/profile-calls.ts
 */
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { startTestServer } from "../packages/http-adapter/test/support/TestServer.js"
import { signalLoadInChild, voiceFixture } from "./calls-load.js"
import { backendFromEnv, positiveInt } from "./lib.js"

const backend = backendFromEnv("profile-calls")
const seconds = positiveInt("profile-calls", "BENCH_SECONDS", 5)
const connections = positiveInt("profile-calls", "BENCH_CONNECTIONS", 4)
const out = process.env.PROFILE_OUT ?? "/tmp/switchboard-calls.cpuprofile"
const s = await startTestServer(backend)
const target = await voiceFixture(s)
await signalLoadInChild({ ...target, seconds: 2, connections, label: "warm-up" })
const session = new Session()
session.connect()
await session.post("Profiler.enable")
await session.post("Profiler.setSamplingInterval", { interval: 200 })
await session.post("Profiler.start")
const cpu = process.cpuUsage()
const result = await signalLoadInChild({ ...target, seconds, connections, label: "profile" })
const used = process.cpuUsage(cpu)
const { profile } = await session.post("Profiler.stop")
writeFileSync(out, JSON.stringify(profile))
const micros = (used.user + used.system) / result.signals
console.log(`${backend}: ${Math.round(result.signalsPerSecond)} signals/s, ${micros.toFixed(1)} µs CPU/signal (server process), ` +
  `batch p50 ${result.p50.toFixed(1)} ms; profile → ${out}`)
await s.close()
process.exit(0)
