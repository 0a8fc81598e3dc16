/**
 * The load generator of `bench/oauth.ts` and `bench/profile-oauth.ts`, run as a child process (so
 * the bench process's CPU time is its in-process server's alone): one keep-alive request loop per
 * connection over undici. Introspection sends the same token every time; the refresh grant
 * follows one rotation chain per connection (each answer's refresh_token is the next request's).
 *
 *   node bench/oauth-load.mjs '<json: {undici, origin, path, kind, authorization, token?, refreshTokens?, seconds, connections}>'
 *
 * Prints one JSON line: `{done, elapsedMs, failures, p50, p99, refreshTokens}` (the chains where they ended).
 * Any non-200 answer, or an inactive introspection, stops the run and is reported in `failures`.
 */
import { createRequire } from "node:module"

const config = JSON.parse(process.argv[2])
const { Pool } = createRequire(import.meta.url)(config.undici)
const { origin, path, kind, authorization, token, seconds, connections } = config
const chains = config.refreshTokens ? [...config.refreshTokens] : []
const pool = new Pool(origin, { connections, pipelining: 1 })
const startedAt = performance.now()
const end = Date.now() + seconds * 1000
const latencies = []
const failures = []
let done = 0
try {
  await Promise.all(Array.from({ length: connections }, async (_, i) => {
    while (Date.now() < end && failures.length === 0) {
      const body = kind === "refresh"
        ? "grant_type=refresh_token&refresh_token=" + encodeURIComponent(chains[i])
        : "token=" + encodeURIComponent(token)
      const t0 = performance.now()
      const res = await pool.request({
        path,
        method: "POST",
        body,
        headers: { authorization, "content-type": "application/x-www-form-urlencoded" }
      })
      const text = await res.body.text()
      latencies.push(performance.now() - t0)
      if (res.statusCode !== 200) {
        failures.push(res.statusCode + " " + text.slice(0, 300))
        break
      }
      const json = JSON.parse(text)
      if (kind === "refresh") {
        if (typeof json.refresh_token !== "string" || typeof json.id_token !== "string" || typeof json.access_token !== "string") {
          failures.push("refresh without access_token, refresh_token and id_token: " + text.slice(0, 300))
          break
        }
        chains[i] = json.refresh_token
      } else if (json.active !== true) {
        failures.push("inactive: " + text.slice(0, 300))
        break
      }
      done++
    }
  }))
} catch (e) {
  failures.push(String(e?.stack ?? e))
}
const elapsedMs = performance.now() - startedAt
await pool.close()
latencies.sort((a, b) => a - b)
const at = (q) => latencies.length === 0 ? 0 : latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]
process.stdout.write(JSON.stringify({ done, elapsedMs, failures, p50: at(0.5), p99: at(0.99), refreshTokens: chains }) + "\n")
