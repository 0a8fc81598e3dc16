/**
 * Platform provisioning (issue 18; reference/contract.md §1 9a–9f, §3.5, §3.7, §3.8): the wire
 * shapes of operations and resources, and the records core keeps of them.
 *
 * - A **resource** is anything a project holds: phone lines (SMS numbers, voice lines, dedicated
 *   iMessage/WhatsApp lines — the voice feature's `Line`s are resources of this model, stored in
 *   the same rows), Telegram bots, email domains. Its `state` is `active`, or `retired` once
 *   released (a released number stays readable as `retired`).
 * - An **operation** is the asynchronous request that provisions or releases one
 *   (`OperationMachine.ts` is its life cycle).
 */
import { type DateTime, ParseResult, Schema } from "effect"
import { Timestamp } from "../shared/Timestamp.js"

export const OperationState = Schema.Literal("pending", "running", "succeeded", "failed", "cancelled")
  .annotations({ identifier: "OperationState" })
export type OperationState = typeof OperationState.Type

export const OperationType = Schema.Literal(
  "resource.provision",
  "resource.release",
  "whatsapp.account.disconnect",
  "sms.campaign.assign",
  "sms.campaign.unassign"
).annotations({ identifier: "OperationType" })
export type OperationType = typeof OperationType.Type

export const ResourceState = Schema.Literal("unallocated", "active", "retired").annotations({ identifier: "ResourceState" })
export type ResourceState = typeof ResourceState.Type

/** The resource types this service provisions (a line's type follows from its platform). */
export const ResourceType = Schema.Literal(
  "sms_number",
  "voice_line",
  "imessage_line",
  "whatsapp_line",
  "slack_line",
  "telegram_line",
  "email_line",
  "telegram_bot",
  "email_domain",
  "whatsapp_sender"
).annotations({ identifier: "ResourceType" })
export type ResourceType = typeof ResourceType.Type

export interface OperationError {
  readonly code: string
  readonly detail: string
}

/** An operation as core keeps it (the worker's lease fields included). */
export interface OperationRecord {
  readonly operationId: string
  readonly projectId: string
  readonly type: OperationType
  readonly resourceType: ResourceType
  readonly resourceId: string | null
  readonly state: OperationState
  /** The provider's result is in the store: from here on the operation cannot be cancelled. */
  readonly committed: boolean
  /** What was asked (area code, domain, …): the worker's input. */
  readonly params: Readonly<Record<string, unknown>>
  readonly detail: Readonly<Record<string, unknown>> | null
  readonly error: OperationError | null
  readonly reason: string | null
  readonly attempts: number
  readonly nextAttemptAt: DateTime.Utc
  readonly leasedUntil: DateTime.Utc | null
  readonly claimSeq: number
  readonly createdAt: DateTime.Utc
  readonly startedAt: DateTime.Utc | null
  readonly endedAt: DateTime.Utc | null
  readonly updatedAt: DateTime.Utc
}

/** A resource as core keeps it. */
export interface ResourceRecord {
  readonly resourceId: string
  readonly projectId: string
  readonly type: ResourceType
  readonly abilities: ReadonlyArray<string>
  readonly detail: Readonly<Record<string, unknown>>
  /** E.164 for lines; null for bots and domains. */
  readonly phoneNumber: string | null
  readonly state: ResourceState
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
  readonly retiredAt: DateTime.Utc | null
}

const Detail = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const OperationErrorSchema = Schema.Struct({ code: Schema.String, detail: Schema.String })

/** `Operation` (contract §3.5). */
export const Operation = Schema.Struct({
  operationId: Schema.String,
  projectId: Schema.String,
  type: OperationType,
  resourceType: Schema.String,
  state: OperationState,
  cancellable: Schema.Boolean,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  resourceId: Schema.optional(Schema.String),
  startedAt: Schema.optional(Timestamp),
  endedAt: Schema.optional(Timestamp),
  detail: Schema.optional(Detail),
  error: Schema.optional(OperationErrorSchema),
  reason: Schema.optional(Schema.String)
}).annotations({ identifier: "Operation" })
export type Operation = typeof Operation.Type

/** `Resource` (contract §3.5). */
export const Resource = Schema.Struct({
  resourceId: Schema.String,
  projectId: Schema.String,
  type: Schema.String,
  abilities: Schema.Array(Schema.String),
  state: ResourceState,
  detail: Detail,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  retiredAt: Schema.optional(Timestamp)
}).annotations({ identifier: "Resource" })
export type Resource = typeof Resource.Type

export const GetOperationResponse = Schema.Struct({
  operation: Operation,
  resource: Schema.optional(Resource)
}).annotations({ identifier: "GetOperationResponse" })

export const OperationPage = Schema.Struct({
  operations: Schema.Array(Operation),
  nextPageToken: Schema.optional(Schema.String)
}).annotations({ identifier: "OperationPage" })

export const ResourcePage = Schema.Struct({
  resources: Schema.Array(Resource),
  nextPageToken: Schema.optional(Schema.String)
}).annotations({ identifier: "ResourcePage" })

export const SupportedPlatform = Schema.Struct({
  type: Schema.String,
  displayName: Schema.String,
  description: Schema.String
}).annotations({ identifier: "SupportedPlatform" })

export const ListProjectPlatformsResponse = Schema.Struct({
  platforms: Schema.Array(SupportedPlatform)
}).annotations({ identifier: "ListProjectPlatformsResponse" })

/** The fixed platform list (answered in-process). */
export const supportedPlatforms: ReadonlyArray<typeof SupportedPlatform.Type> = [
  { type: "imessage", displayName: "iMessage", description: "Shared and dedicated iMessage lines." },
  { type: "whatsapp", displayName: "WhatsApp", description: "Shared and dedicated WhatsApp lines, WhatsApp Business senders." },
  { type: "sms", displayName: "SMS", description: "US local numbers with 10DLC campaign assignment." },
  { type: "voice", displayName: "Voice", description: "Voice lines with SIP profiles." },
  { type: "telegram", displayName: "Telegram", description: "Managed Telegram bots." },
  { type: "email", displayName: "Email", description: "Sending domains verified through DNS." }
]

const PlatformPageSize = Schema.NumberFromString.pipe(Schema.compose(Schema.Int), Schema.between(1, 200))
const PageTokenParam = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2048))
/** `a,b,c` of the given literals (repeats collapse). */
const commaList = <L extends string>(literals: readonly [L, ...Array<L>], what: string) =>
  Schema.transformOrFail(Schema.String.pipe(Schema.maxLength(200)), Schema.Array(Schema.Literal(...literals)), {
    strict: true,
    decode: (s, _, ast) => {
      const parts = [...new Set(s.split(","))]
      const bad = parts.find((p) => !(literals as ReadonlyArray<string>).includes(p))
      return bad === undefined
        ? ParseResult.succeed(parts as Array<L>)
        : ParseResult.fail(new ParseResult.Type(ast, s, `unknown ${what} "${bad}"`))
    },
    encode: (a) => ParseResult.succeed(a.join(","))
  })

/** A Z-only RFC 3339 time in a query. */
const ZTime = Schema.String.pipe(Schema.pattern(/Z$/, { message: () => "must be a UTC time ending in Z" }), Schema.compose(Timestamp))

export const ListOperationsQuery = Schema.Struct({
  endedAfter: Schema.optional(ZTime),
  pageSize: Schema.optional(PlatformPageSize),
  pageToken: Schema.optional(PageTokenParam),
  resourceId: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128))),
  state: Schema.optional(commaList(OperationState.literals, "state")),
  type: Schema.optional(OperationType)
})
export type ListOperationsQuery = typeof ListOperationsQuery.Type

export const ListResourcesQuery = Schema.Struct({
  ability: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64))),
  pageSize: Schema.optional(PlatformPageSize),
  pageToken: Schema.optional(PageTokenParam),
  state: Schema.optional(commaList(ResourceState.literals, "state")),
  type: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64)))
})
export type ListResourcesQuery = typeof ListResourcesQuery.Type

// SMS ----------------------------------------------------------------------------------------------

export const AreaCode = Schema.String.pipe(Schema.pattern(/^[2-9][0-9]{2}$/, { message: () => "must be a 3-digit US area code" }))

export const PurchaseSmsNumberRequest = Schema.Struct({
  countryCode: Schema.Literal("US"),
  areaCode: Schema.optional(AreaCode)
}).annotations({ identifier: "PurchaseSmsNumberRequest", parseOptions: { onExcessProperty: "error" } })

export const ListNumberAreaCodesQuery = Schema.Struct({ countryCode: Schema.Literal("US") })

export const ListNumberAreaCodesResponse = Schema.Struct({
  areaCodes: Schema.Array(AreaCode),
  countryCode: Schema.Literal("US")
}).annotations({ identifier: "ListNumberAreaCodesResponse" })

export const NumberCountry = Schema.Struct({
  callingCode: Schema.String,
  countryCode: Schema.String,
  displayName: Schema.String
})
export const ListNumberCountriesResponse = Schema.Struct({
  countries: Schema.Array(NumberCountry)
}).annotations({ identifier: "ListNumberCountriesResponse" })

// Telegram and email -------------------------------------------------------------------------------

/** `{}`: the request takes no fields (an empty struct would let unknown ones through). */
export const ConnectTelegramBotRequest = Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
  Schema.filter((o) => Object.keys(o).length === 0 || `unknown field "${Object.keys(o)[0]}": the body must be {}`)
).annotations({ identifier: "ConnectTelegramBotRequest" })

/** A DNS name: labels of letters, digits and hyphens, at least two, at most 253 characters. */
export const DomainName = Schema.String.pipe(
  Schema.maxLength(253),
  Schema.pattern(/^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}\.?$/, {
    message: () => "must be a domain name like mail.example.com"
  })
)
export const ConnectEmailDomainRequest = Schema.Struct({ domain: DomainName }).annotations({
  identifier: "ConnectEmailDomainRequest",
  parseOptions: { onExcessProperty: "error" }
})
