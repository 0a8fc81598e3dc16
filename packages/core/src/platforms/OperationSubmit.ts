/** Storing a new `resource.provision` operation and its event: every provisioning request's first step. */
import { DateTime, Effect } from "effect"
import type { EventPublisher } from "../events/EventsFeature.js"
import { IdKinds } from "../shared/Identifiers.js"
import type { Ids } from "../shared/Ids.js"
import { newOperation } from "./OperationMachine.js"
import type { OperationsRepo } from "./PlatformPorts.js"
import type { ResourceType } from "./PlatformSchema.js"
import { operationView, publishChanges } from "./PlatformViews.js"

/** Stores a pending operation and its event (inside the caller's transaction); answers its wire view. */
export const makeSubmit = (deps: {
  readonly ops: typeof OperationsRepo.Service
  readonly ids: Ids
  readonly publisher: typeof EventPublisher.Service
}) =>
  (args: {
    readonly projectId: string
    readonly resourceType: ResourceType
    readonly params: Record<string, unknown>
    readonly subject?: string
  }) =>
    Effect.gen(function*() {
      const now = yield* DateTime.now
      const op = newOperation({
        operationId: yield* deps.ids.typeId(IdKinds.operation),
        projectId: args.projectId,
        type: "resource.provision",
        resourceType: args.resourceType,
        params: args.params,
        now
      })
      yield* deps.ops.insert({ ...op, subject: args.subject ?? null })
      yield* publishChanges(deps.publisher, args.projectId, { operations: [op] }, now)
      return operationView(op)
    })
