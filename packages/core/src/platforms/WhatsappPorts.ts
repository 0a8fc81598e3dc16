/**
 * WhatsApp's ports (docs/provisioning.md): the store of WABA connections and shared-line
 * assignments, the store of filtered verification codes, the `WhatsappProvider` (Meta's Graph API
 * and the pools of shared and dedicated WhatsApp lines; the server ships a simulated one) and the
 * settings that stand in for a project's WhatsApp entitlements.
 */
import { Context, Data, DateTime, type Effect, type Option } from "effect"
import type { ProviderFailure } from "./PlatformPorts.js"
import type { SharedAssignmentRecord, WhatsappAccountRecord } from "./WhatsappSchema.js"
import { Setting } from "../internal/Settings.js"

export class WhatsappAccountsRepo extends Context.Service<WhatsappAccountsRepo, {
  readonly find: (projectId: string) => Effect.Effect<Option.Option<WhatsappAccountRecord>>
  /** Inserts or replaces the project's connection. */
  readonly upsert: (account: WhatsappAccountRecord) => Effect.Effect<void>
  readonly remove: (projectId: string) => Effect.Effect<void>
}>()("core/WhatsappAccountsRepo") {}

export interface AssignmentPosition {
  readonly createdAt: DateTime.Utc
  readonly assignmentId: string
}

/** The handle already holds an unreleased assignment in the project. */
export class AssignmentHandleTaken extends Data.TaggedError("AssignmentHandleTaken")<{ readonly handle: string }> {}

export class WhatsappAssignmentsRepo extends Context.Service<WhatsappAssignmentsRepo, {
  /** Stores a new assignment; fails when the handle has an unreleased one in the project. */
  readonly insert: (r: SharedAssignmentRecord) => Effect.Effect<void, AssignmentHandleTaken>
  /** Whether the handle holds an unreleased assignment in the project. */
  readonly handleTaken: (projectId: string, handle: string) => Effect.Effect<boolean>
  readonly find: (projectId: string, assignmentId: string) => Effect.Effect<Option.Option<SharedAssignmentRecord>>
  /** Oldest first (creation time, then id), after `after`, at most `limit`. */
  readonly list: (args: {
    readonly projectId: string
    readonly includeReleased: boolean
    readonly after?: AssignmentPosition | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<SharedAssignmentRecord>>
  /** Marks an unreleased assignment released at `now`; none when it is unknown or released already. */
  readonly release: (args: {
    readonly projectId: string
    readonly assignmentId: string
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<SharedAssignmentRecord>>
  readonly countActive: (projectId: string) => Effect.Effect<number>
}>()("core/WhatsappAssignmentsRepo") {}

/** One OTP-bearing inbound message held back before delivery: where and when, never the code. */
export interface FilteredCodeRecord {
  readonly filteredCodeId: string
  readonly projectId: string
  readonly resourceId: string
  readonly platform: string
  readonly receivedAt: DateTime.Utc
  /**
   * Only for a WhatsApp ownership code (Meta's SMS to a number being registered): the 6 digits,
   * which `getWhatsappBusinessVerificationCode` hands to a `platforms:write` caller. Never listed.
   */
  readonly whatsappCode: string | null
  /**
   * The message fact it was held back from (messages/Messages.ts), unique per project: a fact id
   * applied once. Absent for a record made without a fact (`recordInbound`).
   */
  readonly factId?: string | null | undefined
}

export interface FilteredCodePosition {
  readonly receivedAt: DateTime.Utc
  readonly filteredCodeId: string
}

export interface FilteredCodeFilter {
  readonly projectId: string
  readonly resourceId?: string | undefined
  readonly platform?: string | undefined
  /** Exclusive lower and upper bounds of `receivedAt`. */
  readonly receivedAfter: DateTime.Utc
  readonly receivedBefore: DateTime.Utc
}

export class VerificationCodesRepo extends Context.Service<VerificationCodesRepo, {
  readonly insert: (r: FilteredCodeRecord) => Effect.Effect<void>
  /**
   * Records held back from a message fact batch, for the surrounding transaction. False when one of
   * their fact ids was taken by another transaction meanwhile — the caller must then roll back.
   */
  readonly insertFromFacts: (records: ReadonlyArray<FilteredCodeRecord>) => Effect.Effect<boolean>
  /** Which of `factIds` the project's filtered codes were held back from. */
  readonly factsHeldBack: (projectId: string, factIds: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
  readonly count: (filter: FilteredCodeFilter) => Effect.Effect<number>
  /** Newest first (received time, then id, both descending), strictly before `before`, at most `limit`. */
  readonly list: (filter: FilteredCodeFilter & {
    readonly before?: FilteredCodePosition | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<FilteredCodeRecord>>
  /** The newest WhatsApp ownership code of the resource received after `after`. */
  readonly latestWhatsappCode: (args: {
    readonly projectId: string
    readonly resourceId: string
    readonly after: DateTime.Utc
  }) => Effect.Effect<Option.Option<{ readonly code: string; readonly receivedAt: DateTime.Utc }>>
}>()("core/VerificationCodesRepo") {}

// The provider ------------------------------------------------------------------------------------

export interface WhatsappBusinessInfo {
  readonly businessId: string
  readonly businessName: string | null
  readonly accountName: string | null
  readonly reviewStatus: WhatsappAccountRecord["reviewStatus"]
  readonly outboundCapacity: WhatsappAccountRecord["outboundCapacity"]
  readonly maxPhoneNumbersPerBusiness: number | null
  /** The connected phone number as Meta shows it, and its verified name. */
  readonly displayPhoneNumber: string
  readonly verifiedName: string | null
}

export interface WhatsappPhoneNumberInfo {
  readonly phoneNumberId: string
  readonly displayPhoneNumber: string
  readonly verifiedName: string | null
}

/** Meta's WhatsApp Business platform and the pools of WhatsApp lines. */
export class WhatsappProvider extends Context.Service<WhatsappProvider, {
  /** Exchanges an Embedded Signup code for the business's token and reads the WABA and the number. */
  readonly exchangeCode: (args: {
    readonly code: string
    readonly wabaId: string
    readonly phoneNumberId: string
  }) => Effect.Effect<WhatsappBusinessInfo, ProviderFailure>
  /** Subscribes this service's app to the WABA's webhooks. */
  readonly subscribeApp: (wabaId: string) => Effect.Effect<void, ProviderFailure>
  readonly unsubscribeApp: (wabaId: string) => Effect.Effect<void, ProviderFailure>
  /** Whether Meta would accept `displayName` for a new sender. */
  readonly displayNameAvailable: (displayName: string) => Effect.Effect<boolean, ProviderFailure>
  /** Registers one of the project's own numbers as a sender on the WABA. */
  readonly registerSender: (args: {
    readonly wabaId: string
    readonly phoneNumber: string
    readonly displayName: string
  }) => Effect.Effect<{ readonly phoneNumberId: string }, ProviderFailure>
  readonly deregisterSender: (args: { readonly wabaId: string; readonly phoneNumberId: string }) => Effect.Effect<void, ProviderFailure>
  /** The WABA's phone numbers as Meta lists them. */
  readonly listPhoneNumbers: (wabaId: string) => Effect.Effect<ReadonlyArray<WhatsappPhoneNumberInfo>, ProviderFailure>
  /** The pooled shared WhatsApp lines (empty: the pool is exhausted). */
  readonly sharedLines: Effect.Effect<ReadonlyArray<string>, ProviderFailure>
  /** One dedicated WhatsApp line (none: no capacity now — try again later). */
  readonly allocateDedicatedLine: (args: { readonly projectId: string; readonly operationId: string }) => Effect.Effect<
    Option.Option<{ readonly phoneNumber: string }>,
    ProviderFailure
  >
  readonly releaseDedicatedLine: (phoneNumber: string) => Effect.Effect<void>
}>()("core/WhatsappProvider") {}

/**
 * What stands in for a project's WhatsApp entitlements, and the Embedded Signup popup's
 * configuration (the server sets them from its environment).
 */
export class WhatsappSettings extends Setting<WhatsappSettings>()("core/WhatsappSettings", {
  defaultValue: () => ({
    /** `shared`: end users get seats on pooled lines; `dedicated`: shared assignments are refused. */
    mode: "shared" as "shared" | "dedicated",
    /** Seats (unreleased shared-line assignments) a project may hold. */
    maxUserAssignments: 100,
    /** Whether projects may buy dedicated WhatsApp lines (402 ENTITLEMENT_REQUIRED when not). */
    dedicatedLines: true,
    /** Whether connecting a sender or buying a line needs a card on the organization's file. */
    requirePaymentMethod: true,
    signupConfigId: "switchboard-embedded-signup",
    graphVersion: "v21.0",
    scopes: ["business_management", "whatsapp_business_management", "whatsapp_business_messaging"] as ReadonlyArray<string>
  })
}) {}
