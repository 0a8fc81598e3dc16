/**
 * A raw `ws` client of the event channel for tests, and a project with its management secret: the
 * frames a session receives in order, waits for one that matches, and the close code and reason.
 */
import { EventChannelStore, type EventEnvelope } from "@switchboard/core/events"
import { AccountId, formatTypeId, IdKinds, OrganizationId, uuidv7Bytes } from "@switchboard/core/shared"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import { DateTime, Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"
import WebSocket from "ws"
import { httpClient } from "./HttpClient.js"
import { httpsCall } from "./ManagementClient.js"
import type { TestServer } from "./TestServer.js"

let seq = 0
const idem = () => `channel-${Date.now()}-${++seq}`

/** A project created through /v1, with its management secret (from a rotation). */
export const newChannelProject = async (s: TestServer) => {
  const v1 = httpClient(() => s)
  const organizationId = await s.run(Effect.gen(function*() {
    const id = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10)))))
    const now = yield* DateTime.now
    yield* (yield* OrganizationsRepo).insert({ organizationId: id, name: "Org", createdAt: now, updatedAt: now }, AccountId.make(s.accountId))
    return id as string
  }))
  const created = await v1(`/v1/organizations/${organizationId}/projects`, {
    method: "POST",
    json: { name: "Channel", slug: `ch-${Date.now().toString(36)}-${(++seq).toString(36)}x` },
    idem: idem()
  })
  expect(created.res.status, created.text).toBe(201)
  const projectId = created.body.projectId as string
  const rotate = async () => {
    const rotated = await v1(`/v1/projects/${projectId}/secret-rotations`, { method: "POST", idem: idem() })
    expect(rotated.res.status, rotated.text).toBe(200)
    return rotated.body.projectSecret as string
  }
  const secret = await rotate()
  /** An ingress endpoint of the project: its id and URL. */
  const ingress = async (platform = "slack", sourceId = "team-1") => {
    const r = await v1(`/v1/projects/${projectId}/ingress-endpoints`, { method: "POST", json: { platform, sourceId } })
    expect(r.res.status, r.text).toBe(201)
    // The URL is on API_URL; the test server listens elsewhere.
    return { id: r.body.ingressEndpoint.id as string, url: `${s.baseUrl}${new URL(r.body.url as string).pathname}` }
  }
  return { projectId, secret, rotate, ingress, v1 }
}

/** Mints a stream token over the management API (HTTPS). */
export const mintToken = async (s: TestServer, projectId: string, secret: string) => {
  const r = await httpsCall(`${s.tlsBaseUrl}/projects/${projectId}/fusor/token`, {
    method: "POST",
    auth: { username: projectId, password: secret },
    ca: s.tlsCa
  })
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  return r.body.data as { token: string; expiresIn: number }
}

export interface Frames {
  readonly ws: WebSocket
  readonly frames: Array<any>
  /** The next frame (after those already taken) matching `match`, within `ms`. */
  readonly next: (match?: (f: any) => boolean, ms?: number) => Promise<any>
  readonly closed: Promise<{ code: number; reason: string }>
  readonly opened: Promise<void>
  readonly send: (frame: unknown) => void
}

/**
 * A session on `url` offering `protocols`; frames are collected as they come — what `keep` takes of
 * each (all of it unless told; a test of large events keeps their ids, not their payloads).
 */
export const connect = (url: string, protocols: string | Array<string>, ca?: string, keep: (frame: any) => any = (f) => f): Frames => {
  const ws = new WebSocket(url, protocols, ca === undefined ? {} : { ca })
  const frames: Array<any> = []
  let taken = 0
  const waiters: Array<() => void> = []
  ws.on("message", (data) => {
    frames.push(keep(JSON.parse(data.toString())))
    for (const w of waiters.splice(0)) w()
  })
  ws.on("error", () => undefined)
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => {
      resolve({ code, reason: reason.toString() })
      for (const w of waiters.splice(0)) w()
    })
  )
  const opened = new Promise<void>((resolve, reject) => {
    ws.on("open", () => resolve())
    ws.on("unexpected-response", (_req, res) => reject(Object.assign(new Error(`refused ${res.statusCode}`), { status: res.statusCode })))
    ws.on("error", reject)
  })
  const next = async (match: (f: any) => boolean = () => true, ms = 10_000) => {
    const deadline = Date.now() + ms
    for (;;) {
      while (taken < frames.length) {
        const f = frames[taken++]
        if (match(f)) return f
      }
      if (ws.readyState === WebSocket.CLOSED) throw new Error(`closed; frames: ${JSON.stringify(frames).slice(0, 2000)}`)
      if (Date.now() > deadline) throw new Error(`no matching frame; frames: ${JSON.stringify(frames).slice(0, 2000)}`)
      await new Promise<void>((resolve) => {
        waiters.push(resolve)
        setTimeout(resolve, 100)
      })
    }
  }
  return { ws, frames, next, closed, opened, send: (f) => ws.send(typeof f === "string" ? f : JSON.stringify(f)) }
}

/** The channel URL of a server (ws on the plain listener). */
export const channelUrl = (s: TestServer) => `${s.baseUrl.replace(/^http/, "ws")}/v1/subscribe`
export const channelTlsUrl = (s: TestServer) => `${s.tlsBaseUrl!.replace(/^https/, "wss")}/v1/subscribe`

/** Commits `n` events of `type` to the project straight through the store (as a feature would); their seqs. */
export const commitEvents = (s: TestServer, projectId: string, n: number, type = "project.updated", data: Record<string, unknown> = {}) =>
  s.run(Effect.gen(function*() {
    const store = yield* EventChannelStore
    const seqs: Array<number> = []
    for (let i = 0; i < n; i++) {
      const event: EventEnvelope = {
        id: formatTypeId(IdKinds.event, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10)))) as EventEnvelope["id"],
        type,
        apiVersion: "2026-07-01",
        source: "test",
        timestamp: yield* DateTime.now,
        data: { i, ...data }
      }
      seqs.push(yield* store.append({ projectId, event, replyUntil: null, platform: null }))
    }
    return seqs
  }))

/** Polls `check` every 50 ms until it holds; past `ms`, fails naming `what`. */
export const until = async (what: string, check: () => Promise<boolean> | boolean, ms = 30_000) => {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A spectrum-ts SDK script running in a child process against the test server, and what it printed. */
export interface SdkClient {
  readonly child: ChildProcess
  /** Everything the child wrote to stdout and stderr so far. */
  readonly output: () => string
  /** Whether the project has a live `fusor` session (the SDK's) refreshed within the last minute. */
  readonly present: () => Promise<boolean>
}

/**
 * Runs `script` in `node --experimental-websocket` (the SDK needs a global WebSocket) with only the
 * SDK's URLs pointed at the server's TLS listener, the test certificate trusted
 * (NODE_EXTRA_CA_CERTS) and the project's credentials; `env` adds the script's own. Resolves once
 * the SDK's session is present.
 */
export const startSdkClient = async (
  s: TestServer,
  project: { readonly projectId: string; readonly secret: string },
  script: string,
  env: Record<string, string> = {}
): Promise<SdkClient> => {
  const ca = join(mkdtempSync(join(tmpdir(), "sb-sdk-")), "ca.pem")
  writeFileSync(ca, s.tlsCa!)
  let out = ""
  const child = spawn(process.execPath, ["--experimental-websocket", script], {
    env: {
      ...process.env,
      NODE_EXTRA_CA_CERTS: ca,
      SPECTRUM_CLOUD_URL: s.tlsBaseUrl!,
      SPECTRUM_FUSOR_WS_URL: channelTlsUrl(s),
      PROJECT_ID: project.projectId,
      PROJECT_SECRET: project.secret,
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  child.stdout!.on("data", (d) => (out += d))
  child.stderr!.on("data", (d) => (out += d))
  const present = () =>
    s.run(Effect.flatMap(EventChannelStore, (store) => store.present(project.projectId, "fusor", DateTime.makeUnsafe(Date.now() - 60_000) as DateTime.Utc)))
  await until("the SDK's session", present).catch((e: Error) => {
    child.kill("SIGKILL")
    throw new Error(`${e.message}; the SDK printed: ${out}`)
  })
  return { child, output: () => out, present }
}
