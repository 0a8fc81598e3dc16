/**
 * A project's closure status (the public contract's `getProjectClosureStatus`): per domain, what
 * still keeps the project from being closed, read from the domains' own stores — nothing changes.
 *
 * - `projects`: `deletion_not_requested` while active; `closure_in_progress` while closing (the
 *   closure job finishes it after `ProjectClosurePolicy.delay`); ready once deleted.
 * - `billing`: `billing_operation_pending` while a plan change waits for its payment.
 * - `platforms`: `platform_operation_in_progress` while a provisioning operation is pending or
 *   running; `platform_resources_active` while the project holds active resources (lines,
 *   bots, domains) — they are released with their own operations.
 * - `call_registry`: `calls_in_progress` while a call is live (started, ringing, answered,
 *   connected).
 *
 * `ready` when no domain has a blocker. A deletion is not an operation here, so
 * `deletionOperationId` is always null.
 */
import { Context, Effect, Layer, Option } from "effect"
import { BillingRepo } from "../billing/Ports.js"
import { fn } from "../internal/Traced.js"
import { OperationsRepo, ResourcesRepo } from "../platforms/PlatformPorts.js"
import type { AccountId, OrganizationId, ProjectId } from "../shared/Identifiers.js"
import { CallsRepo } from "../voice/Ports.js"
import { ProjectNotFound } from "./Errors.js"
import type { ClosureDomain, ProjectClosureStatusResponse } from "./Project.js"
import { makeProjectGate } from "./ProjectGate.js"
import { ProjectsRepo } from "./Ports.js"

const liveCallStatuses = ["started", "ringing", "answered", "connected"] as const

export class ProjectClosureStatus extends Context.Service<ProjectClosureStatus>()("core/ProjectClosureStatus", {
  make: Effect.gen(function*() {
    const projects = yield* ProjectsRepo
    const gate = yield* makeProjectGate
    const billing = yield* BillingRepo
    const operations = yield* OperationsRepo
    const resources = yield* ResourcesRepo
    const calls = yield* CallsRepo

    const status = fn("ProjectClosureStatus.status")(function*(input: {
      readonly accountId: AccountId
      readonly organizationId: OrganizationId
      readonly projectId: ProjectId
    }) {
      yield* gate.requireMember(input.organizationId, input.accountId)
      const found = yield* projects.findById(input.projectId)
      if (Option.isNone(found) || found.value.organizationId !== input.organizationId) {
        return yield* new ProjectNotFound({ projectId: input.projectId })
      }
      const project = found.value
      const projectId = project.projectId
      const [waiting, running, active, live] = yield* Effect.all([
        billing.waitingOperations(projectId),
        operations.list({ projectId, states: ["pending", "running"], limit: 1 }),
        resources.list({ projectId, states: ["active"], limit: 1 }),
        Effect.map(
          Effect.forEach(liveCallStatuses, (status) =>
            calls.list({ projectId, status, direction: undefined, createdAfter: undefined, createdBefore: undefined, after: undefined, limit: 1 })),
          (found) => found.some((page) => page.length > 0)
        )
      ])
      const blockers: Record<ClosureDomain, Array<string>> = { projects: [], billing: [], platforms: [], call_registry: [] }
      if (project.state === "active") blockers.projects.push("deletion_not_requested")
      if (project.state === "closing") blockers.projects.push("closure_in_progress")
      if (waiting.length > 0) blockers.billing.push("billing_operation_pending")
      if (running.length > 0) blockers.platforms.push("platform_operation_in_progress")
      if (active.length > 0) blockers.platforms.push("platform_resources_active")
      if (live) blockers.call_registry.push("calls_in_progress")
      const domains = (Object.keys(blockers) as Array<ClosureDomain>).map((domain) => ({
        domain,
        ready: blockers[domain].length === 0,
        blockers: blockers[domain]
      }))
      return {
        deletionOperationId: null,
        domains,
        organizationId: project.organizationId,
        projectId,
        ready: domains.every((d) => d.ready)
      } satisfies ProjectClosureStatusResponse
    })

    return { status } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
