/**
 * The operation worker is durable (docs/provisioning.md): the real `switchboard serve` in child
 * processes.
 *
 * 1. kill -9: a server whose (simulated) number provider is slow claims purchases and is killed
 *    with SIGKILL while provider calls are in flight; a restart on the same DATA_DIR finishes every
 *    operation once its lease runs out — each with its own number, none stored twice.
 * 2. cancel vs commit: `cancelOperation` races the worker committing the provider's result. On
 *    PostgreSQL (DATABASE_URL) the worker and the API are two server processes on one database; on
 *    the embedded database, one process (the worker) and this test's requests. Exactly one side
 *    wins each operation: a cancel answered 200 leaves it cancelled with no resource; a cancel
 *    answered 409 finds it succeeded with its resource.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { bootstrapOf, cliEnv, type Running, startServer, stopServer } from "../support/CliProcess.js"
import { waitUntil } from "../support/WebhookReceiver.js"

const dirs: Array<string> = []
const newDir = () => {
  const d = mkdtempSync(join(tmpdir(), "switchboard-platforms-"))
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

interface PgClient {
  connect(): Promise<void>
  query(q: string): Promise<unknown>
  end(): Promise<void>
}
/** node-postgres (a dependency of the SQL adapter), untyped here: only to create and drop the race's database. */
const pgClient = async (connectionString: string): Promise<PgClient> => {
  const pg = (await import("pg" as string)) as { default: { Client: new (o: { connectionString: string }) => PgClient } }
  const c = new pg.default.Client({ connectionString })
  await c.connect()
  return c
}

let n = 0
const client = (base: () => string, serviceKey: () => string) => async (path: string, method = "GET", body?: unknown) => {
  const res = await fetch(`${base()}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${serviceKey()}`,
      ...(body === undefined ? {} : { "content-type": "application/json", "idempotency-key": `kill-${Date.now()}-${++n}` })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: res.status, body: await res.json() as Record<string, any> }
}

const newProject = async (call: ReturnType<typeof client>) => {
  const org = await call("/v1/organizations", "POST", { name: "Platforms" })
  expect(org.status, JSON.stringify(org.body)).toBe(201)
  const project = await call(`/v1/organizations/${org.body.organizationId}/projects`, "POST", { name: "P", slug: `p-${Date.now()}` })
  expect(project.status, JSON.stringify(project.body)).toBe(201)
  return project.body.projectId as string
}

describe("the provisioning worker across processes", { timeout: 300_000 }, () => {
  it("SIGKILL with provider calls in flight: a restart finishes every operation, each with its own number", async () => {
    const dataDir = newDir()
    const env = (delayMs: number) =>
      cliEnv(dataDir, {
        PROVISIONING_POLL_INTERVAL_MS: "20",
        PROVISIONING_LEASE_MS: "3000",
        SIMULATED_PROVIDER_DELAY_MS: String(delayMs),
        WEBHOOK_DELIVERY_ENABLED: "false"
      })
    let server: Running = await startServer(env(60_000), 90_000)
    const serviceKey = bootstrapOf(server.output())!.serviceKey!
    const call = client(() => server.baseUrl, () => serviceKey)
    const p = await newProject(call)
    const ops: Array<string> = []
    for (let i = 0; i < 6; i++) {
      const r = await call(`/v1/projects/${p}/platforms/sms/numbers`, "POST", { countryCode: "US" })
      expect(r.status, JSON.stringify(r.body)).toBe(202)
      ops.push(r.body.operationId)
    }
    // Claimed and stuck in the provider: running.
    await waitUntil("operations claimed", async () =>
      (await call(`/v1/projects/${p}/platforms/operations?state=running`)).body.operations.length > 0, 60_000)
    await stopServer(server, "SIGKILL")

    server = await startServer(env(0), 90_000)
    try {
      await waitUntil("every operation succeeded after the restart", async () =>
        (await call(`/v1/projects/${p}/platforms/operations?state=succeeded`)).body.operations.length === ops.length, 120_000)
      const resources = (await call(`/v1/projects/${p}/platforms/resources?type=sms_number`)).body.resources as Array<any>
      expect(resources.length).toBe(ops.length)
      expect(new Set(resources.map((r) => r.detail.phoneNumber)).size).toBe(ops.length)
      const produced = await Promise.all(ops.map(async (id) => (await call(`/v1/projects/${p}/platforms/operations/${id}`)).body.operation.resourceId))
      expect(new Set(produced).size).toBe(ops.length)
      expect(produced.sort()).toEqual(resources.map((r) => r.resourceId).sort())
    } finally {
      expect(await stopServer(server)).toBe(0)
    }
  })

  it("cancelOperation racing the worker's commit: exactly one side wins each operation", async () => {
    const databaseUrl = process.env.DATABASE_URL
    let dbName: string | undefined
    const base = (delayMs: number, worker: boolean) => ({
      PROVISIONING_POLL_INTERVAL_MS: "10",
      PROVISIONING_WORKER_ENABLED: String(worker),
      SIMULATED_PROVIDER_DELAY_MS: String(delayMs),
      WEBHOOK_DELIVERY_ENABLED: "false",
      // Two processes of one deployment share its secret (each has its own DATA_DIR).
      SECRET_KEY: "race-test-secret-key-0123456789-abcdefghij"
    })
    let workerProcess: Running
    let apiProcess: Running
    if (databaseUrl !== undefined) {
      dbName = `sb_race_${Date.now()}_${process.pid}`
      const admin = await pgClient(databaseUrl)
      await admin.query(`create database ${dbName}`)
      await admin.end()
      const url = new URL(databaseUrl)
      url.pathname = `/${dbName}`
      workerProcess = await startServer(cliEnv(newDir(), { ...base(40, true), DATABASE_URL: url.toString() }), 90_000)
      apiProcess = await startServer(cliEnv(newDir(), { ...base(40, false), DATABASE_URL: url.toString() }), 90_000)
    } else {
      workerProcess = await startServer(cliEnv(newDir(), base(40, true)), 90_000)
      apiProcess = workerProcess
    }
    const serviceKey = bootstrapOf(workerProcess.output())!.serviceKey!
    const call = client(() => apiProcess.baseUrl, () => serviceKey)
    try {
      const p = await newProject(call)
      const outcomes: Array<{ cancel: number; state: string; resourceId: unknown }> = []
      for (let i = 0; i < 16; i++) {
        const r = await call(`/v1/projects/${p}/platforms/sms/numbers`, "POST", { countryCode: "US" })
        expect(r.status).toBe(202)
        // Cancel at spread-out moments around the provider's 40 ms: before, during and after the commit.
        await new Promise((done) => setTimeout(done, (i % 8) * 12))
        const cancel = await call(`/v1/projects/${p}/platforms/operations/${r.body.operationId}/cancel`, "POST")
        expect([200, 409]).toContain(cancel.status)
        await waitUntil("the operation finished", async () =>
          ["succeeded", "cancelled"].includes((await call(`/v1/projects/${p}/platforms/operations/${r.body.operationId}`)).body.operation.state), 30_000)
        const final = (await call(`/v1/projects/${p}/platforms/operations/${r.body.operationId}`)).body
        outcomes.push({ cancel: cancel.status, state: final.operation.state, resourceId: final.operation.resourceId ?? null })
      }
      for (const o of outcomes) {
        if (o.cancel === 200) expect(o).toEqual({ cancel: 200, state: "cancelled", resourceId: null })
        else expect(o).toMatchObject({ cancel: 409, state: "succeeded", resourceId: expect.stringMatching(/^sb_lin_/) })
      }
      const held = (await call(`/v1/projects/${p}/platforms/resources?type=sms_number`)).body.resources as Array<any>
      expect(held.length).toBe(outcomes.filter((o) => o.cancel === 409).length)
    } finally {
      if (apiProcess !== workerProcess) expect(await stopServer(apiProcess)).toBe(0)
      expect(await stopServer(workerProcess)).toBe(0)
      if (databaseUrl !== undefined && dbName !== undefined) {
        const admin = await pgClient(databaseUrl)
        await admin.query(`drop database if exists ${dbName} with (force)`)
        await admin.end()
      }
    }
  })
})
