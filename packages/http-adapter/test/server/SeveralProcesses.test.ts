/**
 * Several server processes under failure (docs/operations.md#several-processes): three real
 * `switchboard serve` processes on one PostgreSQL cluster this test owns, behind a round-robin TCP
 * proxy (test/support/RoundRobinProxy.ts), every background job enabled in all three. 60 s of
 * mixed load, at most `IN_FLIGHT` requests at once, goes through the proxy: cached reads, writes
 * with an Idempotency-Key (some repeated with the same key), voice call signals, webhook test
 * events, provisioning operations, and three event-channel sessions that resume with their cursor.
 * At 20 s one process is killed with SIGKILL and restarted on its port; at 40 s PostgreSQL is
 * stopped, and started again 2 s later. Each try of a request is logged with its start and end.
 *
 * What must hold:
 * - no answer is 5xx, except 503/504 for requests that overlap the database's outage (from its
 *   stop until 10 s after it is up again); a request cut off by the kill (connection reset) is a
 *   client-side error, counted apart and retried as a client would — with its Idempotency-Key;
 * - every idempotent retry returns the first answer (status and body);
 * - "not lost, not duplicated": every event of the hooked project's log has exactly one delivery in
 *   its destination's delivery log, every delivery (those of the test events too) ends
 *   `delivered`, and the receiver got each of them at least once; the receiver seeing a
 *   `webhook-id` more than once is an at-least-once redelivery of that same delivery (it refused
 *   the first attempt, or the attempt's process died before recording it), never a second event
 *   or delivery; nothing reaches the receiver that is not in the delivery log;
 * - every rename is one `project.updated` event; every call ends `completed`;
 * - every provisioning operation ends `succeeded`, each with its own resource;
 * - every channel session received every event of the project once, in seq order, across its
 *   reconnects: one is on the killed process, the others lose their connection once it is back
 *   (a network blip), so each resumes at least once.
 */
import { formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import { mkdtempSync, rmSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connect, type Frames } from "../support/ChannelClient.js"
import { bootstrapOf, cliEnv, type Running, startServer } from "../support/CliProcess.js"
import { type OwnPostgres, postgresBin, startOwnPostgres } from "../support/OwnPostgres.js"
import { type RoundRobinProxy, startRoundRobinProxy } from "../support/RoundRobinProxy.js"
import { freePort, type Receiver, startReceiver, waitUntil } from "../support/WebhookReceiver.js"

const LOAD_MS = 60_000
const KILL_AT_MS = 20_000
const DB_RESTART_AT_MS = 40_000
/** How long after the database is up again 503/504 are still accepted (pools reconnect, the LISTEN connection resumes). */
const DB_GRACE_MS = 10_000
const IN_FLIGHT = 6
const SECRET_KEY = "several-processes-secret-key-0123456789-abcdef"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** One answer as the client saw it, or the client-side error that replaced it. */
interface Exchange {
  readonly label: string
  readonly start: number
  readonly end: number
  readonly status?: number
  readonly error?: string
}

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | undefined>
  readonly text: string
  readonly body: any
}

/** One HTTP exchange on a new connection (so the proxy spreads requests over the processes). */
const exchange = (base: string, method: string, path: string, headers: Record<string, string>, body?: string) =>
  new Promise<Answer>((resolve, reject) => {
    const req = request(`${base}${path}`, {
      method,
      agent: false,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }) }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => (text += c))
      res.on("error", reject)
      res.on("end", () => {
        const h: Record<string, string | undefined> = {}
        for (const [k, v] of Object.entries(res.headers)) h[k] = Array.isArray(v) ? v.join(", ") : v
        let parsed: unknown = undefined
        try {
          parsed = text === "" ? undefined : JSON.parse(text)
        } catch {
          parsed = text
        }
        resolve({ status: res.statusCode ?? 0, headers: h, text, body: parsed })
      })
    })
    // A request that never answers fails the test as a client error (30 s is "never" here).
    req.setTimeout(30_000, () => req.destroy(new Error("no answer in 30 s")))
    req.on("error", reject)
    req.end(body)
  })

const dirs: Array<string> = []
const newDir = () => {
  const d = mkdtempSync(join(tmpdir(), "switchboard-multi-"))
  dirs.push(d)
  return d
}

describe.runIf(postgresBin !== undefined)("three server processes on one PostgreSQL behind a round-robin proxy", () => {
  let pg: OwnPostgres
  let proxy: RoundRobinProxy
  let receiver: Receiver
  const ports: Array<number> = []
  const dataDirs: Array<string> = []
  const servers: Array<Running> = []
  /** Every process started, the killed one too. */
  const started: Array<Running> = []
  let serviceKey = ""

  const env = (i: number) =>
    cliEnv(dataDirs[i]!, {
      DATABASE_URL: pg.url,
      // Every process of one deployment shares the secret and the public URLs (stream tokens name API_URL).
      SECRET_KEY,
      API_URL: proxy.url,
      TRUST_PROXY: "true",
      ALLOW_PRIVATE_WEBHOOK_TARGETS: "true",
      WEBHOOK_DELIVERY_ENABLED: "true",
      WEBHOOK_POLL_INTERVAL_MS: "100",
      WEBHOOK_RETRY_BASE_MS: "100",
      WEBHOOK_RETRY_MAX_MS: "1000",
      // The lease of an attempt is this + 5 s: the killed process's attempts are retried after it.
      WEBHOOK_TIMEOUT_SECONDS: "5",
      WEBHOOK_CONCURRENCY: "4",
      PROVISIONING_WORKER_ENABLED: "true",
      PROVISIONING_POLL_INTERVAL_MS: "100",
      PROVISIONING_LEASE_MS: "3000",
      SIMULATED_PROVIDER_DELAY_MS: "200",
      BILLING_SCHEDULER_ENABLED: "true",
      BILLING_TICK_SECONDS: "2",
      PRIVACY_JOB_ENABLED: "true",
      PRIVACY_JOB_INTERVAL_SECONDS: "2",
      CHANNEL_HEARTBEAT_MS: "1000",
      RATE_LIMIT_QUOTA: "1000000",
      MANAGEMENT_RATE_LIMIT: "1000000",
      PROJECT_API_KEY_LIMIT: "1000",
      // An Idempotency-Key left in progress by the killed process is taken over after this + 1 s.
      REQUEST_TIMEOUT_MS: "10000",
      DATABASE_CONNECT_TIMEOUT_MS: "2000",
      DATABASE_STATEMENT_TIMEOUT_MS: "5000",
      ACCESS_LOG: "off"
    })

  /** Starts process `i` on its port, again after a failed start (as a process manager does). */
  const launch = async (i: number) => {
    for (let attempt = 1; ; attempt++) {
      try {
        servers[i] = await startServer(env(i), 90_000, undefined, ports[i])
        started.push(servers[i]!)
        return servers[i]!
      } catch (e) {
        if (attempt >= 5) throw e
        await sleep(1000)
      }
    }
  }

  beforeAll(async () => {
    pg = await startOwnPostgres()
    receiver = await startReceiver()
    for (let i = 0; i < 3; i++) {
      ports.push(await freePort())
      dataDirs.push(newDir())
    }
    proxy = await startRoundRobinProxy(() => ports)
    // The first start migrates the empty database and prints the bootstrap account; the others join it.
    const first = await launch(0)
    serviceKey = bootstrapOf(first.output())!.serviceKey!
    expect(serviceKey).toBeTruthy()
    await Promise.all([launch(1), launch(2)])
  }, 120_000)

  afterAll(async () => {
    // A 500 is logged by the process that answered it: show those lines (with their request ids).
    const errors = started.flatMap((s) => s.output().split("\n").filter((l) => l.includes("level=ERROR")))
    if (errors.length > 0) console.error(errors.slice(0, 20).join("\n"))
    // A process that exited on its own (not the one the test killed): how it ended.
    for (const s of started) {
      if (s.child.exitCode !== null) console.error(`a server exited with ${s.child.exitCode}:\n${s.output().split("\n").slice(-40).join("\n")}`)
    }
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL")
    await Promise.all(servers.map((s) => s.exited))
    await proxy?.close()
    await receiver?.close()
    pg?.destroy()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }, 60_000)

  it("60 s of mixed load, a kill -9 and a database restart: nothing lost, nothing duplicated, no 5xx outside the outage", async () => {
    const log: Array<Exchange> = []
    let keySeq = 0
    const newKey = (what: string) => `multi-${what.replaceAll(" ", "-")}-${++keySeq}`
    const auth = (key = serviceKey) => ({ authorization: `Bearer ${key}` })

    /**
     * A request as a real client sends it: a client-side error (the connection reset by the kill)
     * or 503/504/409-in-progress is retried, the same request with the same Idempotency-Key, until
     * an answer comes (at most 60 s). Every try is logged.
     */
    const call = async (label: string, method: string, path: string, o: { json?: unknown; idem?: string; headers?: Record<string, string> } = {}) => {
      const headers = { ...auth(), ...o.headers, ...(o.idem === undefined ? {} : { "idempotency-key": o.idem }) }
      const body = o.json === undefined ? undefined : JSON.stringify(o.json)
      const deadline = Date.now() + 60_000
      let clientErrors = 0
      for (;;) {
        const start = Date.now()
        try {
          const a = await exchange(proxy.url, method, path, headers, body)
          log.push({ label, start, end: Date.now(), status: a.status })
          const retryable = a.status === 503 || a.status === 504 || (a.status === 409 && a.body?.code === "IDEMPOTENCY_REQUEST_IN_PROGRESS")
          if (!retryable || Date.now() > deadline) return { ...a, clientErrors }
          await sleep(Math.min(2000, Math.max(200, Number(a.headers["retry-after"] ?? "1") * 1000)))
        } catch (e) {
          clientErrors++
          log.push({ label, start, end: Date.now(), error: (e as Error).message })
          if (Date.now() > deadline) throw new Error(`${label}: no answer within 60 s: ${(e as Error).message}`)
          await sleep(200)
        }
      }
    }
    const ok = async (label: string, expected: number, method: string, path: string, o: Parameters<typeof call>[3] = {}) => {
      const a = await call(label, method, path, o)
      expect(a.status, `${label}: ${a.text}`).toBe(expected)
      return a
    }

    // --- The fixture: an organization, the hooked project (a destination of every event to the
    // receiver, a voice profile, an events:write key), its management secret.
    const org = (await ok("org", 201, "POST", "/v1/organizations", { json: { name: "Multi" }, idem: newKey("org") })).body
    const hooked = (await ok("project", 201, "POST", `/v1/organizations/${org.organizationId}/projects`, {
      json: { name: "Hooked", slug: "hooked-multi" },
      idem: newKey("project")
    })).body.projectId as string
    const destination = (await ok("destination", 201, "POST", `/v1/projects/${hooked}/webhooks/destinations`, {
      json: { apiVersion: "2026-07-01", enabledEvents: ["*"], name: "receiver", url: receiver.url("/hook") },
      idem: newKey("destination")
    })).body.destination.destinationId as string
    const profileId = (await ok("voice profile", 201, "PUT", `/v1/projects/${hooked}/platforms/voice/profiles/default`, {
      json: { protocol: "sip" },
      idem: newKey("profile")
    })).body.profileId as string
    const edgeKey = (await ok("edge key", 201, "POST", `/v1/projects/${hooked}/api-keys`, {
      json: { name: "edge", permissions: ["events:write"] },
      idem: newKey("key")
    })).body.secret as string
    const projectSecret = (await ok("secret", 200, "POST", `/v1/projects/${hooked}/secret-rotations`, { idem: newKey("rotate") })).body
      .projectSecret as string

    // The receiver refuses the first attempt of every fifth delivery: those are retried (same webhook-id).
    const attempts = new Map<string, number>()
    receiver.answer = (r) => {
      const id = r.headers["webhook-id"] ?? ""
      const n = (attempts.get(id) ?? 0) + 1
      attempts.set(id, n)
      return n === 1 && id.charCodeAt(id.length - 1) % 5 === 0 ? { status: 500 } : { status: 204 }
    }

    // --- Event-channel sessions: resumed with their last seq after every close.
    const mintToken = async () =>
      (await ok("stream token", 200, "POST", `/projects/${hooked}/fusor/token`, {
        headers: { authorization: `Basic ${Buffer.from(`${hooked}:${projectSecret}`).toString("base64")}`, "x-forwarded-proto": "https" }
      })).body.data.token as string
    interface Session {
      readonly seqs: Array<number>
      readonly ids: Array<string>
      /** The `type` of each event, and the project's name in a `project.updated`. */
      readonly kinds: Array<string>
      /** Connections that ended while the session was still wanted (and were resumed). */
      closedByServer: number
      connections: number
      current?: Frames
      stopped: boolean
      readonly done: Promise<void>
    }
    const channelUrl = `${proxy.url.replace(/^http/, "ws")}/v1/subscribe`
    const openSession = async (startSeq: number) => {
      const token = await mintToken()
      const c = connect(channelUrl, "switchboard.events.v1.json", undefined, (f) =>
        f.type === "event"
          ? { type: "event", seq: f.seq, id: f.event?.id, kind: f.event?.type === "project.updated" ? `project.updated ${f.event.data?.name}` : f.event?.type }
          : { type: f.type })
      await c.opened
      c.send({ type: "init", startSeq, token, types: ["*"] })
      return c
    }
    /** A session from `startSeq` (0: the live tail), resumed after every close from the last seq it received. */
    const runSession = (startSeq = 0): Session => {
      const s: Session = { seqs: [], ids: [], kinds: [], closedByServer: 0, connections: 0, stopped: false, done: Promise.resolve() }
      ;(s as { done: Promise<void> }).done = (async () => {
        while (!s.stopped) {
          let c: Frames
          try {
            c = await openSession(s.seqs.at(-1) ?? startSeq)
          } catch {
            await sleep(500) // the upgrade was refused (the database is down): retry
            continue
          }
          s.current = c
          s.connections++
          let taken = 0
          const drain = () => {
            for (; taken < c.frames.length; taken++) {
              const f = c.frames[taken]
              if (f.type === "event") {
                s.seqs.push(f.seq)
                s.ids.push(f.id)
                s.kinds.push(f.kind)
              }
            }
          }
          c.ws.on("message", drain)
          await c.closed
          drain()
          if (!s.stopped) {
            s.closedByServer++
            await sleep(300)
          }
        }
      })()
      return s
    }
    // Three sessions opened one after the other: the proxy gives each the next process, so one is on the process killed.
    const sessions: Array<Session> = []
    for (let i = 0; i < 3; i++) {
      const s = runSession()
      sessions.push(s)
      await waitUntil("the session is open", () => s.connections === 1 && s.current!.frames.some((f) => f.type === "ready"), 30_000)
    }
    // They tail the log live: a first rename, received by all three, marks where they start.
    const renames: Array<string> = ["Marker"]
    await ok("rename", 200, "PATCH", `/v1/projects/${hooked}`, { json: { name: "Marker" }, idem: newKey("rename") })
    await waitUntil("the sessions receive the marker", () => sessions.every((s) => s.kinds.includes("project.updated Marker")), 30_000)
    const markerSeq = sessions[0]!.seqs[sessions[0]!.kinds.indexOf("project.updated Marker")]!

    // --- The load.
    const firstAnswers = new Map<string, { status: number; body: unknown; path: string; json: unknown; method: string }>()
    const repeats: Array<{ key: string; status: number; body: unknown }> = []
    const createdProjects: Array<string> = []
    const testDeliveries: Array<string> = []
    let testEventClientErrors = 0
    const calls: Array<string> = []
    const operations: Array<string> = []
    let n = 0
    /** A write with an Idempotency-Key; its first answer is kept, and one in three is sent again at once. */
    const idempotent = async (label: string, expected: number, method: string, path: string, json: unknown) => {
      const key = newKey(label)
      const a = await ok(label, expected, method, path, { json, idem: key })
      firstAnswers.set(key, { status: a.status, body: a.body, path, json, method })
      if (keySeq % 3 === 0) {
        const again = await call(`${label} (repeated)`, method, path, { json, idem: key })
        repeats.push({ key, status: again.status, body: again.body })
      }
      return a
    }
    const ops: Array<() => Promise<unknown>> = [
      () => ok("GET /v1/account", 200, "GET", "/v1/account"),
      () => ok("GET project", 200, "GET", `/v1/projects/${hooked}`),
      async () => {
        const name = `Renamed ${++n}`
        await idempotent("rename", 200, "PATCH", `/v1/projects/${hooked}`, { name })
        renames.push(name)
      },
      async () => {
        const a = await idempotent("create project", 201, "POST", `/v1/organizations/${org.organizationId}/projects`, {
          name: "Load",
          slug: `load-${++n}-${Date.now().toString(36)}`
        })
        createdProjects.push(a.body.projectId)
      },
      () => idempotent("create api key", 201, "POST", `/v1/projects/${hooked}/api-keys`, { name: `k${++n}`, permissions: ["events:read"] }),
      async () => {
        const project = createdProjects.at(-1) ?? hooked
        if (project === hooked) return
        await idempotent("create destination", 201, "POST", `/v1/projects/${project}/webhooks/destinations`, {
          apiVersion: "2026-07-01",
          enabledEvents: ["project.updated"],
          name: `d${++n}`,
          url: receiver.url("/other")
        })
      },
      async () => {
        // Not idempotent (no key): a try cut off by the kill may have queued a test event we never hear of.
        const a = await ok("test event", 202, "POST", `/v1/projects/${hooked}/webhooks/destinations/${destination}/test-events`)
        testEventClientErrors += a.clientErrors
        testDeliveries.push(a.body.deliveryId)
      },
      async () => {
        const base = Date.UTC(2031, 0, 1) + ++n * 60_000
        const callId = formatTypeId(IdKinds.call, uuidv7Bytes(base, crypto.getRandomValues(new Uint8Array(10))))
        const at = (s: number) => new Date(base + s * 1000).toISOString()
        const sig = (type: string, s: number, data: unknown = {}) => ({ id: `${callId}-${type}`, callId, type, timestamp: at(s), data })
        const signals = [
          sig("started", 0, {
            projectId: hooked,
            direction: "inbound",
            voiceProfile: { id: profileId, endpoint: { type: "sip" } },
            space: { id: `space-${callId}`, type: "direct" },
            caller: { id: formatTypeId(IdKinds.user, uuidv7Bytes(base, crypto.getRandomValues(new Uint8Array(10)))), handle: "+15550100" },
            callee: { id: formatTypeId(IdKinds.user, uuidv7Bytes(base, crypto.getRandomValues(new Uint8Array(10)))), handle: "+12015550100" },
            metadata: {}
          }),
          sig("ringing", 1),
          sig("answered", 2),
          sig("connected", 3),
          sig("ended", 30, { status: "completed", reason: { hangupCause: "normal_clearing" } })
        ]
        // Signals are idempotent by id: a batch cut off is sent again; a repeat is `duplicate`.
        const a = await ok("call signals", 200, "POST", `/v1/projects/${hooked}/platforms/voice/calls/signals`, {
          json: { signals },
          headers: auth(edgeKey)
        })
        for (const r of a.body.results) expect(["applied", "duplicate"], JSON.stringify(r)).toContain(r.outcome)
        calls.push(a.body.results[0].call?.id ?? callId)
      },
      async () => {
        if (operations.length >= 12) return
        const a = await idempotent("sms number", 202, "POST", `/v1/projects/${hooked}/platforms/sms/numbers`, { countryCode: "US" })
        operations.push(a.body.operationId)
      }
    ]

    const t0 = Date.now()
    let killAt = 0
    let dbStoppedAt = 0
    let dbStartedAt = 0
    const chaos = (async () => {
      await sleep(KILL_AT_MS)
      killAt = Date.now()
      servers[1]!.child.kill("SIGKILL")
      await servers[1]!.exited
      await sleep(1000)
      await launch(1)
      // The sessions the kill did not cut lose their connection too (a network blip: the client's
      // socket torn down), so every session resumes at least once.
      for (const s of sessions) if (s.connections === 1) s.current?.ws.terminate()
      await sleep(Math.max(0, t0 + DB_RESTART_AT_MS - Date.now()))
      dbStoppedAt = Date.now()
      await pg.stopAsync()
      await sleep(2000)
      await pg.startAsync()
      dbStartedAt = Date.now()
    })()
    const workers = Array.from({ length: IN_FLIGHT }, async (_, w) => {
      for (let i = w; Date.now() - t0 < LOAD_MS; i++) await ops[i % ops.length]!()
    })
    await Promise.all([...workers, chaos])
    expect(killAt).toBeGreaterThan(0)
    expect(dbStartedAt).toBeGreaterThan(0)

    // --- Drain: every operation finished, every delivery delivered.
    await waitUntil("every provisioning operation finished", async () => {
      for (const id of operations) {
        const a = await ok("GET operation", 200, "GET", `/v1/projects/${hooked}/platforms/operations/${id}`)
        if (!["succeeded", "failed", "cancelled"].includes(a.body.operation.state)) return false
      }
      return true
    }, 60_000)
    const deliveryLog = async () => {
      const all: Array<any> = []
      let token: string | undefined
      do {
        const a = await ok("GET deliveries", 200, "GET",
          `/v1/projects/${hooked}/webhooks/destinations/${destination}/deliveries?pageSize=100${token === undefined ? "" : `&pageToken=${encodeURIComponent(token)}`}`)
        all.push(...a.body.deliveries)
        token = a.body.nextPageToken
      } while (token !== undefined)
      return all
    }
    let deliveries: Array<any> = []
    await waitUntil("every delivery delivered", async () => {
      deliveries = await deliveryLog()
      return deliveries.every((d) => d.status === "delivered")
    }, 90_000)

    // --- The event log: a fresh session resuming after seq 1 (the project's creation, which came
    // before its destination) reads every event of the project that has a delivery.
    const eventIds = new Set(deliveries.filter((d) => d.eventType !== "webhook.test").map((d) => d.eventId as string))
    const full = runSession(1)
    await waitUntil("the event log read after seq 1", () => new Set(full.ids).size >= eventIds.size, 60_000).catch((e: Error) => {
      const seen = new Set(full.ids)
      const missing = deliveries.filter((d) => d.eventType !== "webhook.test" && !seen.has(d.eventId))
      throw new Error(`${e.message}: read ${full.ids.length} (${full.connections} connections), ${eventIds.size} delivered; missing ${missing.length}: ${JSON.stringify(missing.slice(0, 5))}; sessions ${JSON.stringify(sessions.map((s) => [s.ids.length, s.connections]))}`)
    })
    await sleep(2500) // two heartbeats: anything beyond the delivery log's events would have come by now
    await waitUntil("the sessions caught up", () => sessions.every((s) => s.seqs.at(-1) === full.seqs.at(-1)), 60_000)
    for (const s of [...sessions, full]) {
      s.stopped = true
      s.current?.ws.close()
    }
    await Promise.all([...sessions, full].map((s) => s.done))

    // --- Answers: no 5xx outside the outage; client errors only for requests the kill cut off.
    const windowFrom = dbStoppedAt
    const windowTo = dbStartedAt + DB_GRACE_MS
    const unexpected5xx = log.filter((e) => e.status !== undefined && e.status >= 500 && !((e.status === 503 || e.status === 504) && e.end >= windowFrom && e.start <= windowTo))
    expect(unexpected5xx, JSON.stringify(unexpected5xx.slice(0, 10))).toEqual([])
    const clientErrors = log.filter((e) => e.error !== undefined)
    const notTheKill = clientErrors.filter((e) => !(e.start <= killAt + 2000 && e.end >= killAt))
    expect(notTheKill, JSON.stringify(notTheKill.slice(0, 10))).toEqual([])

    // --- Idempotent results: every repeat (during the load and once more now) is the first answer.
    for (const r of repeats) {
      const first = firstAnswers.get(r.key)!
      expect({ key: r.key, status: r.status, body: r.body }).toEqual({ key: r.key, status: first.status, body: first.body })
    }
    const keys = [...firstAnswers.keys()]
    await Promise.all(Array.from({ length: 4 }, async (_, w) => {
      for (let i = w; i < keys.length; i += 4) {
        const first = firstAnswers.get(keys[i]!)!
        const again = await call("replay", first.method, first.path, { json: first.json, idem: keys[i]! })
        expect({ key: keys[i], status: again.status, body: again.body, replayed: again.headers["idempotent-replayed"] })
          .toEqual({ key: keys[i], status: first.status, body: first.body, replayed: "true" })
      }
    }))

    // --- Events and deliveries.
    expect(full.seqs[0]).toBe(2)
    const eventLog = full.ids
    expect(new Set(full.ids).size, "an event read twice from the log").toBe(full.ids.length)
    expect(full.seqs).toEqual([...full.seqs].sort((a, b) => a - b))
    expect([...eventLog].sort()).toEqual([...eventIds].sort()) // one delivery per event: none lost, none invented
    const perEvent = new Map<string, number>()
    for (const d of deliveries) perEvent.set(d.eventId, (perEvent.get(d.eventId) ?? 0) + 1)
    expect([...perEvent.entries()].filter(([, k]) => k > 1), "an event with two deliveries").toEqual([])
    expect(new Set(deliveries.map((d) => d.deliveryId)).size).toBe(deliveries.length)
    const testInLog = new Set(deliveries.filter((d) => d.eventType === "webhook.test").map((d) => d.deliveryId as string))
    for (const id of testDeliveries) expect(testInLog.has(id), `test delivery ${id} in the log`).toBe(true)
    expect(testInLog.size - testDeliveries.length).toBeLessThanOrEqual(testEventClientErrors)
    // The receiver: each delivery at least once (its 2xx answer is what made it `delivered`); nothing else.
    const hooks = receiver.received.filter((r) => r.path === "/hook")
    const received = new Map<string, number>()
    for (const r of hooks) received.set(r.headers["webhook-id"]!, (received.get(r.headers["webhook-id"]!) ?? 0) + 1)
    const logged = new Set(deliveries.map((d) => d.eventId as string))
    expect([...logged].filter((id) => !received.has(id)), "delivered but never received").toEqual([])
    expect([...received.keys()].filter((id) => !logged.has(id)), "received but not in the delivery log").toEqual([])
    const redelivered = [...received.values()].filter((k) => k > 1).length
    // Refused first attempts must have been retried: some redeliveries happen by design.
    expect(redelivered).toBeGreaterThan(0)

    // --- What the writes said must be there.
    // Each rename answered 200 is one `project.updated` with its name (an idempotent retry adds none).
    const updates = full.kinds.filter((k) => k.startsWith("project.updated ")).map((k) => k.slice("project.updated ".length))
    expect([...updates].sort()).toEqual([...renames].sort())
    for (const id of calls) {
      const a = await ok("GET call", 200, "GET", `/v1/projects/${hooked}/platforms/voice/calls/${id}`)
      expect(a.body.status, id).toBe("completed")
    }
    const finished = await Promise.all(operations.map(async (id) =>
      (await ok("GET operation", 200, "GET", `/v1/projects/${hooked}/platforms/operations/${id}`)).body.operation))
    expect(finished.map((o) => o.state)).toEqual(operations.map(() => "succeeded"))
    expect(new Set(finished.map((o) => o.resourceId)).size).toBe(operations.length)
    const resources = (await ok("GET resources", 200, "GET", `/v1/projects/${hooked}/platforms/resources?type=sms_number&pageSize=100`)).body.resources as Array<any>
    expect(resources.map((r) => r.resourceId).sort()).toEqual(finished.map((o) => o.resourceId).sort())
    expect(new Set(resources.map((r) => r.detail.phoneNumber)).size).toBe(operations.length)

    // --- Channel sessions: every event of the project, once each, in order, across their resumes.
    // Each session tails the log from where it joined (at the latest the marker): the rest of it, exactly.
    for (const s of sessions) {
      const from = full.seqs.indexOf(s.seqs[0]!)
      expect(from).toBeGreaterThanOrEqual(0)
      expect(s.seqs[0]).toBeLessThanOrEqual(markerSeq)
      expect(s.seqs).toEqual(full.seqs.slice(from))
      expect(s.ids).toEqual(full.ids.slice(from))
      expect(s.kinds).toEqual(full.kinds.slice(from))
    }
    // One was on the killed process; each resumed at least once.
    for (const s of sessions) expect(s.connections).toBeGreaterThan(1)

    // A report for the log: how much load went through and what the failures did.
    console.log(JSON.stringify({
      requests: log.length,
      statuses: Object.fromEntries([...new Set(log.map((e) => e.status ?? "client error"))].map((k) => [k, log.filter((e) => (e.status ?? "client error") === k).length])),
      perProcess: Object.fromEntries(proxy.accepted),
      events: eventLog.length,
      deliveries: deliveries.length,
      redelivered,
      renames: renames.length,
      idempotentKeys: keys.length,
      calls: calls.length,
      operations: operations.length,
      sessionResumes: sessions.map((s) => s.connections - 1)
    }))
  }, 240_000)
})
