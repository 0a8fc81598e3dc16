/**
 * OAuth provider throughput: token introspection and the refresh-token grant of the real
 * Switchboard server (embedded PGlite, in-process, exactly as the tests start it) against a raw
 * `node:http` handler doing the same job in memory (check HTTP Basic, read the form, look the
 * token's SHA-256 up in a Map; for refresh also rotate: drop the old token, mint and store two
 * random ones).
 *
 *   npx tsx bench/oauth.ts            # or: npm run bench:oauth
 *   BENCH_SECONDS=5 npx tsx bench/oauth.ts
 *
 * Environment:
 *   BENCH_SECONDS      length of each measured run in seconds (default 10)
 *   BENCH_CONNECTIONS  concurrent connections (default 10)
 *   BENCH_BACKEND      pglite (default) or postgres (uses DATABASE_URL)
 *
 * Every refresh answers a new refresh token (and the old one must never be used again: reuse
 * revokes its family), so each connection keeps its own chain of refresh tokens. The load
 * generator is a small keep-alive loop over undici in a worker thread, so it does not share the
 * servers' event loop. Sequence: one 2 s warm-up per target (not counted), then A B A B measured
 * runs; requests/second is the mean over the two runs of each target. Any non-200 answer or
 * inactive introspection aborts with exit code 1. There are no speed thresholds: the output is a
 * report, not a test.
 */
import { createHash, randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import { Worker } from "node:worker_threads"
import { CookieJar, driveAuthorization, newApp, newUser, type OAuthTestServer, startOAuthServer } from "../packages/http-adapter/test/OAuthServer.js"
import { alternateRounds, backendFromEnv, BenchFailure, closeServer, failureText, fmt, listenLocal, mean, positiveInt, runBench } from "./lib.js"

const SECONDS = positiveInt("oauth", "BENCH_SECONDS", 10)
const CONNECTIONS = positiveInt("oauth", "BENCH_CONNECTIONS", 10)
const WARMUP_SECONDS = 2
const ROUNDS = 2
const BACKEND = backendFromEnv("oauth")

const CALLBACK = "https://bench.example/cb"
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

interface Target {
  readonly name: string
  readonly kind: "introspect" | "refresh"
  readonly origin: string
  readonly path: string
  readonly authorization: string
  /** Introspection: the token asked about. */
  readonly token?: string
  /** Refresh: one chain per connection, advanced by every run. */
  refreshTokens?: Array<string>
}

interface Run {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly requests: number
}

// ---------------------------------------------------------------------------------------------
// Load: a worker thread with one keep-alive request loop per connection.

const workerSource = `
const { workerData, parentPort } = require("node:worker_threads")
const { Pool } = require("undici")
const { origin, path, kind, authorization, token, seconds, connections } = workerData
const chains = workerData.refreshTokens ? [...workerData.refreshTokens] : []
const main = async () => {
  const pool = new Pool(origin, { connections, pipelining: 1 })
  const end = Date.now() + seconds * 1000
  const latencies = []
  const failures = []
  let done = 0
  await Promise.all(Array.from({ length: connections }, async (_, i) => {
    while (Date.now() < end && failures.length === 0) {
      const body = kind === "refresh"
        ? "grant_type=refresh_token&refresh_token=" + encodeURIComponent(chains[i])
        : "token=" + encodeURIComponent(token)
      const t0 = performance.now()
      const res = await pool.request({
        path, method: "POST", body,
        headers: { authorization, "content-type": "application/x-www-form-urlencoded" }
      })
      const text = await res.body.text()
      latencies.push(performance.now() - t0)
      if (res.statusCode !== 200) { failures.push(res.statusCode + " " + text.slice(0, 200)); break }
      const json = JSON.parse(text)
      if (kind === "refresh") chains[i] = json.refresh_token
      else if (json.active !== true) { failures.push("inactive: " + text.slice(0, 200)); break }
      done++
    }
  }))
  await pool.close()
  latencies.sort((a, b) => a - b)
  const at = (q) => latencies.length === 0 ? 0 : latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]
  parentPort.postMessage({ done, failures, p50: at(0.5), p99: at(0.99), refreshTokens: chains })
}
main().catch((e) => parentPort.postMessage({ done: 0, failures: [String(e && e.stack || e)], p50: 0, p99: 0, refreshTokens: chains }))
`

const load = (target: Target, seconds: number, label: string): Promise<Run> =>
  new Promise((resolve, reject) => {
    const started = Date.now()
    const worker = new Worker(workerSource, {
      eval: true,
      workerData: {
        origin: target.origin,
        path: target.path,
        kind: target.kind,
        authorization: target.authorization,
        token: target.token,
        refreshTokens: target.refreshTokens,
        seconds,
        connections: CONNECTIONS
      }
    })
    worker.once("error", reject)
    worker.once("message", (m: { done: number; failures: Array<string>; p50: number; p99: number; refreshTokens: Array<string> }) => {
      void worker.terminate()
      if (target.kind === "refresh") target.refreshTokens = m.refreshTokens
      if (m.failures.length > 0) return reject(new BenchFailure(`${target.name} (${label}): ${m.failures[0]}`))
      if (m.done === 0) return reject(new BenchFailure(`${target.name} (${label}): no successful responses`))
      const elapsed = (Date.now() - started) / 1000
      resolve({ rps: m.done / Math.max(elapsed, seconds), p50: m.p50, p99: m.p99, requests: m.done })
    })
  })

// ---------------------------------------------------------------------------------------------
// Baseline: the same jobs, in memory, on raw node:http.

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex")

const startBaseline = async (authorization: string, introspectToken: string, refreshTokens: ReadonlyArray<string>) => {
  const access = new Map<string, { sub: string; scope: string; exp: number }>([[sha256(introspectToken), { sub: "sb_acc_bench", scope: "openid", exp: 4_000_000_000 }]])
  const refresh = new Map<string, string>(refreshTokens.map((t) => [sha256(t), "openid offline_access"]))
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const answer = (status: number, body: unknown) => {
        const text = JSON.stringify(body)
        res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", "content-length": Buffer.byteLength(text) })
        res.end(text)
      }
      if (req.headers.authorization !== authorization) return answer(401, { error: "invalid_client" })
      const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"))
      if (req.url === "/api/auth/oauth2/introspect") {
        const t = access.get(sha256(form.get("token") ?? ""))
        return answer(200, t === undefined ? { active: false } : { active: true, client_id: "bench", token_type: "Bearer", ...t })
      }
      const old = sha256(form.get("refresh_token") ?? "")
      const scope = refresh.get(old)
      if (form.get("grant_type") !== "refresh_token" || scope === undefined) return answer(400, { error: "invalid_grant" })
      refresh.delete(old)
      const at = randomBytes(32).toString("base64url")
      const rt = randomBytes(32).toString("base64url")
      access.set(sha256(at), { sub: "sb_acc_bench", scope, exp: Math.floor(Date.now() / 1000) + 3600 })
      refresh.set(sha256(rt), scope)
      return answer(200, { access_token: at, token_type: "Bearer", expires_in: 3600, scope, refresh_token: rt })
    })
  })
  const { origin } = await listenLocal(server)
  return { server, origin }
}

// ---------------------------------------------------------------------------------------------

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`

/** One code flow over HTTP (sign-in skipped with a session made directly): the token response. */
const tokensFor = async (s: OAuthTestServer, app: { clientId: string; secret: string }, jar: CookieJar, credentials: { email: string; password: string }) => {
  const url = `${s.issuer}/oauth2/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: app.clientId,
    redirect_uri: CALLBACK,
    scope: "openid offline_access",
    code_challenge: CHALLENGE,
    code_challenge_method: "S256"
  })}`
  const { callback } = await driveAuthorization(s.baseUrl, url, jar, { credentials })
  const code = new URL(callback).searchParams.get("code")
  if (code === null) throw new BenchFailure(`setup: no code in ${callback}`)
  const res = await fetch(`${s.issuer}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(app.clientId, app.secret) },
    body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: CALLBACK, code_verifier: VERIFIER })
  })
  if (res.status !== 200) throw new BenchFailure(`setup: token ${res.status} ${await res.text()}`)
  return await res.json() as { access_token: string; refresh_token: string }
}

const main = async (): Promise<number> => {
  const t0 = Date.now()
  let server: OAuthTestServer | undefined
  let baseline: Server | undefined
  try {
    server = await startOAuthServer(BACKEND, { rateLimitQuota: 1_000_000 })
    const s = server
    const user = await newUser(s)
    const created = await newApp(s, user.accountId, { redirectUris: [CALLBACK], scopes: ["openid", "offline_access"] })
    const app: { clientId: string; secret: string } = { clientId: created.clientId, secret: created.secret! }
    const jar = new CookieJar()
    const chains: Array<string> = []
    let introspectToken = ""
    for (let i = 0; i < CONNECTIONS; i++) {
      const t = await tokensFor(s, app, jar, { email: user.email, password: user.password })
      chains.push(t.refresh_token)
      introspectToken = t.access_token
    }
    const authorization = basic(app.clientId, app.secret)
    const baselineChains = Array.from({ length: CONNECTIONS }, () => randomBytes(32).toString("base64url"))
    const baselineToken = randomBytes(32).toString("base64url")
    const base = await startBaseline(authorization, baselineToken, baselineChains)
    baseline = base.server

    const targets: Array<Target> = [
      { name: "introspection", kind: "introspect", origin: s.baseUrl, path: "/api/auth/oauth2/introspect", authorization, token: introspectToken },
      { name: "introspection baseline", kind: "introspect", origin: base.origin, path: "/api/auth/oauth2/introspect", authorization, token: baselineToken },
      { name: "refresh grant", kind: "refresh", origin: s.baseUrl, path: "/api/auth/oauth2/token", authorization, refreshTokens: chains },
      { name: "refresh baseline", kind: "refresh", origin: base.origin, path: "/api/auth/oauth2/token", authorization, refreshTokens: baselineChains }
    ]
    const width = Math.max(...targets.map((t) => t.name.length)) + 1
    console.log(`startup ${fmt((Date.now() - t0) / 1000, 1)} s; backend ${BACKEND}; ${CONNECTIONS} connections, ${SECONDS} s per run, ` +
      `${WARMUP_SECONDS} s warm-up, ${ROUNDS} rounds over every target`)

    const runs = await alternateRounds({
      targets,
      warmupSeconds: WARMUP_SECONDS,
      seconds: SECONDS,
      rounds: ROUNDS,
      run: load,
      onRun: (round, t, r) =>
        console.log(`  run ${round} ${t.name.padEnd(width)} ${fmt(r.rps).padStart(7)} req/s  p50 ${fmt(r.p50, 1)} ms  p99 ${fmt(r.p99, 1)} ms  (${fmt(r.requests)} requests)`)
    })
    const rps = (name: string) => mean((runs.get(name) ?? []).map((r) => r.rps))
    const introspection = rps("introspection") / rps("introspection baseline")
    const refresh = rps("refresh grant") / rps("refresh baseline")
    console.log("")
    for (const t of targets) {
      const rs = runs.get(t.name) ?? []
      console.log(`${t.name.padEnd(width)} ${fmt(rps(t.name)).padStart(7)} req/s  p50 ${fmt(mean(rs.map((r) => r.p50)), 1)} ms  p99 ${fmt(mean(rs.map((r) => r.p99)), 1)} ms`)
    }
    console.log(`introspection ratio ${introspection.toFixed(3)} (${fmt(1 / introspection, 1)}x slower than raw node:http)`)
    console.log(`refresh grant ratio ${refresh.toFixed(3)} (${fmt(1 / refresh, 1)}x slower than raw node:http)`)
    console.log(`total ${fmt((Date.now() - t0) / 1000, 1)} s`)
    console.log(JSON.stringify({
      bench: "oauth",
      backend: BACKEND,
      rps: Object.fromEntries(targets.map((t) => [t.name, Math.round(rps(t.name))])),
      ratios: { introspection: Number(introspection.toFixed(4)), refresh: Number(refresh.toFixed(4)) }
    }))
    return 0
  } catch (e) {
    console.error(`bench:oauth FAILED: ${failureText(e)}`)
    return 1
  } finally {
    if (baseline !== undefined) await closeServer(baseline)
    await server?.close()
  }
}

runBench("oauth", main)
