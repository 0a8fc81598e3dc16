/**
 * The `message.*` events (docs/messages.md): one per applied fact — `message.dispatched`,
 * `message.accepted`, `message.delivered`, `message.failed`, `message.received` — whose `data` is
 * `{message}`, the record after the fact. Their source is the message's path,
 * `/v1/projects/<projectId>/platforms/messages/<messageId>`; their timestamp the fact's.
 */
import { Schema } from "effect"
import type { EventTypeSpec } from "../events/Catalog.js"
import { Message } from "./MessageSchema.js"

export const MessageEventData = Schema.Struct({ message: Message }).annotate({ identifier: "MessageEventData" })
export type MessageEventData = typeof MessageEventData.Type

/** Event type → its data schema, audience and description, for the event catalog. */
export const messageEventSchemas: Readonly<Record<string, EventTypeSpec>> = {
  "message.dispatched": { data: MessageEventData, audience: "agent", description: "A message was handed to its platform." },
  "message.accepted": { data: MessageEventData, audience: "agent", description: "The platform accepted a message." },
  "message.delivered": { data: MessageEventData, audience: "agent", description: "A message was delivered." },
  "message.failed": { data: MessageEventData, audience: "agent", description: "A message failed; data.message.failure says why." },
  "message.received": { data: MessageEventData, audience: "agent", description: "An inbound message was received." }
}
