/**
 * Message records and message facts on the wire (docs/messages.md).
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
import { DateTime, Schema } from "effect"
import { BoundedString } from "../shared/Bounds.js"
import { MessageId, ProjectId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import type { ResourceType } from "../platforms/PlatformSchema.js"
import type { KnownMessagePlatform } from "../projects/Schema.js"
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
import { noExcessKeys } from "../internal/ExcessKeys.js"
import { NumberFromString } from "../internal/NumberFromString.js"

/** A key that must not appear at all (not even as `undefined`). */
const Absent = Schema.optionalKey(Schema.Never)
const optional = <S extends Schema.Constraint>(s: S) => Schema.optionalKey(s)

export const messageStatuses = ["dispatched", "accepted", "delivered", "failed", "received"] as const
export const MessageStatus = Schema.Literals(messageStatuses).annotate({ identifier: "MessageStatus" })
export type MessageStatus = typeof MessageStatus.Type

/** Why a message failed: a machine-readable code and, optionally, the provider's words. */
export const MessageFailure = Schema.Struct({
  code: Schema.String.pipe(
    Schema.check(Schema.isPattern(/^[a-z][a-z0-9_.-]{0,63}$/u, { message: "must be a lower-case code like provider_rejected" }))
  ),
  message: optional(BoundedString(1, 512))
}).annotate({ identifier: "MessageFailure" }).pipe(noExcessKeys)
export type MessageFailure = typeof MessageFailure.Type

/** Milestones must not go backwards (the machine refuses a fact that would). */
const ordered = (t: { readonly [K in string]?: DateTime.Utc }, keys: ReadonlyArray<string>) => {
  let last = -Infinity
  for (const k of keys) {
    const v = t[k]
    if (v === undefined) continue
    if (DateTime.toEpochMillis(v) < last) return `${k} must not be before the milestones that precede it`
    last = DateTime.toEpochMillis(v)
  }
  return true
}

export const DispatchedMessageTimestamps = Schema.Struct({
  dispatchedAt: Timestamp,
  acceptedAt: Absent,
  deliveredAt: Absent,
  failedAt: Absent,
  receivedAt: Absent
}).annotate({ identifier: "DispatchedMessageTimestamps" })

export const DeliveredMessageTimestamps = Schema.Struct({
  dispatchedAt: Timestamp,
  acceptedAt: Timestamp,
  deliveredAt: Timestamp,
  failedAt: Absent,
  receivedAt: Absent
}).pipe(Schema.check(Schema.makeFilter((t) => ordered(t, ["dispatchedAt", "acceptedAt", "deliveredAt"]))))
  .annotate({ identifier: "DeliveredMessageTimestamps" })

export const FailedMessageTimestamps = Schema.Struct({
  dispatchedAt: Timestamp,
  acceptedAt: optional(Timestamp),
  deliveredAt: Absent,
  failedAt: Timestamp,
  receivedAt: Absent
}).pipe(Schema.check(Schema.makeFilter((t) => ordered(t, ["dispatchedAt", "acceptedAt", "failedAt"]))))
  .annotate({ identifier: "FailedMessageTimestamps" })

export const ReceivedMessageTimestamps = Schema.Struct({
  dispatchedAt: Absent,
  acceptedAt: Absent,
  deliveredAt: Absent,
  failedAt: Absent,
  receivedAt: Timestamp
}).annotate({ identifier: "ReceivedMessageTimestamps" })

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

const shape = <F extends Schema.Struct.Fields, P extends Schema.Codec<any, any>, C extends Schema.Codec<any, any>>(
  fields: F,
  platform: P,
  content: C,
  identifier: string
) => Schema.Struct({ ...commonFields, ...fields, platform, content }).annotate({ identifier }).pipe(noExcessKeys)

/** One shape per platform for a status (the accepted shapes' platforms and contents). */
const shapesOf = <F extends Schema.Struct.Fields>(fields: F, name: string) =>
  Schema.Union([shape(fields, Schema.Literal("email"), EmailMessageContent, `Email${name}Message`), shape(fields, Schema.Literal("imessage"), ImessageMessageContent, `Imessage${name}Message`), shape(fields, Schema.Literal("sms"), SmsMessageContent, `Sms${name}Message`), shape(fields, Schema.Literal("telegram"), TelegramMessageContent, `Telegram${name}Message`), shape(fields, Schema.Literal("whatsapp"), WhatsappMessageContent, `Whatsapp${name}Message`), shape(fields, Schema.Literal("whatsapp_business"), WhatsappMessageContent, `WhatsappBusiness${name}Message`), shape(fields, UnknownMessagePlatform, GenericMessageContent, `UnknownPlatform${name}Message`)]).annotate({ identifier: `${name}Message` }).pipe(noExcessKeys)

const contentSchemas: Readonly<Record<string, Schema.Codec<any, any>>> = {
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
export const Message = Schema.Union([DispatchedMessage, AcceptedMessage, DeliveredMessage, FailedMessage, ReceivedMessage])
  .annotate({ identifier: "Message" }).pipe(noExcessKeys)
export type Message = typeof Message.Type
export type MessageEncoded = typeof Message.Encoded

/** The content shape of each known platform; any other platform uses the generic one. */
export const contentSchemaOf = (platform: string): Schema.Codec<any, any> =>
  Object.hasOwn(contentSchemas, platform) ? contentSchemas[platform]! : GenericMessageContent

/**
 * The resource types an inbound message of each known platform may name as `data.resourceId` (the
 * project's resource that received it); a held resource of another type refuses the batch
 * (docs/messages.md). Any other platform identifier is not checked.
 */
export const messageResourceTypes: { readonly [P in KnownMessagePlatform]: ReadonlyArray<ResourceType> } = {
  email: ["email_line", "email_domain"],
  imessage: ["imessage_line"],
  sms: ["sms_number"],
  telegram: ["telegram_bot", "telegram_line"],
  whatsapp: ["whatsapp_line", "whatsapp_sender"],
  whatsapp_business: ["whatsapp_line", "whatsapp_sender"]
}

/** The resource types `platform`'s inbound messages may name, or undefined for a platform not checked. */
export const resourceTypesOf = (platform: string): ReadonlyArray<ResourceType> | undefined =>
  Object.hasOwn(messageResourceTypes, platform) ? messageResourceTypes[platform as KnownMessagePlatform] : undefined

// ---------------------------------------------------------------------------------------------
// Facts
// ---------------------------------------------------------------------------------------------

/** A fact's id: the edge's own id for what it observed. Unique per project: a repeat is ignored. */
export const MessageFactId = BoundedString(1, 256).annotate({ identifier: "MessageFactId" })

export const messageFactTypes = messageStatuses
export const MessageFactType = Schema.Literals(messageFactTypes).annotate({ identifier: "MessageFactType" })
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
}).annotate({ identifier: "MessageCreatedFactData" }).pipe(noExcessKeys)
export type MessageCreatedFactData = typeof MessageCreatedFactData.Type

/**
 * `received` data: the fixed fields, and optionally the project's resource (line, bot, domain)
 * that received the message. Named, it must be one the project holds (else the fact is rejected
 * `unknown-resource`) of a type fitting the platform (`messageResourceTypes`; else the batch is
 * refused), and a text carrying a one-time code is then held back as a filtered
 * verification code instead of becoming a message (docs/messages.md).
 */
export const MessageReceivedFactData = Schema.Struct({
  ...MessageCreatedFactData.fields,
  resourceId: optional(BoundedString(1, 256))
}).annotate({ identifier: "MessageReceivedFactData" }).pipe(noExcessKeys)
export type MessageReceivedFactData = typeof MessageReceivedFactData.Type

export const MessageAcceptedFactData = Schema.Struct({ acceptance: MessageAcceptance })
  .annotate({ identifier: "MessageAcceptedFactData" }).pipe(noExcessKeys)
/** `delivered` data: an empty object (`Schema.Struct({})` alone would take any value but null). */
export const MessageDeliveredFactData = Schema.Struct({}).pipe(
  Schema.check(Schema.makeFilter((d) => (typeof d === "object" && !Array.isArray(d) && Object.keys(d).length === 0) || "must be an empty object"))
).annotate({ identifier: "MessageDeliveredFactData" })
export const MessageFailedFactData = Schema.Struct({ failure: MessageFailure })
  .annotate({ identifier: "MessageFailedFactData" }).pipe(noExcessKeys)

const fact = <const T extends MessageFactType, D extends Schema.Codec<any, any>>(type: T, data: D) =>
  Schema.Struct({
    id: MessageFactId,
    messageId: MessageId,
    type: Schema.Literal(type),
    timestamp: Timestamp,
    data
  }).annotate({ identifier: `Message${type[0]!.toUpperCase()}${type.slice(1)}Fact` }).pipe(noExcessKeys)

export const MessageDispatchedFact = fact("dispatched", MessageCreatedFactData)
export const MessageAcceptedFact = fact("accepted", MessageAcceptedFactData)
export const MessageDeliveredFact = fact("delivered", MessageDeliveredFactData)
export const MessageFailedFact = fact("failed", MessageFailedFactData)
export const MessageReceivedFact = fact("received", MessageReceivedFactData)

/** One lifecycle fact from the messaging edge, told apart by `type`. */
export const MessageFact = Schema.Union([MessageDispatchedFact, MessageAcceptedFact, MessageDeliveredFact, MessageFailedFact, MessageReceivedFact]).annotate({ identifier: "MessageFact" })
export type MessageFact = typeof MessageFact.Type

// ---------------------------------------------------------------------------------------------
// Requests and responses
// ---------------------------------------------------------------------------------------------

export const MAX_FACTS_PER_BATCH = 100

export const IngestMessageFactsRequest = Schema.Struct({
  facts: Schema.Array(MessageFact).pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(MAX_FACTS_PER_BATCH)))
}).annotate({ identifier: "IngestMessageFactsRequest" }).pipe(noExcessKeys)

/**
 * One fact's outcome; `reason` says why it was ignored or rejected; `message` is the record after
 * it. `filteredCodeId` marks an applied `received` fact whose message was held back as a filtered
 * verification code (no record, no event): the id the filtered-code list shows for it.
 */
export const MessageFactResult = Schema.Struct({
  id: MessageFactId,
  outcome: Schema.Literals(["applied", "ignored", "rejected"]),
  reason: optional(Schema.String),
  message: optional(Message),
  filteredCodeId: optional(Schema.String)
}).annotate({ identifier: "MessageFactResult" })
export type MessageFactResult = typeof MessageFactResult.Type

export const IngestMessageFactsResponse = Schema.Struct({
  results: Schema.Array(MessageFactResult)
}).annotate({ identifier: "IngestMessageFactsResponse" })

export const ListMessagesQuery = Schema.Struct({
  pageSize: optional(NumberFromString.pipe(Schema.decodeTo(Schema.Int), Schema.check(Schema.isBetween({ minimum: 1, maximum: 100 })))),
  pageToken: optional(BoundedString(1, 2048)),
  platform: optional(PlatformIdentifier),
  status: optional(MessageStatus),
  createdAfter: optional(Timestamp),
  createdBefore: optional(Timestamp)
}).annotate({ identifier: "ListMessagesQuery" })
export type ListMessagesQuery = typeof ListMessagesQuery.Type

export const MessagePage = Schema.Struct({
  messages: Schema.Array(Message),
  nextPageToken: optional(Schema.String)
}).annotate({ identifier: "MessagePage" })
