/**
 * Message records driven by the pure status machine (`MessageMachine.apply`): one fact on a
 * record (or on none yet) gives the outcome and the record after it. Plain data, no Effect, no
 * clock: `createdAt` is the time of the fact that created the message, `updatedAt` and every
 * milestone the time of the fact that reached it.
 *
 * The machine decides the status; this module adds what the record carries beside it — the fixed
 * fields of a creating fact (`dispatched`, `received`) with the content checked against the
 * platform's shape (a mismatch is rejected as `invalid-content`), the acceptance object of
 * `accepted`, the failure of `failed`.
 *
 * Also here: the wire form of a record (`encodeMessage`, the same JSON as `Schema.encode(Message)`
 * without re-validating the union — MessageRecords.test.ts checks both agree), the `message.*`
 * event of an applied fact and the row `message_events` shows for it.
 */
import { DateTime, Result, Schema } from "effect"
import { formatTimestamp } from "../shared/Timestamp.js"
import { apply as machineApply, type IgnoredReason, type MessageState, type RejectedReason } from "./MessageMachine.js"
import {
  contentSchemaOf,
  type Message,
  type MessageCreatedFactData,
  type MessageEncoded,
  type MessageFact,
  type MessageFactResult,
  type MessageFailure
} from "./MessageSchema.js"

export type MessageFactReason = IgnoredReason | RejectedReason | "invalid-content" | "unknown-resource"

export type FactDecision =
  | { readonly outcome: "applied"; readonly message: Message }
  | { readonly outcome: "ignored" | "rejected"; readonly reason: MessageFactReason; readonly message: Message | undefined }

type Stamps = Partial<Record<"dispatchedAt" | "acceptedAt" | "deliveredAt" | "failedAt" | "receivedAt", DateTime.Utc>>

const millis = (t: Stamps) => {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(t)) if (v !== undefined) out[k] = DateTime.toEpochMillis(v)
  return out
}

/** The machine's view of a record. */
export const stateOf = (m: Message): MessageState => ({
  messageId: m.id,
  direction: m.status === "received" ? "received" : "addressed",
  status: m.status,
  timestamps: millis(m.timestamps as Stamps),
  updatedAt: DateTime.toEpochMillis(m.updatedAt)
})

const decodeContent = (platform: string, content: unknown) =>
  Schema.decodeUnknownResult(contentSchemaOf(platform), { onExcessProperty: "error" })(content)

const created = (projectId: string, fact: MessageFact, data: MessageCreatedFactData, content: unknown): Message => {
  const at = fact.timestamp
  const record: Record<string, unknown> = {
    id: fact.messageId,
    projectId,
    platform: data.platform,
    space: data.space,
    sentBy: data.sentBy,
    content,
    metadata: data.metadata,
    createdAt: at,
    updatedAt: at,
    status: fact.type,
    timestamps: fact.type === "received" ? { receivedAt: at } : { dispatchedAt: at }
  }
  if (data.addressedTo !== undefined) record.addressedTo = data.addressedTo
  if (data.receivedBy !== undefined) record.receivedBy = data.receivedBy
  if (data.parentMessageId !== undefined) record.parentMessageId = data.parentMessageId
  return record as unknown as Message
}

/**
 * One fact on a project's message (or on none yet). `seen` tells whether the fact's id was applied
 * before in the project (fact ids are unique per project).
 */
export const applyFact = (
  projectId: string,
  current: Message | undefined,
  fact: MessageFact,
  seen: (factId: string) => boolean
): FactDecision => {
  const outcome = machineApply(
    current === undefined ? undefined : stateOf(current),
    { id: fact.id, messageId: fact.messageId, type: fact.type, timestamp: DateTime.toEpochMillis(fact.timestamp) },
    seen
  )
  if (outcome.outcome !== "applied") return { outcome: outcome.outcome, reason: outcome.reason, message: current }
  const at = fact.timestamp
  if (current === undefined) {
    const data = fact.data as MessageCreatedFactData
    const content = decodeContent(data.platform, data.content)
    if (Result.isFailure(content)) return { outcome: "rejected", reason: "invalid-content", message: undefined }
    return { outcome: "applied", message: created(projectId, fact, data, content.success) }
  }
  const base = current as unknown as Record<string, unknown>
  const stamps = current.timestamps as Stamps
  switch (fact.type) {
    case "accepted": {
      const { acceptance } = fact.data as { readonly acceptance: Message["acceptance"] }
      return {
        outcome: "applied",
        message: { ...base, status: "accepted", acceptance, updatedAt: at, timestamps: { ...stamps, acceptedAt: at } } as unknown as Message
      }
    }
    case "delivered":
      return {
        outcome: "applied",
        message: { ...base, status: "delivered", updatedAt: at, timestamps: { ...stamps, deliveredAt: at } } as unknown as Message
      }
    case "failed": {
      const { failure } = fact.data as { readonly failure: MessageFailure }
      return {
        outcome: "applied",
        message: { ...base, status: "failed", failure, updatedAt: at, timestamps: { ...stamps, failedAt: at } } as unknown as Message
      }
    }
    default:
      // The machine creates only from `dispatched` / `received` and never applies them again.
      throw new Error(`message machine applied ${fact.type} to an existing message`)
  }
}

// ---------------------------------------------------------------------------------------------
// Wire form
// ---------------------------------------------------------------------------------------------

const stampOrder = ["dispatchedAt", "acceptedAt", "deliveredAt", "failedAt", "receivedAt"] as const
const fieldOrder = [
  "id", "projectId", "space", "sentBy", "metadata", "createdAt", "updatedAt", "addressedTo", "receivedBy",
  "parentMessageId", "status", "acceptance", "failure", "timestamps", "platform", "content"
] as const

/**
 * `Schema.encodeSync(Message)` for records this module made or the store decoded: timestamps to
 * their wire form, every other field as it is (they are plain JSON already).
 */
export const encodeMessage = (m: Message): MessageEncoded => {
  const src = m as unknown as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const k of fieldOrder) {
    const v = src[k]
    if (v === undefined) continue
    if (k === "createdAt" || k === "updatedAt") out[k] = formatTimestamp(v as DateTime.Utc)
    else if (k === "timestamps") {
      const t = v as Stamps
      const enc: Record<string, string> = {}
      for (const s of stampOrder) if (t[s] !== undefined) enc[s] = formatTimestamp(t[s])
      out[k] = enc
    } else out[k] = v
  }
  return out as unknown as MessageEncoded
}

/** A fact's result in wire form. */
export const encodeFactResult = (r: MessageFactResult) => ({
  id: r.id,
  outcome: r.outcome,
  ...(r.reason === undefined ? {} : { reason: r.reason }),
  ...(r.message === undefined ? {} : { message: encodeMessage(r.message) }),
  ...(r.filteredCodeId === undefined ? {} : { filteredCodeId: r.filteredCodeId })
})

export const resultOf = (fact: MessageFact, d: FactDecision): MessageFactResult => ({
  id: fact.id,
  outcome: d.outcome,
  ...(d.outcome === "applied" ? {} : { reason: d.reason }),
  ...(d.message === undefined ? {} : { message: d.message })
})

/** The source of a message's events: the message's path. */
export const messageEventSource = (projectId: string, messageId: string) =>
  `/v1/projects/${projectId}/platforms/messages/${messageId}`
