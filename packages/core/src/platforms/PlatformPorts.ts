/**
 * The platforms context's ports: the store of operations and resources (resources share the
 * voice feature's line rows: a line is a resource), and the providers behind provisioning.
 */
import { Context, Data, DateTime, type Effect, type Option } from "effect"
import type { ResourceNumberTaken } from "./PlatformErrors.js"
import type { OperationRecord, OperationState, OperationType, ResourceRecord, ResourceState } from "./PlatformSchema.js"

export interface OperationPosition {
  readonly createdAt: DateTime.Utc
  readonly operationId: string
}

export class OperationsRepo extends Context.Service<OperationsRepo, {
  readonly insert: (op: OperationRecord & { readonly subject?: string | null }) => Effect.Effect<void>
  /** The operation, in any project (the caller checks the project). */
  readonly find: (operationId: string) => Effect.Effect<Option.Option<OperationRecord>>
  /** Like `find`, with the row locked until the surrounding transaction ends. */
  readonly lock: (operationId: string) => Effect.Effect<Option.Option<OperationRecord>>
  /** Writes every field of the operation but its id, project, type and creation time. */
  readonly update: (op: OperationRecord) => Effect.Effect<void>
  /** A project's operations oldest first (creation time, then id), after `after`, at most `limit`. */
  readonly list: (args: {
    readonly projectId: string
    readonly states?: ReadonlyArray<OperationState> | undefined
    readonly type?: OperationType | undefined
    readonly resourceId?: string | undefined
    readonly endedAfter?: DateTime.Utc | undefined
    readonly after?: OperationPosition | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<OperationRecord>>
  /**
   * Leases due unfinished operations (`FOR UPDATE SKIP LOCKED` in SQL): at most `limit` whose
   * `nextAttemptAt` ≤ now and whose lease (if any) ran out; each claim bumps `claimSeq`.
   */
  readonly claimDue: (args: {
    readonly now: DateTime.Utc
    readonly leaseUntil: DateTime.Utc
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<OperationRecord>>
  /** An unfinished operation provisioning `resourceType`, of the project or (with `subject`) of anyone. */
  readonly findUnfinished: (args: {
    readonly projectId?: string | undefined
    readonly resourceType: string
    readonly subject?: string | undefined
  }) => Effect.Effect<Option.Option<OperationRecord>>
}>()("core/OperationsRepo") {}

export interface ResourcePosition {
  readonly createdAt: DateTime.Utc
  readonly resourceId: string
}

export class ResourcesRepo extends Context.Service<ResourcesRepo, {
  /** Stores a new active resource; a line whose number is held already fails. */
  readonly insert: (
    r: ResourceRecord & { readonly subject?: string | null }
  ) => Effect.Effect<void, ResourceNumberTaken>
  /** The project's resource, active or retired. */
  readonly find: (projectId: string, resourceId: string) => Effect.Effect<Option.Option<ResourceRecord>>
  /** Like `find`, locked until the surrounding transaction ends. */
  readonly lock: (projectId: string, resourceId: string) => Effect.Effect<Option.Option<ResourceRecord>>
  /** A project's resources oldest first, after `after`, at most `limit`. */
  readonly list: (args: {
    readonly projectId: string
    readonly states?: ReadonlyArray<ResourceState> | undefined
    readonly type?: string | undefined
    readonly ability?: string | undefined
    readonly after?: ResourcePosition | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<ResourceRecord>>
  /** Marks the active resource retired at `now` (a line also loses its voice profile override). */
  readonly retire: (args: {
    readonly projectId: string
    readonly resourceId: string
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<ResourceRecord>>
  /** Replaces the detail of the project's active resource (campaign assignments live there). */
  readonly updateDetail: (args: {
    readonly projectId: string
    readonly resourceId: string
    readonly detail: Readonly<Record<string, unknown>>
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<ResourceRecord>>
  /** An active resource of `type` with this subject (an email domain), in any project. */
  readonly findActiveBySubject: (type: string, subject: string) => Effect.Effect<Option.Option<ResourceRecord>>
}>()("core/ResourcesRepo") {}

// Providers ---------------------------------------------------------------------------------------

/** A provider call that did not work: `retryable` ones are tried again later, others fail the operation. */
export class ProviderFailure extends Data.TaggedError("ProviderFailure")<{
  readonly provider: string
  readonly retryable: boolean
  readonly message: string
}> {}

export interface NumberCountryInfo {
  readonly countryCode: string
  readonly callingCode: string
  readonly displayName: string
}

/** Phone numbers by country and area code (a carrier; the simulated one in the server and tests). */
export class NumberProvider extends Context.Service<NumberProvider, {
  readonly countries: Effect.Effect<ReadonlyArray<NumberCountryInfo>, ProviderFailure>
  /** The area codes with coverage, sorted, without repeats. */
  readonly areaCodes: (countryCode: "US") => Effect.Effect<ReadonlyArray<string>, ProviderFailure>
  /** One number (none: the inventory is empty now — try again later). */
  readonly purchase: (args: {
    readonly countryCode: "US"
    readonly areaCode?: string | undefined
  }) => Effect.Effect<Option.Option<{ readonly phoneNumber: string }>, ProviderFailure>
  /** Gives a number back. */
  readonly release: (phoneNumber: string) => Effect.Effect<void>
}>()("core/NumberProvider") {}

export class TelegramProvider extends Context.Service<TelegramProvider, {
  readonly createBot: (args: { readonly projectId: string; readonly operationId: string }) => Effect.Effect<
    { readonly botId: string; readonly username: string; readonly setupUrl: string },
    ProviderFailure
  >
  readonly deleteBot: (botId: string) => Effect.Effect<void>
}>()("core/TelegramProvider") {}

export interface DnsRecord {
  readonly type: "TXT" | "CNAME" | "MX"
  readonly name: string
  readonly value: string
}

export class EmailDomainProvider extends Context.Service<EmailDomainProvider, {
  /** Starts the domain's setup: the records the customer must publish. */
  readonly register: (domain: string) => Effect.Effect<ReadonlyArray<DnsRecord>, ProviderFailure>
  /** Whether the records are published and verified. */
  readonly verify: (domain: string) => Effect.Effect<boolean, ProviderFailure>
  readonly remove: (domain: string) => Effect.Effect<void>
}>()("core/EmailDomainProvider") {}

export interface CampaignInfo {
  readonly campaignId: string
  readonly organizationId: string
  /** Only `ready` campaigns take numbers. */
  readonly status: "ready" | "pending" | "rejected"
  readonly capacity: number
}

/** 10DLC brands and campaigns (The Campaign Registry through a carrier; the simulated one in the server and tests). */
export class CampaignRegistry extends Context.Service<CampaignRegistry, {
  /** The campaign as the registry knows it (`organizationId` is the organization it was registered for). */
  readonly find: (args: { readonly campaignId: string; readonly organizationId: string }) => Effect.Effect<
    Option.Option<CampaignInfo>,
    ProviderFailure
  >
  /** Attaches a number; `false` when the campaign has no capacity left. */
  readonly attach: (args: { readonly campaignId: string; readonly phoneNumber: string }) => Effect.Effect<boolean, ProviderFailure>
  readonly detach: (args: { readonly campaignId: string; readonly phoneNumber: string }) => Effect.Effect<void, ProviderFailure>
}>()("core/CampaignRegistry") {}
