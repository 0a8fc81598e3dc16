import { DateTime } from "effect"
/**
 * The life cycle of a provisioning operation (docs/provisioning.md), as a pure reducer:
 *
 *   pending ──Claimed──▶ running ──Succeeded──▶ succeeded   (committed: the result is stored)
 *      │                    │ ▲ Waiting (no inventory / capacity yet: stays running, retried later)
 *      │                    └─┘
 *      ├──Failed / (running)──Failed──▶ failed
 *      └──CancelRequested (pending or running, cancellable type, not committed)──▶ cancelled
 *
 * Terminal states (succeeded, failed, cancelled) absorb every event. Only `resource.provision`
 * operations can be cancelled; campaign assign/detach, releases and disconnects never.
 */
import type { OperationError, OperationRecord, OperationState, OperationType } from "./PlatformSchema.js"

export type OperationEvent =
  | { readonly _tag: "Claimed"; readonly at: DateTime.Utc }
  | { readonly _tag: "Waiting"; readonly at: DateTime.Utc; readonly retryAt: DateTime.Utc; readonly detail?: Record<string, unknown> }
  | {
    readonly _tag: "Succeeded"
    readonly at: DateTime.Utc
    readonly resourceId: string | null
    readonly detail?: Record<string, unknown>
  }
  | { readonly _tag: "Failed"; readonly at: DateTime.Utc; readonly error: OperationError; readonly reason?: string }
  | { readonly _tag: "CancelRequested"; readonly at: DateTime.Utc; readonly reason?: string }

export type Transition =
  | { readonly _tag: "Applied"; readonly operation: OperationRecord }
  | { readonly _tag: "Rejected"; readonly reason: "terminal" | "not_cancellable" | "committed" | "not_running" }

export const terminalStates: ReadonlySet<OperationState> = new Set(["succeeded", "failed", "cancelled"])
export const isTerminal = (state: OperationState): boolean => terminalStates.has(state)

/** Whether operations of this type may ever be cancelled. */
export const cancellableType = (type: OperationType): boolean => type === "resource.provision"

/** The wire's `cancellable`: a cancellable type, not finished, result not yet stored. */
export const isCancellable = (op: OperationRecord): boolean =>
  cancellableType(op.type) && !isTerminal(op.state) && !op.committed

const later = (a: DateTime.Utc, b: DateTime.Utc) => (DateTime.toEpochMillis(a) >= DateTime.toEpochMillis(b) ? a : b)

const applied = (op: OperationRecord, at: DateTime.Utc, patch: Partial<OperationRecord>): Transition => ({
  _tag: "Applied",
  operation: { ...op, ...patch, updatedAt: later(op.updatedAt, at) }
})

export const apply = (op: OperationRecord, event: OperationEvent): Transition => {
  if (isTerminal(op.state)) return { _tag: "Rejected", reason: "terminal" }
  const end = (state: OperationState, patch: Partial<OperationRecord> = {}) =>
    applied(op, event.at, { state, endedAt: later(op.updatedAt, event.at), leasedUntil: null, ...patch })
  switch (event._tag) {
    case "Claimed":
      return op.state === "running" ? applied(op, event.at, {}) : applied(op, event.at, { state: "running", startedAt: event.at })
    case "Waiting":
      if (op.state !== "running") return { _tag: "Rejected", reason: "not_running" }
      return applied(op, event.at, {
        nextAttemptAt: event.retryAt,
        leasedUntil: null,
        ...(event.detail === undefined ? {} : { detail: { ...op.detail, ...event.detail } })
      })
    case "Succeeded":
      if (op.state !== "running") return { _tag: "Rejected", reason: "not_running" }
      return end("succeeded", {
        committed: true,
        resourceId: event.resourceId ?? op.resourceId,
        ...(event.detail === undefined ? {} : { detail: { ...op.detail, ...event.detail } })
      })
    case "Failed":
      return end("failed", { error: event.error, ...(event.reason === undefined ? {} : { reason: event.reason }) })
    case "CancelRequested":
      if (!cancellableType(op.type)) return { _tag: "Rejected", reason: "not_cancellable" }
      if (op.committed) return { _tag: "Rejected", reason: "committed" }
      return end("cancelled", event.reason === undefined ? {} : { reason: event.reason })
  }
}

/** A fresh operation (state `pending`, due now). */
export const newOperation = (args: {
  readonly operationId: string
  readonly projectId: string
  readonly type: OperationType
  readonly resourceType: OperationRecord["resourceType"]
  readonly resourceId?: string | null
  readonly params?: Record<string, unknown>
  readonly detail?: Record<string, unknown> | null
  readonly now: DateTime.Utc
}): OperationRecord => ({
  operationId: args.operationId,
  projectId: args.projectId,
  type: args.type,
  resourceType: args.resourceType,
  resourceId: args.resourceId ?? null,
  state: "pending",
  committed: false,
  params: args.params ?? {},
  detail: args.detail ?? null,
  error: null,
  reason: null,
  attempts: 0,
  nextAttemptAt: args.now,
  leasedUntil: null,
  claimSeq: 0,
  createdAt: args.now,
  startedAt: null,
  endedAt: null,
  updatedAt: args.now
})

/** The delay before retry `attempt` (1, 2, …) after a transient provider failure: 1 s doubling, at most 5 min. */
export const retryDelayMs = (attempt: number, baseMs = 1000, maxMs = 300_000): number =>
  Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(30, attempt - 1)))
