/**
 * Profiles one authenticated read under load, after a warm-up: the server runs in this process,
 * the load generator (autocannon) in a child process, so the profile and the CPU time are the
 * server's alone. Writes a `.cpuprofile` (open it in Chrome DevTools) and prints CPU µs per request.
 *
 *   npx tsx bench/profile-read.ts                      # GET /v1/account on PGlite
 *   BENCH_PATH=project BENCH_BACKEND=postgres npx tsx bench/profile-read.ts
 *   PROFILE_OUT=/tmp/read.cpuprofile BENCH_SECONDS=5 npx tsx bench/profile-read.ts
 */
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { startTestServer } from "../packages/http-adapter/test/support/TestServer.js"
import { backendFromEnv, createProject, positiveInt } from "./lib.js"
import { loadInChild } from "./load.js"

const backend = backendFromEnv("profile-read")
const seconds = positiveInt("profile-read", "BENCH_SECONDS", 5)
const out = process.env.PROFILE_OUT ?? "/tmp/switchboard-read.cpuprofile"
const s = await startTestServer(backend)
let path = process.env.BENCH_PATH ?? "/v1/account"
let key = s.serviceKey
if (path === "project") {
  const { projectId, send } = await createProject(s, "profile")
  const created = await send("POST", `/v1/projects/${projectId}/api-keys`, { name: "profile", permissions: ["project:read"] })
  path = `/v1/projects/${projectId}`
  key = created.secret as string
}
const target = { url: `${s.baseUrl}${path}`, headers: { authorization: `Bearer ${key}` } }
await loadInChild({ ...target, seconds: 2, connections: 10 })
const session = new Session()
session.connect()
await session.post("Profiler.enable")
await session.post("Profiler.setSamplingInterval", { interval: 100 })
await session.post("Profiler.start")
const cpu = process.cpuUsage()
const result = await loadInChild({ ...target, seconds, connections: 10 })
const used = process.cpuUsage(cpu)
const { profile } = await session.post("Profiler.stop")
writeFileSync(out, JSON.stringify(profile))
const micros = (used.user + used.system) / result.requests
console.log(`${path}: ${Math.round(result.rps)} req/s, ${Math.round(micros)} µs CPU/request (server process); profile → ${out}`)
await s.close()
process.exit(0)
