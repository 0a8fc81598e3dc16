/**
 * iMessage's ports (docs/provisioning.md): the store of shared-line assignments, and `ImessagePool`
 * — the provider of iMessage lines (dedicated lines with a limited capacity that a request may wait
 * hours for, and the pool of shared lines end users are assigned onto).
 */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { ProviderFailure } from "./PlatformPorts.js"
import type { SharedLineAssignmentRecord } from "./ImessageSchema.js"
import type { AssignmentPosition } from "./WhatsappPorts.js"

export class SharedLineAssignmentsRepo extends Context.Service<SharedLineAssignmentsRepo, {
  /** Stores a live assignment; `false` when the project holds a live one for the same platform and handle. */
  readonly insert: (r: SharedLineAssignmentRecord) => Effect.Effect<boolean>
  /** Whether the project holds a live assignment for the platform and handle (`handleKey`, case-folded). */
  readonly handleTaken: (projectId: string, platform: "imessage" | "whatsapp", handleKey: string) => Effect.Effect<boolean>
  readonly find: (projectId: string, assignmentId: string) => Effect.Effect<Option.Option<SharedLineAssignmentRecord>>
  /** Oldest first (creation time, then id), live ones only unless `includeReleased`. */
  readonly list: (args: {
    readonly projectId: string
    readonly platform: "imessage" | "whatsapp"
    readonly includeReleased: boolean
    readonly after?: AssignmentPosition | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<SharedLineAssignmentRecord>>
  /** The project's live assignments of a platform (its used seats). */
  readonly countLive: (projectId: string, platform: "imessage" | "whatsapp") => Effect.Effect<number>
  /**
   * Sets `releasedAt` (and `updatedAt`) once: the assignment as it is afterwards, `released: true`
   * only for the call that released it; none for an unknown assignment.
   */
  readonly release: (args: {
    readonly projectId: string
    readonly assignmentId: string
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<{ readonly assignment: SharedLineAssignmentRecord; readonly released: boolean }>>
}>()("core/SharedLineAssignmentsRepo") {}

/** The provider of iMessage lines (Apple-registered devices; the simulated pool in the server and tests). */
export class ImessagePool extends Context.Service<ImessagePool, {
  /** Dedicated lines that could be handed out now without waiting. */
  readonly dedicatedAvailable: Effect.Effect<number, ProviderFailure>
  /** One dedicated line; none while there is no capacity (the operation keeps waiting, in order). */
  readonly claimDedicated: (args: { readonly projectId: string; readonly operationId: string }) => Effect.Effect<
    Option.Option<{ readonly phoneNumber: string }>,
    ProviderFailure
  >
  readonly releaseDedicated: (phoneNumber: string) => Effect.Effect<void>
  /**
   * A seat on a shared line; none when every shared line is full. With `autoScale` (the project's
   * Dashboard setting) the pool adds a shared line instead of refusing, while it can.
   */
  readonly claimSharedSeat: (args: { readonly projectId: string; readonly autoScale: boolean }) => Effect.Effect<
    Option.Option<{ readonly phoneNumber: string }>,
    ProviderFailure
  >
  readonly releaseSharedSeat: (phoneNumber: string) => Effect.Effect<void>
}>()("core/ImessagePool") {}
