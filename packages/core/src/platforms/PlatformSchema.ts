/**
 * Platform provisioning (docs/provisioning.md): the wire
 * shapes of operations and resources, and the records core keeps of them.
 *
 * - A **resource** is anything a project holds: phone lines (SMS numbers, voice lines, dedicated
 *   iMessage/WhatsApp lines — the voice feature's `Line`s are resources of this model, stored in
 *   the same rows), Telegram bots, email domains. Its `state` is `active`, or `retired` once
 *   released (a released number stays readable as `retired`).
 * - An **operation** is the asynchronous request that provisions or releases one
 *   (`OperationMachine.ts` is its life cycle).
 */
import { DateTime, Effect, Schema, SchemaIssue, SchemaTransformation } from "effect"
import { Timestamp } from "../shared/Timestamp.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"
import { NumberFromString } from "../internal/NumberFromString.js"

export const OperationState = Schema.Literals(["pending", "running", "succeeded", "failed", "cancelled"])
  .annotate({ identifier: "OperationState" })
export type OperationState = typeof OperationState.Type

export const OperationType = Schema.Literals(["resource.provision", "resource.release", "whatsapp.account.disconnect", "sms.campaign.assign", "sms.campaign.unassign"]).annotate({ identifier: "OperationType" })
export type OperationType = typeof OperationType.Type

export const ResourceState = Schema.Literals(["unallocated", "active", "retired"]).annotate({ identifier: "ResourceState" })
export type ResourceState = typeof ResourceState.Type

/** The resource types this service provisions (a line's type follows from its platform). */
export const ResourceType = Schema.Literals(["sms_number", "voice_line", "imessage_line", "whatsapp_line", "slack_line", "telegram_line", "email_line", "telegram_bot", "email_domain", "whatsapp_sender"]).annotate({ identifier: "ResourceType" })
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

const Detail = Schema.Record(Schema.String, Schema.Unknown)

export const OperationErrorSchema = Schema.Struct({ code: Schema.String, detail: Schema.String })

/** `Operation`. */
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
}).annotate({ identifier: "Operation" })
export type Operation = typeof Operation.Type

/** `Resource`. */
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
}).annotate({ identifier: "Resource" })
export type Resource = typeof Resource.Type

export const GetOperationResponse = Schema.Struct({
  operation: Operation,
  resource: Schema.optional(Resource)
}).annotate({ identifier: "GetOperationResponse" })

export const OperationPage = Schema.Struct({
  operations: Schema.Array(Operation),
  nextPageToken: Schema.optional(Schema.String)
}).annotate({ identifier: "OperationPage" })

export const ResourcePage = Schema.Struct({
  resources: Schema.Array(Resource),
  nextPageToken: Schema.optional(Schema.String)
}).annotate({ identifier: "ResourcePage" })

export const SupportedPlatform = Schema.Struct({
  type: Schema.String,
  displayName: Schema.String,
  description: Schema.String
}).annotate({ identifier: "SupportedPlatform" })

export const ListProjectPlatformsResponse = Schema.Struct({
  platforms: Schema.Array(SupportedPlatform)
}).annotate({ identifier: "ListProjectPlatformsResponse" })

/** The fixed platform list (answered in-process). */
export const supportedPlatforms: ReadonlyArray<typeof SupportedPlatform.Type> = [
  { type: "imessage", displayName: "iMessage", description: "Shared and dedicated iMessage lines." },
  { type: "whatsapp", displayName: "WhatsApp", description: "Shared and dedicated WhatsApp lines, WhatsApp Business senders." },
  { type: "sms", displayName: "SMS", description: "US local numbers with 10DLC campaign assignment." },
  { type: "voice", displayName: "Voice", description: "Voice lines with SIP profiles." },
  { type: "telegram", displayName: "Telegram", description: "Managed Telegram bots." },
  { type: "email", displayName: "Email", description: "Sending domains verified through DNS." }
]

const PlatformPageSize = NumberFromString.pipe(Schema.decodeTo(Schema.Int), Schema.check(Schema.isBetween({ minimum: 1, maximum: 200 })))
const PageTokenParam = Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(2048)))
/** `a,b,c` of the given literals (repeats collapse). */
const commaList = <L extends string>(literals: readonly [L, ...Array<L>], what: string) =>
  Schema.String.pipe(
    Schema.check(Schema.isMaxLength(200)),
    Schema.decodeTo(
      Schema.Array(Schema.Literals(literals)),
      SchemaTransformation.transformEffect({
        decode: (s: string) => {
          const parts = [...new Set(s.split(","))]
          const isKnown = (p: string): p is L => (literals as ReadonlyArray<string>).includes(p)
          const bad = parts.find((p) => !isKnown(p))
          return bad === undefined
            ? Effect.succeed(parts.filter(isKnown))
            : Effect.fail(new SchemaIssue.InvalidValue({ message: `unknown ${what} "${bad}"` }, s))
        },
        encode: (a: ReadonlyArray<L>) => Effect.succeed(a.join(","))
      })
    )
  )

/** A time in a query: a timestamp like every other a request carries (UTC with `Z`, no offset). */
const ZTime = Timestamp

export const ListOperationsQuery = Schema.Struct({
  endedAfter: Schema.optional(ZTime),
  pageSize: Schema.optional(PlatformPageSize),
  pageToken: Schema.optional(PageTokenParam),
  resourceId: Schema.optional(Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(128)))),
  state: Schema.optional(commaList(OperationState.literals, "state")),
  type: Schema.optional(OperationType)
})
export type ListOperationsQuery = typeof ListOperationsQuery.Type

export const ListResourcesQuery = Schema.Struct({
  ability: Schema.optional(Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(64)))),
  pageSize: Schema.optional(PlatformPageSize),
  pageToken: Schema.optional(PageTokenParam),
  state: Schema.optional(commaList(ResourceState.literals, "state")),
  type: Schema.optional(Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(64))))
})
export type ListResourcesQuery = typeof ListResourcesQuery.Type

// SMS ----------------------------------------------------------------------------------------------

export const AreaCode = Schema.String.pipe(Schema.check(Schema.isPattern(/^[2-9][0-9]{2}$/u, { message: "must be a 3-digit US area code" })))

export const PurchaseSmsNumberRequest = Schema.Struct({
  countryCode: Schema.Literal("US"),
  areaCode: Schema.optional(AreaCode)
}).annotate({ identifier: "PurchaseSmsNumberRequest" }).pipe(noExcessKeys)

export const ListNumberAreaCodesQuery = Schema.Struct({ countryCode: Schema.Literal("US") })

export const ListNumberAreaCodesResponse = Schema.Struct({
  areaCodes: Schema.Array(AreaCode),
  countryCode: Schema.Literal("US")
}).annotate({ identifier: "ListNumberAreaCodesResponse" })

export const NumberCountry = Schema.Struct({
  callingCode: Schema.String,
  countryCode: Schema.String,
  displayName: Schema.String
})
export const ListNumberCountriesResponse = Schema.Struct({
  countries: Schema.Array(NumberCountry)
}).annotate({ identifier: "ListNumberCountriesResponse" })

// Telegram and email -------------------------------------------------------------------------------

/** `{}`: the request takes no fields (an empty struct would let unknown ones through). */
export const ConnectTelegramBotRequest = Schema.Record(Schema.String, Schema.Unknown).pipe(
  Schema.check(Schema.makeFilter((o) => Object.keys(o).length === 0 || `unknown field "${Object.keys(o)[0]}": the body must be {}`))
).annotate({ identifier: "ConnectTelegramBotRequest" })

/** A DNS name: labels of letters, digits and hyphens, at least two, at most 253 characters. */
export const DomainName = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(253)),
  Schema.check(Schema.isPattern(/^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}\.?$/u, {
    message: "must be a domain name like mail.example.com"
  }))
)
export const ConnectEmailDomainRequest = Schema.Struct({ domain: DomainName }).annotate({ identifier: "ConnectEmailDomainRequest" }).pipe(noExcessKeys)
