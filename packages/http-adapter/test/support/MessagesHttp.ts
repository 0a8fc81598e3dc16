/** What the /v1 message suites share: fact builders in wire form and the outbox's message events. */
import { EventOutbox } from "@switchboard/core/events"
import { Message, MessageEventData } from "@switchboard/core/messages"
import { IdKinds } from "@switchboard/core/shared"
import { DateTime, Effect, Result, Schema } from "effect"
import { expect } from "vitest"
import type { TestServer } from "./TestServer.js"
import { newId } from "./VoiceHttp.js"

export const messagesPath = (projectId: string) => `/v1/projects/${projectId}/platforms/messages`

/** Facts of one message, in wire form; timestamps are `base` + seconds; fact ids `<messageId>:<type>` unless given. */
export const factsOf = (messageId: string, base = Date.UTC(2031, 0, 1)) => {
  const ts = (s: number) => new Date(base + s * 1000).toISOString()
  const created = (platform: string, content: unknown = { type: "text", text: "hello" }) => ({
    platform,
    space: { id: `space-${messageId}`, type: "direct" },
    sentBy: { id: newId(IdKinds.user), handle: "+15550100" },
    addressedTo: { id: newId(IdKinds.user), handle: "+12015550100" },
    content,
    metadata: { test: "yes" }
  })
  const fact = (type: string, s: number, data: unknown, id = `${messageId}:${type}`) =>
    ({ id, messageId, type, timestamp: ts(s), data })
  return {
    ts,
    dispatched: (s = 0, platform = "sms", id?: string, content?: unknown) => fact("dispatched", s, created(platform, content), id),
    /** With `text`, a text content; with `resourceId`, the project's resource that received it. */
    received: (s = 0, platform = "imessage", id?: string, text?: string, resourceId?: string) =>
      fact("received", s, {
        ...created(platform, text === undefined ? undefined : { type: "text", text }),
        ...(resourceId === undefined ? {} : { resourceId })
      }, id),
    accepted: (s: number, id?: string, providerMessageId: string | null = "SM1") =>
      fact("accepted", s, { acceptance: { providerMessageId } }, id),
    delivered: (s: number, id?: string) => fact("delivered", s, {}, id),
    failed: (s: number, id?: string, code = "provider_rejected") => fact("failed", s, { failure: { code, message: "carrier said no" } }, id)
  }
}

/** The project's message events in outbox order (of one message if given), each checked against its schema. */
export const messageEvents = async (s: TestServer, projectId: string, messageId?: string) => {
  const rows = await s.run(Effect.flatMap(EventOutbox, (o) => o.list({ projectId, after: 0, limit: 10_000 })))
  const events = rows.filter((r) => r.event.type.startsWith("message.") && (messageId === undefined || r.event.source.endsWith(`/${messageId}`)))
  for (const r of events) {
    const decoded = Schema.decodeUnknownResult(MessageEventData)(r.event.data, { onExcessProperty: "error" })
    expect(Result.isSuccess(decoded), JSON.stringify(r.event.data)).toBe(true)
    expect(r.event.source).toMatch(new RegExp(`^/v1/projects/${projectId}/platforms/messages/sb_msg_`))
  }
  return events.map((r) => ({
    type: r.event.type,
    timestamp: new Date(DateTime.toEpochMillis(r.event.timestamp)).toISOString(),
    data: r.event.data as Record<string, any>
  }))
}

/** The record decodes with the strict schema (one shape per status and platform). */
export const expectMessageShape = (body: unknown) => {
  const decoded = Schema.decodeUnknownResult(Message)(body, { onExcessProperty: "error" })
  expect(Result.isSuccess(decoded), JSON.stringify(body)).toBe(true)
}

export const newMessageId = () => newId(IdKinds.message)
