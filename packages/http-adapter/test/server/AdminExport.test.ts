/**
 * `switchboard admin export --to <postgres-url>` as an operator runs it (docs/operations.md,
 * "Moving off the embedded database"): a real server on the embedded database makes the data (a
 * service key, an OAuth app with a refresh token, a stream token, a webhook delivery still
 * pending, an idempotent request), stops; the export copies it into a fresh database of the
 * PostgreSQL at DATABASE_URL; a server started there with the same DATA_DIR (so the same
 * generated secret) serves all of it. A target that is not empty is refused and left as it was.
 * Runs only with DATABASE_URL (CI sets it).
 */
import { DatabaseClient, DatabaseConfig, scratchPostgres } from "@switchboard/sql-adapter"
import { Effect, Exit, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connect } from "../support/ChannelClient.js"
import { bootstrapOf, cliEnv, runCli, type Running, startServer, stopServer } from "../support/CliProcess.js"
import { CALLBACK, CHALLENGE, CookieJar, driveAuthorization, hiddenFields, VERIFIER } from "../support/OAuthServer.js"
import { freePort, type Receiver, startReceiver, waitUntil } from "../support/WebhookReceiver.js"

const postgres = process.env.DATABASE_URL
if (postgres === undefined) console.warn("AdminExport.test.ts: DATABASE_URL is not set, so the export tests do not run (they need a PostgreSQL to export into)")

const dataDir = mkdtempSync(join(tmpdir(), "switchboard-export-"))
const scope = Effect.runSync(Scope.make())
afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  rmSync(dataDir, { recursive: true, force: true })
})

const masked = (url: string) => url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*:)[^@]*@/, "$1***@")
/** The URL with a password, so the test sees it masked in every message. */
const withPassword = (url: string) => {
  const u = new URL(url)
  if (u.password === "") u.password = "not-shown"
  return u.toString()
}
const query = <A>(url: string, text: string): Promise<ReadonlyArray<A>> =>
  Effect.runPromise(Effect.scoped(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A & object>(text).withoutTransform).pipe(
      Effect.provide(DatabaseClient(DatabaseConfig.Postgres({ url: Redacted.make(url), maxConnections: 1 })))
    )
  ))

const webhookEnv = { ALLOW_PRIVATE_WEBHOOK_TARGETS: "true", WEBHOOK_POLL_INTERVAL_MS: "20", WEBHOOK_RETRY_BASE_MS: "10", WEBHOOK_RETRY_MAX_MS: "50" }

describe.runIf(postgres !== undefined)("switchboard admin export", { timeout: 240_000 }, () => {
  let target = ""
  let receiver: Receiver
  beforeAll(async () => {
    target = withPassword(await Effect.runPromise(Scope.provide(scratchPostgres, scope)))
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await receiver?.close()
  })

  it("moves an embedded installation onto PostgreSQL: keys, OAuth refresh tokens, stream tokens, pending deliveries and idempotent answers keep working", async () => {
    // --- On the embedded database. The receiver fails the first attempt: the delivery waits for its retry.
    receiver.answer = () => ({ status: 503 })
    // One origin for both servers: it is the OAuth issuer and the stream tokens' audience.
    const port = await freePort()
    const first = await startServer(
      cliEnv(dataDir, { SECRET_KEY: undefined, ...webhookEnv, WEBHOOK_RETRY_BASE_MS: "3000", WEBHOOK_RETRY_MAX_MS: "3000" }),
      90_000,
      undefined,
      port
    )
    let made: {
      serviceKey: string
      projectId: string
      project: Record<string, unknown>
      projectKey: string
      projectPath: string
      projectBody: Record<string, unknown>
      refreshToken: string
      clientId: string
      clientSecret: string
      streamToken: string
    }
    try {
      made = await makeData(first)
    } finally {
      expect(await stopServer(first)).toBe(0)
    }

    // --- While nothing runs: the export, with progress lines and the row counts.
    const exported = await runCli(["admin", "export", "--to", target, "--progress-rows", "1"], cliEnv(dataDir))
    expect(exported.code, exported.stderr + exported.stdout).toBe(0)
    expect(exported.stdout).not.toContain(new URL(target).password)
    expect(exported.stdout).toContain(`into ${masked(target)} at schema version`)
    expect(exported.stdout).toMatch(/^ {2}accounts: 1 row$/m)
    expect(exported.stdout).toMatch(/^ {2}signing_keys: 2 rows$/m)
    // Progress within a table, every row here (--progress-rows 1).
    expect(exported.stdout).toMatch(/^ {2}signing_keys: 1\/2 rows$/m)
    expect(exported.stdout).toMatch(/^accounts\s+1\s+1$/m)
    expect(exported.stdout).toMatch(/^signing_keys\s+2\s+2$/m)
    expect(exported.stdout).toMatch(/^webhook_deliveries\s+([1-9]\d*)\s+\1$/m)
    expect(exported.stdout).toContain("The server secret is not in the database")
    const counts = await query<{ n: string }>(target, "select count(*)::text as n from accounts")
    expect(counts[0]!.n).toBe("1")

    // --- A second export into the same (now full) target is refused and changes nothing.
    const before = await query<{ n: string }>(target, "select (select count(*) from accounts) || '/' || (select count(*) from events) as n")
    const again = await runCli(["admin", "export", "--to", target], cliEnv(dataDir))
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`the target ${masked(target)} is not empty`)
    expect(again.stderr).toContain("a Switchboard schema at version")
    expect(again.stderr).not.toContain(new URL(target).password)
    expect(again.stderr.trim().split("\n")).toHaveLength(1)
    expect(await query<{ n: string }>(target, "select (select count(*) from accounts) || '/' || (select count(*) from events) as n")).toEqual(before)

    // --- On PostgreSQL with the same DATA_DIR (its secret.key), delivery on, the receiver up.
    receiver.answer = () => ({ status: 204 })
    const failedBefore = receiver.received.length
    const second = await startServer(cliEnv(dataDir, { SECRET_KEY: undefined, DATABASE_URL: target, ...webhookEnv }), 90_000, undefined, port)
    try {
      expect(second.output()).toContain("PostgreSQL (DATABASE_URL)")
      // The service key.
      const orgs = await fetch(`${second.baseUrl}/v1/organizations`, { headers: { authorization: `Bearer ${made.serviceKey}` } })
      expect(orgs.status).toBe(200)
      // The idempotent request replays its first answer.
      const replay = await fetch(`${second.baseUrl}${made.projectPath}`, {
        method: "POST",
        headers: { authorization: `Bearer ${made.serviceKey}`, "content-type": "application/json", "idempotency-key": made.projectKey },
        body: JSON.stringify(made.projectBody)
      })
      expect(replay.status).toBe(201)
      expect(await replay.json()).toEqual(made.project)
      // The refresh token refreshes.
      const refreshed = await fetch(`${second.baseUrl}/api/auth/oauth2/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(made.clientId)}:${encodeURIComponent(made.clientSecret)}`).toString("base64")}`
        },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: made.refreshToken }).toString()
      })
      const tokens = await refreshed.json() as { access_token?: string; refresh_token?: string }
      expect(refreshed.status, JSON.stringify(tokens)).toBe(200)
      expect(tokens.refresh_token).toBeDefined()
      expect(tokens.refresh_token).not.toBe(made.refreshToken)
      // The stream token opens the event channel.
      const c = connect(`${second.baseUrl.replace("http", "ws")}/v1/subscribe`, "switchboard.events.v1.json")
      await c.opened
      c.send({ type: "init", startSeq: 0, token: made.streamToken })
      expect(await c.next((f) => f.type === "ready")).toMatchObject({ projectId: made.projectId })
      // The delivery that was pending is delivered now.
      const delivered = (name: string) => receiver.received.slice(failedBefore).some((r) => r.path === "/moved" && r.body.includes(name))
      await waitUntil("the pending delivery delivered", () => delivered("Before the move"), 60_000)
      // New rows do not collide with copied ones (the sequences moved): a new event gets a new seq.
      const renamed = await fetch(`${second.baseUrl}/v1/projects/${made.projectId}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${made.serviceKey}`, "content-type": "application/json", "idempotency-key": "rename-after" },
        body: JSON.stringify({ name: "After the move" })
      })
      expect(renamed.status, await renamed.clone().text()).toBe(200)
      await waitUntil("the new event delivered", () => delivered("After the move"), 60_000)
    } finally {
      expect(await stopServer(second)).toBe(0)
    }
  })

  it("refuses a target with any table in it, leaving it as it was; refuses a source at another schema version", async () => {
    // The installation of the first test is the source here.
    const other = withPassword(await Effect.runPromise(Scope.provide(scratchPostgres, scope)))
    await query(other, "create table notes (id int primary key); insert into notes values (7)")
    const refused = await runCli(["admin", "export", "--to", other], cliEnv(dataDir))
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim()).toBe(
      `switchboard: could not export to ${masked(other)}: the target ${masked(other)} is not empty: it holds 1 relation (notes). ` +
        "Export into a new, empty database (CREATE DATABASE …); nothing was written"
    )
    expect(await query(other, "select relname from pg_class where relnamespace = 'public'::regnamespace and relkind = 'r'")).toEqual([{ relname: "notes" }])
    expect(await query(other, "select id from notes")).toEqual([{ id: 7 }])

    // A copy of the installation whose schema is one migration behind this Switchboard.
    const behind = mkdtempSync(join(tmpdir(), "switchboard-export-behind-"))
    try {
      cpSync(join(dataDir, "pglite"), join(behind, "pglite"), { recursive: true })
      const { PGlite } = await import("@electric-sql/pglite")
      const db = await PGlite.create(join(behind, "pglite"))
      await db.exec("delete from switchboard_migrations where migration_id = (select max(migration_id) from switchboard_migrations)")
      await db.close()
      const empty = withPassword(await Effect.runPromise(Scope.provide(scratchPostgres, scope)))
      const old = await runCli(["admin", "export", "--to", empty], cliEnv(behind))
      expect(old.code).toBe(1)
      expect(old.stderr).toMatch(/the embedded database is at schema version \d+, this Switchboard is at \d+: migrate it first/)
      expect(await query(empty, "select count(*)::int as n from pg_class where relnamespace = 'public'::regnamespace")).toEqual([{ n: 0 }])
    } finally {
      rmSync(behind, { recursive: true, force: true })
    }

    // Arguments.
    const bad = await runCli(["admin", "export"], cliEnv(dataDir))
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--to <postgres://…> is required")
    const help = await runCli(["admin", "export", "--help"], cliEnv(dataDir))
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("Usage: switchboard admin export --to <postgres-url>")
  })

  /** The data of the first phase, made over HTTP as a user would. */
  const makeData = async (s: Running) => {
    const boot = bootstrapOf(s.output())!
    const serviceKey = boot.serviceKey!
    let n = 0
    const send = async (method: string, path: string, body?: unknown, key = `export-${++n}`) => {
      const res = await fetch(`${s.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${serviceKey}`, "content-type": "application/json", "idempotency-key": key },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const json = await res.json() as Record<string, any>
      expect(res.status, JSON.stringify(json)).toBeLessThan(300)
      return json
    }
    const org = await send("POST", "/v1/organizations", { name: "Moved" })
    const projectKey = "export-project"
    const projectBody = { name: "Moved", slug: "moved" }
    const projectPath = `/v1/organizations/${org.organizationId}/projects`
    const project = await send("POST", projectPath, projectBody, projectKey)
    const projectId = project.projectId as string
    await send("POST", `/v1/projects/${projectId}/webhooks/destinations`, {
      apiVersion: "2026-07-01",
      enabledEvents: ["project.updated"],
      name: "receiver",
      url: receiver.url("/moved")
    })
    await send("PATCH", `/v1/projects/${projectId}`, { name: "Before the move" })
    const { projectSecret } = await send("POST", `/v1/projects/${projectId}/secret-rotations`)
    await waitUntil("a first, failed attempt", () => receiver.received.some((r) => r.path === "/moved"), 60_000)

    // The stream token, over the management API (HTTPS, the generated self-signed certificate).
    const tlsOrigin = /and (https:\/\/\S+)/.exec(s.output())![1]!
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0"
    let streamToken: string
    try {
      const minted = await fetch(`${tlsOrigin}/projects/${projectId}/fusor/token`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from(`${projectId}:${projectSecret}`).toString("base64")}` }
      })
      expect(minted.status).toBe(200)
      streamToken = ((await minted.json()) as { data: { token: string } }).data.token
    } finally {
      delete process.env.NODE_TLS_REJECT_UNAUTHORIZED
    }

    // An OAuth app of the bootstrap account and a code grant with a refresh token.
    const jar = new CookieJar()
    const signIn = await jar.fetch(`${s.baseUrl}/sign-in`)
    const html = await signIn.text()
    const signedIn = await jar.fetch(`${s.baseUrl}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: s.baseUrl },
      body: new URLSearchParams({ ...hiddenFields(html), email: boot.email!, password: boot.password! }).toString()
    })
    expect(signedIn.status).toBe(303)
    const app = await jar.fetch(`${s.baseUrl}/api/oauth-apps`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-requested-with": "test", origin: s.baseUrl },
      body: JSON.stringify({ name: "Mover", redirectUris: [CALLBACK], clientType: "confidential", scopes: ["openid", "offline_access", "projects:read"] })
    })
    const appBody = await app.json() as { data: { app: { clientId: string }; clientSecret: string } }
    expect(app.status, JSON.stringify(appBody)).toBe(200)
    const clientId = appBody.data.app.clientId
    const clientSecret = appBody.data.clientSecret
    const authorize = new URL(`${s.baseUrl}/api/auth/oauth2/authorize`)
    for (
      const [k, v] of Object.entries({
        response_type: "code",
        client_id: clientId,
        redirect_uri: CALLBACK,
        scope: "openid offline_access projects:read",
        state: "s1",
        code_challenge: CHALLENGE,
        code_challenge_method: "S256",
        prompt: "consent"
      })
    ) authorize.searchParams.set(k, v)
    const { callback } = await driveAuthorization(s.baseUrl, authorize.toString(), jar, { credentials: { email: boot.email!, password: boot.password! } })
    const code = new URL(callback).searchParams.get("code")
    expect(code, callback).not.toBeNull()
    const exchanged = await fetch(`${s.baseUrl}/api/auth/oauth2/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString("base64")}`
      },
      body: new URLSearchParams({ grant_type: "authorization_code", code: code!, redirect_uri: CALLBACK, code_verifier: VERIFIER }).toString()
    })
    const tokens = await exchanged.json() as { refresh_token?: string }
    expect(exchanged.status, JSON.stringify(tokens)).toBe(200)
    expect(tokens.refresh_token).toBeDefined()
    return { serviceKey, projectId, project, projectKey, projectPath, projectBody, refreshToken: tokens.refresh_token!, clientId, clientSecret, streamToken }
  }
})
