/**
 * What `bench/oauth.ts` and `bench/profile-oauth.ts` share: our server set up with one refresh
 * chain per connection (real code flows over HTTP), the `oidc-provider` peer in a child process
 * (`bench/oidc-peer.mjs`), a raw `node:http` baseline, and one load run from a child process
 * (`bench/oauth-load.mjs`).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { HttpMiddleware, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Exit, Layer, References, Scope } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { CookieJar, driveAuthorization, newApp, newUser, type OAuthTestServer, startOAuthServer } from "../packages/http-adapter/test/support/OAuthServer.js"
import { BenchFailure, closeServer, listenLocal } from "./lib.js"
import { runChild } from "./load.js"

const CALLBACK = "https://bench.example/cb"
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

export const INTROSPECT_PATH = "/api/auth/oauth2/introspect"
export const TOKEN_PATH = "/api/auth/oauth2/token"

/** What one load run drives: an origin with its client credentials, a token, and (refresh) one chain per connection. */
export interface OAuthTarget {
  readonly name: string
  readonly kind: "introspect" | "refresh"
  readonly origin: string
  readonly authorization: string
  /** Introspection: the token asked about. */
  readonly token?: string
  /** Refresh: one chain per connection, advanced by every run. */
  refreshTokens?: Array<string>
  /** CPU time (µs, user + system) the process serving this target has used so far. */
  readonly cpuMicros: () => number
}

/** This process's CPU time so far (µs): our server's and the node:http reference's (they run here). */
export const ownCpuMicros = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}

const CLOCK_TICKS_PER_SECOND = 100

/** Another process's CPU time so far (µs, from /proc/<pid>/stat: 10 ms resolution on Linux); NaN elsewhere. */
export const processCpuMicros = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The fields after the command name (which may hold spaces) in parentheses: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * (1_000_000 / CLOCK_TICKS_PER_SECOND)
  } catch {
    return Number.NaN
  }
}

export interface OAuthRun {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly requests: number
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url))
const undiciPath = createRequire(import.meta.url).resolve("undici")

/** A child process's whole stdout, failing with its stderr when it exits non-zero. */
const childOutput = async (args: ReadonlyArray<string>, label: string): Promise<string> => {
  const { code, stdout, stderr } = await runChild(args, label)
  if (code !== 0) throw new BenchFailure(`${label}: load exited ${code}: ${stderr.slice(0, 500)}`)
  return stdout
}

/** One run of `seconds` against `target` from a child process; the chains advance. Any failed request throws. */
export const oauthLoad = async (target: OAuthTarget, seconds: number, connections: number, label: string): Promise<OAuthRun> => {
  const config = {
    undici: undiciPath,
    origin: target.origin,
    path: target.kind === "refresh" ? TOKEN_PATH : INTROSPECT_PATH,
    kind: target.kind,
    authorization: target.authorization,
    token: target.token,
    refreshTokens: target.refreshTokens,
    seconds,
    connections
  }
  const out = await childOutput([here("./oauth-load.mjs"), JSON.stringify(config)], `${target.name} (${label})`)
  const m = JSON.parse(out.trim().split("\n").at(-1)!) as { done: number; elapsedMs: number; failures: Array<string>; p50: number; p99: number; refreshTokens: Array<string> }
  if (target.kind === "refresh") target.refreshTokens = m.refreshTokens
  if (m.failures.length > 0) throw new BenchFailure(`${target.name} (${label}): ${m.failures[0]}`)
  if (m.done === 0) throw new BenchFailure(`${target.name} (${label}): no successful responses`)
  // Measured in the child from its first request to its last answer (its start-up is not load).
  return { rps: m.done / (m.elapsedMs / 1000), p50: m.p50, p99: m.p99, requests: m.done }
}

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`

// ---------------------------------------------------------------------------------------------
// Ours.

/** One code flow over HTTP (sign-in, consent, code exchange): the token response. */
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

/**
 * Our real server (in this process) with a confidential app and one code flow per connection
 * (scopes `openid offline_access`): each connection owns a refresh chain; the last access token is
 * the one introspected.
 */
export const startOurs = async (backend: "pglite" | "postgres", connections: number) => {
  const server = await startOAuthServer(backend, { rateLimitQuota: 1_000_000 })
  try {
    const user = await newUser(server)
    const created = await newApp(server, user.accountId, { redirectUris: [CALLBACK], scopes: ["openid", "offline_access"] })
    const app = { clientId: created.clientId, secret: created.secret! }
    const jar = new CookieJar()
    const refreshTokens: Array<string> = []
    let accessToken = ""
    for (let i = 0; i < connections; i++) {
      const t = await tokensFor(server, app, jar, { email: user.email, password: user.password })
      refreshTokens.push(t.refresh_token)
      accessToken = t.access_token
    }
    return { server, origin: server.baseUrl, authorization: basic(app.clientId, app.secret), accessToken, refreshTokens }
  } catch (e) {
    await server.close()
    throw e
  }
}

// ---------------------------------------------------------------------------------------------
// The peer: oidc-provider in a child process.

export interface OidcPeer {
  readonly origin: string
  readonly authorization: string
  readonly accessToken: string
  readonly refreshTokens: Array<string>
  /** The peer process's CPU time so far (µs). */
  readonly cpuMicros: () => number
  readonly close: () => Promise<void>
}

/** Starts `bench/oidc-peer.mjs` and waits for its `PEER {…}` line; it ends when `close` closes its stdin. */
export const startOidcPeer = (connections: number): Promise<OidcPeer> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [here("./oidc-peer.mjs"), String(connections)], { stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    let started = false
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    child.stderr!.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.once("exit", (code) => {
      if (!started) reject(new BenchFailure(`oidc-provider peer exited ${code}: ${stderr.slice(0, 800)}`))
    })
    child.stdout!.on("data", (d) => {
      stdout += d
      const line = stdout.split("\n").find((l) => l.startsWith("PEER "))
      if (started || line === undefined) return
      started = true
      const p = JSON.parse(line.slice(5)) as Omit<OidcPeer, "close">
      resolve({
        ...p,
        cpuMicros: () => processCpuMicros(child.pid!),
        close: async () => {
          child.stdin!.end()
          const timer = setTimeout(() => child.kill("SIGKILL"), 5000)
          await exited
          clearTimeout(timer)
        }
      })
    })
  })

// ---------------------------------------------------------------------------------------------
// Raw node:http: the same jobs in memory.

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex")

/**
 * The job both baselines do in memory: check HTTP Basic, read the form, look the token's SHA-256 up
 * in a Map; for refresh also drop the old token and mint and store two random ones (no signature:
 * the id_token is a fixed string of the right shape).
 */
const memoryJob = (connections: number) => {
  const authorization = basic("bench", randomBytes(16).toString("base64url"))
  const refreshTokens = Array.from({ length: connections }, () => randomBytes(32).toString("base64url"))
  const accessToken = randomBytes(32).toString("base64url")
  const access = new Map<string, { sub: string; scope: string; exp: number }>([[sha256(accessToken), { sub: "sb_acc_bench", scope: "openid", exp: 4_000_000_000 }]])
  const refresh = new Map<string, string>(refreshTokens.map((t) => [sha256(t), "openid offline_access"]))
  const answer = (path: string, presented: string | undefined, body: string): { status: number; body: unknown } => {
    if (presented !== authorization) return { status: 401, body: { error: "invalid_client" } }
    const form = new URLSearchParams(body)
    if (path === INTROSPECT_PATH) {
      const t = access.get(sha256(form.get("token") ?? ""))
      return { status: 200, body: t === undefined ? { active: false } : { active: true, client_id: "bench", token_type: "Bearer", ...t } }
    }
    const old = sha256(form.get("refresh_token") ?? "")
    const scope = refresh.get(old)
    if (form.get("grant_type") !== "refresh_token" || scope === undefined) return { status: 400, body: { error: "invalid_grant" } }
    refresh.delete(old)
    const at = randomBytes(32).toString("base64url")
    const rt = randomBytes(32).toString("base64url")
    access.set(sha256(at), { sub: "sb_acc_bench", scope, exp: Math.floor(Date.now() / 1000) + 3600 })
    refresh.set(sha256(rt), scope)
    return { status: 200, body: { access_token: at, token_type: "Bearer", expires_in: 3600, scope, refresh_token: rt, id_token: "x.y.z" } }
  }
  return { authorization, accessToken, refreshTokens, answer }
}

/** The in-memory job on a raw `node:http` handler. */
export const startRawBaseline = async (connections: number) => {
  const { answer, ...job } = memoryJob(connections)
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const r = answer(req.url ?? "", req.headers.authorization, Buffer.concat(chunks).toString("utf8"))
      const text = JSON.stringify(r.body)
      res.writeHead(r.status, { "content-type": "application/json", "cache-control": "no-store", "content-length": Buffer.byteLength(text) })
      res.end(text)
    })
  })
  const { origin } = await listenLocal(server)
  return { origin, ...job, close: () => closeServer(server) }
}

// ---------------------------------------------------------------------------------------------
// The framework's floor for these endpoints: the raw baseline's very job (`memoryJob`) as two
// routes of a bare Effect `HttpRouter` on `NodeHttpServer` — how the server's OAuth endpoints are
// served (router routes beside the HttpApi), with the platform's per-request span and the tracer
// off as in the server. No Switchboard code: what any endpoint on this stack costs before it does
// its own work.

export const startEffectFloor = async (connections: number) => {
  const { answer, ...job } = memoryJob(connections)
  // The body straight from Node's IncomingMessage (as the server reads bodies, http/Body.ts), not
  // through the platform's body stream: the cheapest read this stack allows.
  const bodyOf = (req: HttpServerRequest.HttpServerRequest) =>
    Effect.callback<string>((resume) => {
      const source = NodeHttpServerRequest.toIncomingMessage(req)
      const chunks: Array<Buffer> = []
      source.on("data", (c: Buffer) => chunks.push(c))
      source.on("end", () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8"))))
    })
  const route = (path: string) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (req) =>
      Effect.map(bodyOf(req), (text) => {
        const r = answer(path, req.headers["authorization"], text)
        return HttpServerResponse.jsonUnsafe(r.body, { status: r.status, headers: { "cache-control": "no-store" } })
      }))
  const routes = Layer.mergeAll(
    HttpRouter.add("POST", INTROSPECT_PATH, route(INTROSPECT_PATH)),
    HttpRouter.add("POST", TOKEN_PATH, route(TOKEN_PATH))
  )
  const server = createServer()
  const scope = Effect.runSync(Scope.make())
  await Effect.runPromise(Layer.buildWithScope(
    HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provide(Layer.succeed(HttpMiddleware.TracerDisabledWhen)(() => true)),
      Layer.provide(Layer.succeed(References.TracerEnabled)(false)),
      Layer.provide(NodeHttpServer.layer(() => server, { host: "127.0.0.1", port: 0 }))
    ),
    scope
  ))
  const { port } = server.address() as AddressInfo
  return { origin: `http://127.0.0.1:${port}`, ...job, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
