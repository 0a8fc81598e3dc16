/**
 * iMessage's /v1 handlers (docs/provisioning.md). `createSharedLineAssignment` answers 201;
 * `provisionImessageDedicatedLine` always answers 202 with the operation (`Location`,
 * `Retry-After`), and a replay of its key returns the same operation — a new line needs a new key.
 * Before a dedicated line is requested, the project's billing subscriptions are materialised, so the
 * line's fixed charge has a subscription to land on. `releaseImessageDedicatedLine` is the common release (`Provisioning.releaseResource`) limited to
 * dedicated iMessage lines.
 */
import { HttpApiBuilder } from "effect/http-api"
import { Imessage, ProjectPlatformSettings, Provisioning } from "@switchboard/core/platforms"
import { BillingService } from "@switchboard/core/billing"
import { Effect } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { onProject } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { ImessageGroup } from "./ImessageApi.js"
import { domain, rendered, toResponse } from "./Pipeline.js"
import { acceptedOperation } from "./PlatformsHandlers.js"

export const ImessageGroupLive = HttpApiBuilder.group(v1Group(ImessageGroup), "imessage", (handlers) =>
  Effect.gen(function*() {
    const imessage = yield* Imessage
    const provisioning = yield* Provisioning
    const billing = yield* BillingService
    const config = yield* ServerConfig
    const read = (projectId: string) => onProject(projectId, "platforms:read")
    const write = (projectId: string) => onProject(projectId, "platforms:write")

    return handlers
      .handle("getProjectImessagePlatform", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const { dedicatedLineAvailable, settings } = yield* domain(imessage.getSettings(path.projectId, principal))
          // Whether a dedicated line would be assigned without waiting: the contract's body has no
          // field for it (`{mode: "dedicated"}`), so it is a header.
          return toResponse(yield* rendered(ProjectPlatformSettings, settings, 200, {
            "cache-control": "no-store",
            ...(settings.mode === "dedicated" ? { "dedicated-line-available": String(dedicatedLineAvailable) } : {})
          }))
        }))
      .handle("createSharedLineAssignment", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(imessage.createAssignment(path.projectId, principal, payload))
        }))
      .handle("listSharedLineAssignments", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const page = yield* domain(imessage.listAssignments(path.projectId, principal, query))
          return {
            assignments: page.assignments,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }
        }))
      .handle("getSharedLineAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return yield* domain(imessage.getAssignment(path.projectId, principal, path.assignmentId))
        }))
      .handle("releaseSharedLineAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(imessage.releaseAssignment(path.projectId, principal, path.assignmentId))
        }))
      .handle("provisionImessageDedicatedLine", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          // The line is charged to the project's subscription once it is held: make sure it exists
          // (billing materialises subscriptions on first use; only for a caller who may write to the
          // project — a refusal here is answered by the provisioning call below, which gates alike).
          yield* billing.ensureSubscriptions(path.projectId, principal).pipe(Effect.catch(() => Effect.void))
          const op = yield* domain(imessage.provisionDedicatedLine(path.projectId, principal))
          return toResponse(yield* acceptedOperation(config.apiUrl, path.projectId, op))
        }))
      .handle("releaseImessageDedicatedLine", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(provisioning.releaseResource(path.projectId, principal, path.resourceId, "imessage_line"))
        }))
  }))
