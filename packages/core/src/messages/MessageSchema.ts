/**
 * Message records and message facts on the wire (issue 15 §1; SPEC.md § Accepted message,
 * § Message status).
 *
 * A message record has one shape per status and per platform, no extra properties. The accepted
 * shapes are the spec's (`AcceptedMessage`, projects/Schema.ts), reused as they are; the other
 * statuses are ours (the spec shows only `accepted`), built from the same fields:
 *
 * | status     | acceptance | failure  | timestamps (others must be absent)            |
 * |------------|------------|----------|-----------------------------------------------|
 * | dispatched | absent     | absent   | dispatchedAt                                  |
 * | accepted   | required   | absent   | dispatchedAt, acceptedAt (the spec's)         |
 * | delivered  | required   | absent   | dispatchedAt, acceptedAt, deliveredAt         |
 * | failed     | optional¹  | required | dispatchedAt, acceptedAt¹, failedAt           |
 * | received   | absent     | absent   | receivedAt                                    |
 *
 * ¹ present exactly when the message was accepted before it failed. `timestamp` is absent in every
 * shape (the spec's accepted shape forbids it; no other shape has a use for it).
 *
 * A fact is `{id, messageId, type, timestamp, data}`; `data` depends on `type`: `dispatched` and
 * `received` carry the message's fixed fields (they create the record), `accepted` the acceptance
 * object, `failed` the failure, `delivered` nothing. The content is checked against the platform's
 * content shape when the fact is applied (a mismatch rejects that fact, not the batch).
 */
import { Schema } from "effect"
import { BoundedString } from "../shared/Bounds.js"
import { MessageId, ProjectId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import {
  AcceptedMessage,
  EmailAcceptedMessage,
  EmailMessageContent,
  GenericMessageContent,
  ImessageAcceptedMessage,
  ImessageMessageContent,
  MessageAcceptance,
  PlatformIdentifier,
  ResourceMetadata,
  SmsAcceptedMessage,
  SmsMessageContent,
  SpaceSnapshot,
  TelegramAcceptedMessage,
  TelegramMessageContent,
  UnknownMessagePlatform,
  UnknownPlatformAcceptedMessage,
  UserSnapshot,
  WhatsappAcceptedMessage,
  WhatsappBusinessAcceptedMessage,
  WhatsappMessageContent
} from "../projects/Schema.js"

const strict = { onExcessProperty: "error" } as const
/** A key that must not appear at all (not even as `undefined`). */
const Absent = Schema.optionalWith(Schema.Never, { exact: true })
const optional = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

export const messageStatuses = ["dispatched", "accepted", "delivered", "failed", "received"] as const
export const MessageStatus = Schema.Literal(...messageStatuses).annotations({ identifier: "MessageStatus" })
export type MessageStatus = typeof MessageStatus.Type

/** Why a message failed: a machine-readable code and, optionally, the provider's words. */
export const MessageFailure = Schema.Struct({
  code: Schema.String.pipe(
    Schema.pattern(/^[a-z][a-z0-9_.-]{0,63}$/, { message: () => "must be a lower-case code like provider_rejected" })
  ),
  message: optional(BoundedString(1, 512))
}).annotations({ identifier: "MessageFailure", parseOptions: strict })
export type MessageFailure = typeof MessageFailure.Type

/** Milestones must not go backwards (the machine refuses a fact that would). */
const ordered = (t: Partial<Record<string, { readonly epochMillis: number }>>, keys: ReadonlyArray<string>) => {
  let last = -Infinity
  for (const k of keys) {
    const v = t[k]
    if (v === undefined) continue
    if (v.epochMillis < last) return `${k} must not be before the milestones that precede it`
    last = v.epochMillis
  }
  return true
}

export const DispatchedMessageTimestamps = Schema.Struct({
  dispatchedAt: Timestamp,
  acceptedAt: Absent,
  deliveredAt: Absent,
  failedAt: Absent,
  receivedAt: Absent
}).annotations({ identifier: "DispatchedMessageTimestamps" })

export const DeliveredMessageTimestamps = Schema.Struct({
  dispatchedAt: Timestamp,
  acceptedAt: Timestamp,
  deliveredAt: Timestamp,
  failedAt: Absent,
  receivedAt: Absent
}).pipe(Schema.filter((t) => ordered(t, ["dispatchedAt", "acceptedAt", "deliveredAt"])))
  .annotations({ identifier: "DeliveredMessageTimestamps" })

export const FailedMessageTimestamps = Schema.Struct({
  dispatchedAt: Timestamp,
  acceptedAt: optional(Timestamp),
  deliveredAt: Absent,
  failedAt: Timestamp,
  receivedAt: Absent
}).pipe(Schema.filter((t) => ordered(t, ["dispatchedAt", "acceptedAt", "failedAt"])))
  .annotations({ identifier: "FailedMessageTimestamps" })

export const ReceivedMessageTimestamps = Schema.Struct({
  dispatchedAt: Absent,
  acceptedAt: Absent,
  deliveredAt: Absent,
  failedAt: Absent,
  receivedAt: Timestamp
}).annotations({ identifier: "ReceivedMessageTimestamps" })

const commonFields = {
  id: MessageId,
  projectId: ProjectId,
  space: SpaceSnapshot,
  sentBy: UserSnapshot,
  metadata: ResourceMetadata,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  addressedTo: optional(UserSnapshot),
  receivedBy: optional(UserSnapshot),
  parentMessageId: optional(MessageId),
  timestamp: Absent
}

const statusFields = {
  dispatched: { status: Schema.Literal("dispatched"), acceptance: Absent, failure: Absent, timestamps: DispatchedMessageTimestamps },
  delivered: {
    status: Schema.Literal("delivered"),
    acceptance: MessageAcceptance,
    failure: Absent,
    timestamps: DeliveredMessageTimestamps
  },
  failed: {
    status: Schema.Literal("failed"),
    acceptance: optional(MessageAcceptance),
    failure: MessageFailure,
    timestamps: FailedMessageTimestamps
  },
  received: { status: Schema.Literal("received"), acceptance: Absent, failure: Absent, timestamps: ReceivedMessageTimestamps }
} as const

const shape = <F extends Schema.Struct.Fields, P extends Schema.Schema.AnyNoContext, C extends Schema.Schema.AnyNoContext>(
  fields: F,
  platform: P,
  content: C,
  identifier: string
) => Schema.Struct({ ...commonFields, ...fields, platform, content }).annotations({ identifier, parseOptions: strict })

/** One shape per platform for a status (the accepted shapes' platforms and contents). */
const shapesOf = <F extends Schema.Struct.Fields>(fields: F, name: string) =>
  Schema.Union(
    shape(fields, Schema.Literal("email"), EmailMessageContent, `Email${name}Message`),
    shape(fields, Schema.Literal("imessage"), ImessageMessageContent, `Imessage${name}Message`),
    shape(fields, Schema.Literal("sms"), SmsMessageContent, `Sms${name}Message`),
    shape(fields, Schema.Literal("telegram"), TelegramMessageContent, `Telegram${name}Message`),
    shape(fields, Schema.Literal("whatsapp"), WhatsappMessageContent, `Whatsapp${name}Message`),
    shape(fields, Schema.Literal("whatsapp_business"), WhatsappMessageContent, `WhatsappBusiness${name}Message`),
    shape(fields, UnknownMessagePlatform, GenericMessageContent, `UnknownPlatform${name}Message`)
  ).annotations({ identifier: `${name}Message`, parseOptions: strict })

const contentSchemas: Readonly<Record<string, Schema.Schema<any, any>>> = {
  email: EmailMessageContent,
  imessage: ImessageMessageContent,
  sms: SmsMessageContent,
  telegram: TelegramMessageContent,
  whatsapp: WhatsappMessageContent,
  whatsapp_business: WhatsappMessageContent
}

export const DispatchedMessage = shapesOf(statusFields.dispatched, "Dispatched")
export const DeliveredMessage = shapesOf(statusFields.delivered, "Delivered")
export const FailedMessage = shapesOf(statusFields.failed, "Failed")
export const ReceivedMessage = shapesOf(statusFields.received, "Received")
export {
  AcceptedMessage,
  EmailAcceptedMessage,
  ImessageAcceptedMessage,
  SmsAcceptedMessage,
  TelegramAcceptedMessage,
  UnknownPlatformAcceptedMessage,
  WhatsappAcceptedMessage,
  WhatsappBusinessAcceptedMessage
}

/** A message record: one shape per status and per platform (see the module comment). */
export const Message = Schema.Union(DispatchedMessage, AcceptedMessage, DeliveredMessage, FailedMessage, ReceivedMessage)
  .annotations({ identifier: "Message", parseOptions: strict })
export type Message = typeof Message.Type
export type MessageEncoded = typeof Message.Encoded

/** The content shape of each known platform; any other platform uses the generic one. */
export const contentSchemaOf = (platform: string): Schema.Schema<any, any> =>
  Object.hasOwn(contentSchemas, platform) ? contentSchemas[platform]! : GenericMessageContent

// ---------------------------------------------------------------------------------------------
// Facts
// ---------------------------------------------------------------------------------------------

/** A fact's id: the edge's own id for what it observed. Unique per project: a repeat is ignored. */
export const MessageFactId = BoundedString(1, 256).annotations({ identifier: "MessageFactId" })

export const messageFactTypes = messageStatuses
export const MessageFactType = Schema.Literal(...messageFactTypes).annotations({ identifier: "MessageFactType" })
export type MessageFactType = typeof MessageFactType.Type

/**
 * `dispatched` / `received` data: the message's fixed fields. The content is any typed content
 * here and is checked against the platform's shape when the fact is applied.
 */
export const MessageCreatedFactData = Schema.Struct({
  platform: PlatformIdentifier,
  space: SpaceSnapshot,
  sentBy: UserSnapshot,
  content: GenericMessageContent,
  metadata: ResourceMetadata,
  addressedTo: optional(UserSnapshot),
  receivedBy: optional(UserSnapshot),
  parentMessageId: optional(MessageId)
}).annotations({ identifier: "MessageCreatedFactData", parseOptions: strict })
export type MessageCreatedFactData = typeof MessageCreatedFactData.Type

export const MessageAcceptedFactData = Schema.Struct({ acceptance: MessageAcceptance })
  .annotations({ identifier: "MessageAcceptedFactData", parseOptions: strict })
/** `delivered` data: an empty object (`Schema.Struct({})` alone would take any value but null). */
export const MessageDeliveredFactData = Schema.Struct({}).pipe(
  Schema.filter((d) => (typeof d === "object" && !Array.isArray(d) && Object.keys(d).length === 0) || "must be an empty object")
).annotations({ identifier: "MessageDeliveredFactData" })
export const MessageFailedFactData = Schema.Struct({ failure: MessageFailure })
  .annotations({ identifier: "MessageFailedFactData", parseOptions: strict })

const fact = <const T extends MessageFactType, D extends Schema.Schema.AnyNoContext>(type: T, data: D) =>
  Schema.Struct({
    id: MessageFactId,
    messageId: MessageId,
    type: Schema.Literal(type),
    timestamp: Timestamp,
    data
  }).annotations({ identifier: `Message${type[0]!.toUpperCase()}${type.slice(1)}Fact`, parseOptions: strict })

export const MessageDispatchedFact = fact("dispatched", MessageCreatedFactData)
export const MessageAcceptedFact = fact("accepted", MessageAcceptedFactData)
export const MessageDeliveredFact = fact("delivered", MessageDeliveredFactData)
export const MessageFailedFact = fact("failed", MessageFailedFactData)
export const MessageReceivedFact = fact("received", MessageCreatedFactData)

/** One lifecycle fact from the messaging edge, told apart by `type`. */
export const MessageFact = Schema.Union(
  MessageDispatchedFact,
  MessageAcceptedFact,
  MessageDeliveredFact,
  MessageFailedFact,
  MessageReceivedFact
).annotations({ identifier: "MessageFact" })
export type MessageFact = typeof MessageFact.Type

// ---------------------------------------------------------------------------------------------
// Requests and responses
// ---------------------------------------------------------------------------------------------

export const MAX_FACTS_PER_BATCH = 100

export const IngestMessageFactsRequest = Schema.Struct({
  facts: Schema.Array(MessageFact).pipe(Schema.minItems(1), Schema.maxItems(MAX_FACTS_PER_BATCH))
}).annotations({ identifier: "IngestMessageFactsRequest", parseOptions: strict })

/** One fact's outcome; `reason` says why it was ignored or rejected; `message` is the record after it. */
export const MessageFactResult = Schema.Struct({
  id: MessageFactId,
  outcome: Schema.Literal("applied", "ignored", "rejected"),
  reason: optional(Schema.String),
  message: optional(Message)
}).annotations({ identifier: "MessageFactResult" })
export type MessageFactResult = typeof MessageFactResult.Type

export const IngestMessageFactsResponse = Schema.Struct({
  results: Schema.Array(MessageFactResult)
}).annotations({ identifier: "IngestMessageFactsResponse" })

export const ListMessagesQuery = Schema.Struct({
  pageSize: optional(Schema.NumberFromString.pipe(Schema.compose(Schema.Int), Schema.between(1, 100))),
  pageToken: optional(BoundedString(1, 2048)),
  platform: optional(PlatformIdentifier),
  status: optional(MessageStatus),
  createdAfter: optional(Timestamp),
  createdBefore: optional(Timestamp)
}).annotations({ identifier: "ListMessagesQuery" })
export type ListMessagesQuery = typeof ListMessagesQuery.Type

export const MessagePage = Schema.Struct({
  messages: Schema.Array(Message),
  nextPageToken: optional(Schema.String)
}).annotations({ identifier: "MessagePage" })
