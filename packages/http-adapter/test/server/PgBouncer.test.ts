/**
 * PostgreSQL behind a transaction-pooling PgBouncer (docs/operations.md, "PostgreSQL in
 * production"), on a cluster this test owns with Debian's pgbouncer (1.18) in front of it:
 * - the client in transaction mode: unnamed statements only (named ones break as soon as two
 *   client connections share fewer server connections), statement_timeout still holds (the client
 *   cancels), and a default (session-mode) client is refused by PgBouncer at connect;
 * - migrations from four "processes" at once through PgBouncer: each applied once;
 * - two `switchboard serve` processes with DATABASE_URL through PgBouncer and DATABASE_LISTEN_URL
 *   direct: a revocation on one is seen by the other at once (LISTEN), an Idempotency-Key replays,
 *   rate-limit headers count, a webhook is delivered (the SKIP LOCKED claims), and an event
 *   committed on one reaches an event-channel session on the other;
 * - DATABASE_POOL_MODE=transaction without DATABASE_LISTEN_URL: the server refuses to start, in one line.
 */
import { DatabaseClient, DatabaseConfig, EXPECTED_SCHEMA_VERSION, migrate } from "@switchboard/sql-adapter"
import { SqlClient } from "effect/sql"
import { Effect, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connect } from "../support/ChannelClient.js"
import { bootstrapOf, cliEnv, runCli, type Running, startServer, stopServer } from "../support/CliProcess.js"
import { pgbouncerBin, type PgBouncer, startPgBouncer } from "../support/PgBouncer.js"
import { type OwnPostgres, postgresBin, startOwnPostgres } from "../support/OwnPostgres.js"
import { freePort, startReceiver, waitUntil } from "../support/WebhookReceiver.js"

const withDatabase = (url: string, database: string) => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

describe.runIf(postgresBin !== undefined && pgbouncerBin !== undefined)("PostgreSQL through PgBouncer (transaction pooling)", () => {
  let pg: OwnPostgres
  let bouncer: PgBouncer
  let n = 0
  /** A new database on the cluster: its direct URL and its URL through PgBouncer. */
  const database = async () => {
    const name = `sb_bouncer_${++n}`
    await direct(pg.url, `create database ${name}`)
    const url = withDatabase(pg.url, name)
    return { direct: url, pooled: bouncer.through(url) }
  }
  const transactionMode = (urls: { direct: string; pooled: string }, statementTimeoutMs = 10_000) =>
    DatabaseConfig.Postgres({
      url: Redacted.make(urls.pooled),
      listenUrl: Redacted.make(urls.direct),
      poolMode: "transaction",
      maxConnections: 8,
      statementTimeoutMs
    })
  const withClient = <A>(config: DatabaseConfig, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
    Effect.runPromise(Effect.scoped(Effect.provide(Effect.flatMap(SqlClient.SqlClient, f), DatabaseClient(config))))
  /** One statement on a direct connection to `url`. */
  const direct = (url: string, statement: string) =>
    withClient(DatabaseConfig.Postgres({ url: Redacted.make(url), maxConnections: 1 }), (sql) => sql.unsafe<Record<string, unknown>>(statement))

  beforeAll(async () => {
    pg = await startOwnPostgres()
    // Two server connections for every client pool of eight: statements of one client connection
    // land on different server connections.
    bouncer = await startPgBouncer(pg.url, { poolSize: 2 })
  }, 120_000)
  afterAll(async () => {
    await bouncer?.stop()
    pg?.destroy()
  }, 60_000)

  it("the client in transaction mode: parameterised statements repeated on every connection run unnamed", async () => {
    const urls = await database()
    const results = await withClient(transactionMode(urls), (sql) =>
      Effect.all(
        Array.from({ length: 200 }, (_, i) => sql<{ n: number }>`select ${i}::int + 1 as n`.pipe(Effect.map((rows) => rows[0]!.n))),
        { concurrency: 8 }
      ))
    expect(results).toEqual(Array.from({ length: 200 }, (_, i) => i + 1))
    // And in transactions, where PgBouncer keeps one server connection until COMMIT.
    const sums = await withClient(transactionMode(urls), (sql) =>
      Effect.all(
        Array.from({ length: 40 }, (_, i) =>
          sql.withTransaction(Effect.gen(function*() {
            const a = yield* sql<{ n: number }>`select ${i}::int as n`
            const b = yield* sql<{ n: number }>`select ${i}::int as n`
            return a[0]!.n + b[0]!.n
          }))),
        { concurrency: 8 }
      ))
    expect(sums).toEqual(Array.from({ length: 40 }, (_, i) => 2 * i))
  })

  it("statement_timeout holds in transaction mode: a longer statement is cancelled (57014)", async () => {
    const urls = await database()
    const codeOf = (e: { reason: unknown }) => (e.reason as { cause?: { code?: string } }).cause?.code ?? "none"
    const code = await withClient(transactionMode(urls, 300), (sql) =>
      sql`select pg_sleep(${5})`.pipe(Effect.as("ran"), Effect.catch((e) => Effect.succeed(codeOf(e)))))
    expect(code).toBe("57014")
    // Inside a transaction too.
    const inTransaction = await withClient(transactionMode(urls, 300), (sql) =>
      sql.withTransaction(sql`select pg_sleep(${5})`).pipe(Effect.as("ran"), Effect.catch((e) => Effect.succeed(codeOf(e)))))
    expect(inTransaction).toBe("57014")
  })

  it("a session-mode client (statement_timeout as a connection parameter) is refused by PgBouncer at connect", async () => {
    const urls = await database()
    const error = await migrate({ url: urls.pooled }).then(() => undefined, (e: Error) => e)
    expect(error?.message).toMatch(/unsupported startup parameter: statement_timeout/)
  })

  it("transaction mode without a LISTEN URL is refused before connecting", async () => {
    const urls = await database()
    const config = DatabaseConfig.Postgres({ url: Redacted.make(urls.pooled), poolMode: "transaction" })
    const error = await migrate({ config }).then(() => undefined, (e: Error) => e)
    expect(error?.message).toBe(
      "DATABASE_POOL_MODE=transaction needs DATABASE_LISTEN_URL: a direct connection to PostgreSQL (not through the transaction pooler) for LISTEN"
    )
  })

  it("4 processes migrating one empty database at once through PgBouncer: each migration applied once", async () => {
    const urls = await database()
    const results = await Promise.all([1, 2, 3, 4].map(() => migrate({ config: transactionMode(urls) })))
    expect(results.map((r) => r.version)).toEqual([1, 2, 3, 4].map(() => EXPECTED_SCHEMA_VERSION))
    const applied = results.flatMap((r) => r.applied)
    expect(new Set(applied.map((m) => m.id)).size).toBe(applied.length)
    const rows = await direct(urls.direct, "select count(*)::int as n, count(distinct migration_id)::int as d from switchboard_migrations")
    expect(rows).toEqual([{ n: applied.length, d: applied.length }])
  })

  describe("two server processes through PgBouncer, LISTEN direct", () => {
    const dirs: Array<string> = []
    const servers: Array<Running> = []
    let urls: { direct: string; pooled: string }
    const env = (vars: Record<string, string> = {}) => {
      const dir = mkdtempSync(join(tmpdir(), "sb-bouncer-"))
      dirs.push(dir)
      return cliEnv(dir, {
        DATABASE_URL: urls.pooled,
        DATABASE_POOL_MODE: "transaction",
        DATABASE_LISTEN_URL: urls.direct,
        // Only a notification can make the other process forget a cached credential this soon.
        CREDENTIAL_CACHE_SECONDS: "60",
        ALLOW_PRIVATE_WEBHOOK_TARGETS: "true",
        WEBHOOK_POLL_INTERVAL_MS: "200",
        BILLING_SCHEDULER_ENABLED: "false",
        // Every process of one deployment shares it.
        SECRET_KEY: "pgbouncer-test-secret-0123456789abcdef",
        ...vars
      })
    }
    beforeAll(async () => {
      urls = await database()
      servers.push(await startServer(env()))
      servers.push(await startServer(env()))
    }, 180_000)
    afterAll(async () => {
      for (const s of servers) if (s.child.exitCode === null) await stopServer(s, "SIGKILL")
      for (const d of dirs) rmSync(d, { recursive: true, force: true })
    }, 60_000)

    it("revocation, idempotency, rate limits, webhooks and the event channel", async () => {
      const [a, b] = servers as [Running, Running]
      const serviceKey = bootstrapOf(a.output())!.serviceKey!
      expect(serviceKey).toMatch(/\S/)
      const on = (s: Running, key: string) => async (method: string, path: string, body?: unknown, idempotencyKey = `${path}-${Math.random()}`) => {
        const res = await fetch(`${s.baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": idempotencyKey },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(30_000)
        })
        return { status: res.status, headers: res.headers, body: (await res.text()) }
      }
      const json = (r: { body: string }) => JSON.parse(r.body) as Record<string, any>

      const expiresAt = new Date(Date.now() + 86_400_000).toISOString()
      // Idempotency: the same key replays the first answer (one key created, not two).
      const created = await on(a, serviceKey)("POST", "/v1/account/service-keys", { name: "bouncer", expiresAt }, "bouncer-key-1")
      expect(created.status, created.body).toBe(201)
      const replayed = await on(a, serviceKey)("POST", "/v1/account/service-keys", { name: "bouncer", expiresAt }, "bouncer-key-1")
      expect(replayed.status).toBe(201)
      expect(json(replayed)).toEqual(json(created))
      const key = json(created)
      const secret = String(key.secret)
      const keyId = String(key.serviceKey.serviceKeyId)

      // Rate limits: each answer says what is left, counted in the database across processes.
      const first = await on(b, secret)("GET", "/v1/account")
      expect(first.status, first.body).toBe(200) // now cached on B for 60 s
      const second = await on(b, secret)("GET", "/v1/account")
      const left = (r: { headers: Headers }) => Number(r.headers.get("ratelimit-remaining") ?? /r=(\d+)/.exec(r.headers.get("ratelimit") ?? "")?.[1])
      expect(left(second)).toBeLessThan(left(first))

      // Revocation on A: B refuses the key at once (LISTEN on the direct connection), well within its cache time.
      const revoked = await on(a, serviceKey)("DELETE", `/v1/account/service-keys/${keyId}`)
      expect(revoked.status, revoked.body).toBeLessThan(300)
      await waitUntil("B to refuse the revoked key", async () => (await on(b, secret)("GET", "/v1/account")).status === 401, 20_000)

      // Webhooks: a test event queued on A is delivered (by either process's claims).
      const receiver = await startReceiver()
      try {
        const org = json(await on(a, serviceKey)("POST", "/v1/organizations", { name: "Bouncer" }))
        const project = json(await on(a, serviceKey)("POST", `/v1/organizations/${org.organizationId}/projects`, { name: "Bouncer", slug: "bouncer" }))
        const hooks = `/v1/projects/${project.projectId}/webhooks`
        const destination = await on(a, serviceKey)("POST", `${hooks}/destinations`, {
          apiVersion: "2026-07-01", enabledEvents: ["*"], name: "receiver", url: receiver.url("/bouncer")
        })
        expect(destination.status, destination.body).toBe(201)
        const destinationId = String(json(destination).destination.destinationId)
        const queued = await on(b, serviceKey)("POST", `${hooks}/destinations/${destinationId}/test-events`)
        expect(queued.status, queued.body).toBe(202)
        await receiver.waitFor((rs) => rs.some((r) => r.path === "/bouncer" && JSON.parse(r.body).type === "webhook.test"))
      } finally {
        await receiver.close()
      }

      // The event channel: a session on B receives an event committed on A (NOTIFY → B's LISTEN, then B's read by seq).
      const org = json(await on(a, serviceKey)("POST", "/v1/organizations", { name: "Channel" }))
      const project = json(await on(a, serviceKey)("POST", `/v1/organizations/${org.organizationId}/projects`, { name: "Channel", slug: "bouncer-channel" }))
      const { projectSecret } = json(await on(a, serviceKey)("POST", `/v1/projects/${project.projectId}/secret-rotations`))
      const tlsOrigin = /and (https:\/\/\S+)/.exec(b.output())![1]!
      // The generated certificate is self-signed: this client skips verification (the TLS tests verify it).
      process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0"
      const minted = await fetch(`${tlsOrigin}/projects/${project.projectId}/fusor/token`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from(`${project.projectId}:${projectSecret}`).toString("base64")}` }
      }).finally(() => {
        delete process.env.NODE_TLS_REJECT_UNAUTHORIZED
      })
      expect(minted.status).toBe(200)
      const { data } = (await minted.json()) as { data: { token: string } }
      const c = connect(`${b.baseUrl.replace("http", "ws")}/v1/subscribe`, "switchboard.events.v1.json")
      try {
        await c.opened
        c.send({ type: "init", startSeq: 0, token: data.token })
        await c.next((f) => f.type === "ready")
        const renamed = await on(a, serviceKey)("PATCH", `/v1/projects/${project.projectId}`, { name: "Renamed through PgBouncer" })
        expect(renamed.status, renamed.body).toBe(200)
        const event = await c.next((f) => f.type === "event" && f.event.type === "project.updated")
        expect(event.event.data).toMatchObject({ name: "Renamed through PgBouncer" })
      } finally {
        c.ws.close()
      }

      expect(a.output()).not.toMatch(/prepared statement|unsupported startup parameter/)
      expect(b.output()).not.toMatch(/prepared statement|unsupported startup parameter/)
    }, 120_000)

    it("DATABASE_POOL_MODE=transaction without DATABASE_LISTEN_URL: refused at start, one line, exit 1", async () => {
      const e = env()
      delete e.DATABASE_LISTEN_URL
      const r = await runCli(["serve"], { ...e, PORT: String(await freePort()) })
      expect(r.code).toBe(1)
      const said = (r.stdout + r.stderr).trim()
      expect(said).toMatch(/DATABASE_POOL_MODE=transaction needs DATABASE_LISTEN_URL/)
      expect(said.split("\n").filter((l) => /DATABASE_LISTEN_URL/.test(l))).toHaveLength(1)
      expect(said).not.toMatch(/\n\s+at /)
    }, 60_000)
  })
})
