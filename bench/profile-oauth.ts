/**
 * Profiles our two OAuth hot paths under load, after a warm-up: the server runs in this process,
 * the load generator (`bench/oauth-load.mjs`) in a child process, so the profile and the CPU time
 * are the server's alone. Writes one `.cpuprofile` per path (open in Chrome DevTools) and prints
 * req/s and CPU µs per request.
 *
 *   npx tsx bench/profile-oauth.ts                          # both paths on PGlite
 *   BENCH_PATH=refresh BENCH_BACKEND=postgres npx tsx bench/profile-oauth.ts
 *   PROFILE_OUT=/tmp/oauth BENCH_SECONDS=5 npx tsx bench/profile-oauth.ts   # /tmp/oauth-<path>.cpuprofile
 */
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { backendFromEnv, positiveInt } from "./lib.js"
import { type OAuthTarget, oauthLoad, ownCpuMicros, startOurs } from "./oauth-lib.js"

const backend = backendFromEnv("profile-oauth")
const seconds = positiveInt("profile-oauth", "BENCH_SECONDS", 5)
const connections = positiveInt("profile-oauth", "BENCH_CONNECTIONS", 10)
const out = process.env.PROFILE_OUT ?? "/tmp/switchboard-oauth"
const only = process.env.BENCH_PATH
const ours = await startOurs(backend, connections)
const targets: Array<OAuthTarget> = [
  { name: "introspect", kind: "introspect", origin: ours.origin, authorization: ours.authorization, token: ours.accessToken, cpuMicros: ownCpuMicros },
  { name: "refresh", kind: "refresh", origin: ours.origin, authorization: ours.authorization, refreshTokens: ours.refreshTokens, cpuMicros: ownCpuMicros }
]
const session = new Session()
session.connect()
await session.post("Profiler.enable")
await session.post("Profiler.setSamplingInterval", { interval: 100 })
for (const target of targets) {
  if (only !== undefined && only !== target.name) continue
  await oauthLoad(target, 2, connections, "warm-up")
  await session.post("Profiler.start")
  const cpu = process.cpuUsage()
  const result = await oauthLoad(target, seconds, connections, "profiled")
  const used = process.cpuUsage(cpu)
  const { profile } = await session.post("Profiler.stop")
  const file = `${out}-${target.name}.cpuprofile`
  writeFileSync(file, JSON.stringify(profile))
  console.log(`${target.name}: ${Math.round(result.rps)} req/s, ${Math.round((used.user + used.system) / result.requests)} µs CPU/request (server process); profile → ${file}`)
}
await ours.server.close()
process.exit(0)
