/**
 * Storing operations with their events, shared by every provisioning service: a new pending
 * provision (the worker does the rest), and an operation finished inline (a release, a disconnect).
 * Both run inside the caller's transaction.
 */
import { DateTime, Effect } from "effect"
import { EventPublisher } from "../events/EventsFeature.js"
import { IdKinds } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { newOperation } from "./OperationMachine.js"
import { OperationsRepo } from "./PlatformPorts.js"
import type { OperationRecord, OperationType, ResourceRecord, ResourceType } from "./PlatformSchema.js"
import { operationView, publishChanges } from "./PlatformViews.js"

export const makeOperationRecords = Effect.gen(function*() {
  const ops = yield* OperationsRepo
  const ids = yield* Ids
  const publisher = yield* EventPublisher

  /** Stores a new pending `resource.provision` and its event; returns its wire view. */
  const submit = (args: {
    readonly projectId: string
    readonly resourceType: ResourceType
    readonly params: Record<string, unknown>
    readonly subject?: string
  }) =>
    Effect.gen(function*() {
      const now = yield* DateTime.now
      const op = newOperation({
        operationId: yield* ids.typeId(IdKinds.operation),
        projectId: args.projectId,
        type: "resource.provision",
        resourceType: args.resourceType,
        params: args.params,
        now
      })
      yield* ops.insert({ ...op, subject: args.subject ?? null })
      yield* publishChanges(publisher, args.projectId, { operations: [op] }, now)
      return operationView(op)
    })

  /** Stores an operation that succeeded inline, with the events of it and of the changed resources. */
  const finished = (args: {
    readonly projectId: string
    readonly type: OperationType
    readonly resourceType: ResourceType
    readonly resourceId?: string | null
    readonly changed: ReadonlyArray<ResourceRecord>
  }) =>
    Effect.gen(function*() {
      const now = yield* DateTime.now
      const base = newOperation({
        operationId: yield* ids.typeId(IdKinds.operation),
        projectId: args.projectId,
        type: args.type,
        resourceType: args.resourceType,
        resourceId: args.resourceId ?? null,
        now
      })
      const op: OperationRecord = { ...base, state: "succeeded", committed: true, startedAt: now, endedAt: now }
      yield* ops.insert(op)
      yield* publishChanges(publisher, args.projectId, { operations: [op], resources: args.changed }, now)
      return operationView(op)
    })

  return { submit, finished } as const
})
