/**
 * The worker's step for a dedicated iMessage line (docs/provisioning.md;
 * `provisionImessageDedicatedLine`): requests are served **first in, first out** across every
 * project — an operation behind an earlier unfinished one keeps waiting (`running`, retried later),
 * however long that takes — and the head of the queue waits for `ImessagePool` capacity. The
 * operation cancels itself (`reason`) when the project is deleted (`project_deleted`) or no longer
 * holds the entitlement (`entitlement_lost`).
 */
import { Effect, Option } from "effect"
import { ProjectsRepo } from "../projects/Ports.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { ImessagePool } from "./ImessagePorts.js"
import { OperationsRepo, type ProviderFailure } from "./PlatformPorts.js"
import type { OperationRecord } from "./PlatformSchema.js"
import { makePricedResources } from "./PricedResources.js"

/** The entitlement that lets a project hold dedicated iMessage lines (and puts it in dedicated mode). */
export const DEDICATED_LINES_ENTITLEMENT = "imessage_dedicated_lines.can_purchase"
/** The shared-mode seat cap. */
export const SHARED_SEATS_ENTITLEMENT = "imessage_shared_lines.max_user_assignments"

export type ImessageLineStep =
  | { readonly _tag: "Line"; readonly phoneNumber: string }
  | { readonly _tag: "Wait"; readonly detail: Record<string, unknown> }
  | { readonly _tag: "Cancel"; readonly reason: "project_deleted" | "entitlement_lost" }

export const makeImessageLineStep = Effect.gen(function*() {
  const pool = yield* ImessagePool
  const ops = yield* OperationsRepo
  const projects = yield* ProjectsRepo
  const priced = yield* makePricedResources

  return (op: OperationRecord): Effect.Effect<ImessageLineStep, ProviderFailure> =>
    Effect.gen(function*() {
      const project = yield* projects.findById(op.projectId as ProjectId)
      if (Option.isNone(project) || project.value.state === "deleted") return { _tag: "Cancel", reason: "project_deleted" } as const
      if (!priced.granted(yield* priced.entitlements(op.projectId), DEDICATED_LINES_ENTITLEMENT)) {
        return { _tag: "Cancel", reason: "entitlement_lost" } as const
      }
      const head = yield* ops.findUnfinished({ resourceType: "imessage_line" })
      if (Option.isSome(head) && head.value.operationId !== op.operationId) {
        return { _tag: "Wait", detail: { waitingFor: "capacity", queue: "behind_earlier_requests" } } as const
      }
      const line = yield* pool.claimDedicated({ projectId: op.projectId, operationId: op.operationId })
      return Option.isSome(line)
        ? { _tag: "Line", phoneNumber: line.value.phoneNumber } as const
        : { _tag: "Wait", detail: { waitingFor: "capacity", queue: "next" } } as const
    })
})
