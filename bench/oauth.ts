/**
 * OAuth provider throughput: token introspection and the refresh-token grant of
 * the real Switchboard server against panva's `oidc-provider` with its in-memory adapter (the
 * devDependency; `bench/oidc-peer.mjs`, in a child process), driven with the same load in the same
 * run; a raw `node:http` handler doing the same job in memory is kept as a floor-free reference, and
 * the same in-memory job as a bare Effect `HttpRouter` route as the framework's floor for these
 * endpoints (what 2× the peer asks of the stack before any Switchboard code runs).
 *
 *   npx tsx bench/oauth.ts            # or: npm run bench:oauth
 *   BENCH_SECONDS=5 npx tsx bench/oauth.ts
 *
 * Environment:
 *   BENCH_SECONDS      length of each measured run in seconds (default 5)
 *   BENCH_CONNECTIONS  concurrent connections (default 10)
 *   BENCH_BACKEND      pglite (default) or postgres (uses DATABASE_URL)
 *
 * Every refresh answers a new refresh token (the old one must never be used again: reuse revokes
 * its family), so each connection follows its own chain. The load generator
 * (`bench/oauth-load.mjs`) runs in a child process with one keep-alive loop per connection, so the
 * CPU time of this process during a run of ours is our server's alone (reported as µs CPU per
 * request). Sequence: one 2 s warm-up per target (not counted), then A B C A B C measured runs;
 * requests/second is the mean over the rounds of each target. Any non-200 answer, an inactive
 * introspection or a refresh without id_token aborts with exit code 1. The last stdout line is the
 * JSON summary for `npm run bench`.
 */
import { alternateRounds, backendFromEnv, failureText, fmt, mean, positiveInt, runBench, type ResultRow } from "./lib.js"
import { type OAuthRun, type OAuthTarget, oauthLoad, ownCpuMicros, startEffectFloor, startOidcPeer, startOurs, startRawBaseline } from "./oauth-lib.js"

const SECONDS = positiveInt("oauth", "BENCH_SECONDS", 5)
const CONNECTIONS = positiveInt("oauth", "BENCH_CONNECTIONS", 10)
const WARMUP_SECONDS = 2
const ROUNDS = 2
const BACKEND = backendFromEnv("oauth")
const GOAL = 2

interface Measured extends OAuthRun {
  /** CPU time per request (µs) of the process serving the target: ours and node:http run here, the peer in its child. */
  readonly cpuMicros: number
}

const main = async (): Promise<number> => {
  const t0 = Date.now()
  const closers: Array<() => Promise<void>> = []
  try {
    const ours = await startOurs(BACKEND, CONNECTIONS)
    closers.push(() => ours.server.close())
    const peer = await startOidcPeer(CONNECTIONS)
    closers.push(peer.close)
    const raw = await startRawBaseline(CONNECTIONS)
    closers.push(raw.close)
    const floor = await startEffectFloor(CONNECTIONS)
    closers.push(floor.close)

    const targets: Array<OAuthTarget> = [
      { name: "introspection", kind: "introspect", origin: ours.origin, authorization: ours.authorization, token: ours.accessToken, cpuMicros: ownCpuMicros },
      { name: "introspection oidc-provider", kind: "introspect", origin: peer.origin, authorization: peer.authorization, token: peer.accessToken, cpuMicros: peer.cpuMicros },
      { name: "introspection node:http", kind: "introspect", origin: raw.origin, authorization: raw.authorization, token: raw.accessToken, cpuMicros: ownCpuMicros },
      { name: "introspection Effect floor", kind: "introspect", origin: floor.origin, authorization: floor.authorization, token: floor.accessToken, cpuMicros: ownCpuMicros },
      { name: "refresh grant", kind: "refresh", origin: ours.origin, authorization: ours.authorization, refreshTokens: ours.refreshTokens, cpuMicros: ownCpuMicros },
      { name: "refresh grant oidc-provider", kind: "refresh", origin: peer.origin, authorization: peer.authorization, refreshTokens: peer.refreshTokens, cpuMicros: peer.cpuMicros },
      { name: "refresh grant node:http", kind: "refresh", origin: raw.origin, authorization: raw.authorization, refreshTokens: raw.refreshTokens, cpuMicros: ownCpuMicros },
      { name: "refresh grant Effect floor", kind: "refresh", origin: floor.origin, authorization: floor.authorization, refreshTokens: floor.refreshTokens, cpuMicros: ownCpuMicros }
    ]
    const width = Math.max(...targets.map((t) => t.name.length)) + 1
    console.log(`startup ${fmt((Date.now() - t0) / 1000, 1)} s; backend ${BACKEND}; ${CONNECTIONS} connections, ${SECONDS} s per run, ` +
      `${WARMUP_SECONDS} s warm-up, ${ROUNDS} rounds over every target`)

    const runs = await alternateRounds<OAuthTarget, Measured>({
      targets,
      warmupSeconds: WARMUP_SECONDS,
      seconds: SECONDS,
      rounds: ROUNDS,
      run: async (target, seconds, label) => {
        const cpu = target.cpuMicros()
        const r = await oauthLoad(target, seconds, CONNECTIONS, label)
        return { ...r, cpuMicros: (target.cpuMicros() - cpu) / r.requests }
      },
      onRun: (round, t, r) =>
        console.log(`  run ${round} ${t.name.padEnd(width)} ${fmt(r.rps).padStart(7)} req/s  ${fmt(r.cpuMicros).padStart(6)} µs CPU/req  p50 ${fmt(r.p50, 1)} ms  p99 ${fmt(r.p99, 1)} ms  (${fmt(r.requests)} requests)`)
    })
    const rps = (name: string) => mean((runs.get(name) ?? []).map((r) => r.rps))
    const cpu = (name: string) => mean((runs.get(name) ?? []).map((r) => r.cpuMicros))
    console.log("")
    for (const t of targets) {
      const rs = runs.get(t.name) ?? []
      console.log(`${t.name.padEnd(width)} ${fmt(rps(t.name)).padStart(7)} req/s  ${fmt(cpu(t.name)).padStart(6)} µs CPU/req  p50 ${fmt(mean(rs.map((r) => r.p50)), 1)} ms  p99 ${fmt(mean(rs.map((r) => r.p99)), 1)} ms`)
    }
    const row = (name: string, what: string): ResultRow => {
      const value = rps(name)
      const peerValue = rps(`${name} oidc-provider`)
      const ratio = value / peerValue
      console.log(`${what}: ours / oidc-provider ${ratio.toFixed(2)}× (goal ≥ ${GOAL}×); ours / node:http ${(value / rps(`${name} node:http`)).toFixed(3)}; ` +
        `CPU/request ours ${fmt(cpu(name))} µs, oidc-provider ${fmt(cpu(`${name} oidc-provider`))} µs (peer / ours ${(cpu(`${name} oidc-provider`) / cpu(name)).toFixed(2)}×)`)
      return {
        name: what,
        value: Math.round(value),
        unit: "req/s",
        baseline: "oidc-provider",
        baselineValue: Math.round(peerValue),
        ratio: Number(ratio.toFixed(3)),
        goal: `≥ ${GOAL}×`,
        met: ratio >= GOAL
      }
    }
    const results: Array<ResultRow> = [
      row("introspection", "token introspection (opaque access token)"),
      row("refresh grant", "refresh grant (rotation + access token + id_token)")
    ]
    // The server's CPU per request against the peer's (ratio: the peer's / ours, so > 1 is cheaper):
    // steadier than req/s on a loaded machine, where each process gets what share of a core it can.
    const cpuRow = (name: string, what: string): ResultRow => ({
      name: what,
      value: Math.round(cpu(name)),
      unit: "µs CPU/req",
      baseline: "oidc-provider",
      baselineValue: Math.round(cpu(`${name} oidc-provider`)),
      ratio: Number((cpu(`${name} oidc-provider`) / cpu(name)).toFixed(3)),
      goal: null,
      met: null
    })
    results.push(
      cpuRow("introspection", "introspection, our server's CPU"),
      cpuRow("refresh grant", "refresh grant, our server's CPU")
    )
    // Where the goal sits against the framework itself: the same in-memory job as node:http's, as a
    // bare Effect router route (no Switchboard code). Below 2× here, 2× the peer is below the floor
    // of any endpoint served the way the server serves every route.
    const floorRow = (name: string, what: string): ResultRow => {
      const value = rps(`${name} Effect floor`)
      const ratio = value / rps(`${name} oidc-provider`)
      console.log(`${what}: Effect floor / oidc-provider ${ratio.toFixed(2)}×; ours / Effect floor ${(rps(name) / value).toFixed(2)}; ` +
        `CPU/request Effect floor ${fmt(cpu(`${name} Effect floor`))} µs`)
      return {
        name: what,
        value: Math.round(value),
        unit: "req/s",
        baseline: "oidc-provider",
        baselineValue: Math.round(rps(`${name} oidc-provider`)),
        ratio: Number(ratio.toFixed(3)),
        goal: null,
        met: null
      }
    }
    results.push(
      floorRow("introspection", "introspection, the bare Effect router floor (same job in memory)"),
      floorRow("refresh grant", "refresh grant, the bare Effect router floor (same job in memory, no signing)")
    )
    console.log(`total ${fmt((Date.now() - t0) / 1000, 1)} s`)
    console.log(JSON.stringify({ bench: "oauth", backend: BACKEND, results }))
    return 0
  } catch (e) {
    console.error(`bench:oauth FAILED: ${failureText(e)}`)
    return 1
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined)
  }
}

runBench("oauth", main)
