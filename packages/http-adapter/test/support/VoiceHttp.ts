/** What the /v1 voice suites share: a project with lines, signal builders, the outbox's call events. */
import { EventOutbox } from "@switchboard/core/events"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import { AccountId, formatTypeId, IdKinds, OrganizationId, uuidv7Bytes } from "@switchboard/core/shared"
import { CallEvent, Lines } from "@switchboard/core/voice"
import { DateTime, Effect, Result, Schema } from "effect"
import { expect } from "vitest"
import type { CallInit, CallResult } from "./HttpClient.js"
import type { TestServer } from "./TestServer.js"

type Call = (path: string, init?: CallInit) => Promise<CallResult>

let seq = 0
export const idem = () => `voice-${Date.now()}-${++seq}`
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(++seq).toString(36)}x`
export const newId = (kind: (typeof IdKinds)[keyof typeof IdKinds]) =>
  formatTypeId(kind, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10))))

/** A new project of the server's admin account (organization inserted directly, project over HTTP). */
export const newProject = async (s: TestServer, call: Call) => {
  const organizationId = await s.run(Effect.gen(function*() {
    const id = OrganizationId.make(newId(IdKinds.organization))
    const now = yield* DateTime.now
    yield* (yield* OrganizationsRepo).insert({ organizationId: id, name: "Org", createdAt: now, updatedAt: now }, AccountId.make(s.accountId))
    return id as string
  }))
  const r = await call(`/v1/organizations/${organizationId}/projects`, {
    method: "POST",
    json: { name: "Voice", slug: unique("voice") },
    idem: idem()
  })
  expect(r.res.status, JSON.stringify(r.body)).toBe(201)
  return r.body.projectId as string
}

/** A line from the server's (simulated) line provider. */
export const newLine = (s: TestServer, projectId: string, platform: "voice" | "sms" | "imessage" = "voice") =>
  s.run(Effect.flatMap(Lines, (l) => l.allocate({ projectId, platform })))

/** A project API key with these permissions; returns its secret. */
export const projectKey = async (call: Call, projectId: string, permissions: ReadonlyArray<string>) => {
  const r = await call(`/v1/projects/${projectId}/api-keys`, { method: "POST", json: { name: "k", permissions }, idem: idem() })
  expect(r.res.status, JSON.stringify(r.body)).toBe(201)
  return r.body.secret as string
}

export const voicePath = (projectId: string) => `/v1/projects/${projectId}/platforms/voice`

/** Signals of one call, in wire form; timestamps are `base` + seconds. */
export const signalsOf = (callId: string, projectId: string, profileId: string, base = Date.UTC(2031, 0, 1)) => {
  const ts = (s: number) => new Date(base + s * 1000).toISOString()
  const caller = newId(IdKinds.user)
  return {
    caller,
    started: (direction: "inbound" | "outbound" = "inbound", id = `${callId}:started`) => ({
      id,
      callId,
      type: "started",
      timestamp: ts(0),
      data: {
        projectId,
        direction,
        voiceProfile: { id: profileId, endpoint: { type: "sip" } },
        space: { id: `space-${callId}`, type: "direct" },
        caller: { id: caller, handle: "+15550100" },
        callee: { id: newId(IdKinds.user), handle: "+12015550100" },
        metadata: { test: "yes" }
      }
    }),
    at: (type: "ringing" | "answered" | "connected", s: number, id = `${callId}:${type}`) => ({ id, callId, type, timestamp: ts(s), data: {} }),
    dtmf: (digit: string, ms: number, id = `${callId}:dtmf:${ms}`) => ({
      id,
      callId,
      type: "dtmf",
      timestamp: new Date(base + 10_000 + ms).toISOString(),
      data: { digit, actorId: caller }
    }),
    ended: (status: string, s: number, id = `${callId}:ended`, reason?: object) => ({
      id,
      callId,
      type: "ended",
      timestamp: ts(s),
      data: reason === undefined ? { status } : { status, reason }
    }),
    ts
  }
}

/** The project's call events in outbox order, each checked against its schema in wire form. */
export const callEvents = async (s: TestServer, projectId: string, callId?: string) => {
  const rows = await s.run(Effect.flatMap(EventOutbox, (o) => o.list({ projectId, after: 0, limit: 10_000 })))
  const events = rows.filter((r) => r.event.type.startsWith("call.") && (callId === undefined || r.event.source.endsWith(`/${callId}`)))
  for (const r of events) {
    const wire = { ...r.event, timestamp: new Date(DateTime.toEpochMillis(r.event.timestamp)).toISOString() }
    const decoded = Schema.decodeUnknownResult(CallEvent)(wire, { onExcessProperty: "error" })
    expect(Result.isSuccess(decoded), JSON.stringify(wire)).toBe(true)
    expect(r.event.source).toMatch(new RegExp(`^/v1/projects/${projectId}/platforms/voice/calls/sb_call_`))
  }
  return events.map((r) => ({
    type: r.event.type,
    timestamp: new Date(DateTime.toEpochMillis(r.event.timestamp)).toISOString(),
    data: r.event.data as Record<string, any>
  }))
}
