/**
 * iMessage's /v1 handlers (issue 18; contract §1 9b). `createSharedLineAssignment` answers 201;
 * `provisionImessageDedicatedLine` always answers 202 with the operation (`Location`,
 * `Retry-After`), and a replay of its key returns the same operation — a new line needs a new key.
 * Before a dedicated line is requested, the project's billing subscriptions are materialised, so the
 * line's fixed charge has a subscription to land on. `releaseImessageDedicatedLine` is the common release (`Provisioning.releaseResource`) limited to
 * dedicated iMessage lines.
 */
import { HttpApiBuilder } from "effect/http-api"
import {
  CreateSharedLineAssignmentRequest,
  Imessage,
  ListSharedLineAssignmentsQuery,
  Operation,
  ProjectPlatformSettings,
  Provisioning,
  SharedLineAssignment,
  SharedLineAssignmentPage
} from "@switchboard/core/platforms"
import { BillingService } from "@switchboard/core/billing"
import { Effect } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { v1Group } from "./V1Group.js"
import { ImessageGroup } from "./ImessageApi.js"
import { idempotent } from "./Idempotency.js"
import { decodeJsonBody, domain, rendered, toResponse } from "./Pipeline.js"
import { acceptedOperation } from "./PlatformsHandlers.js"
import { decodeQuery, onProject } from "./ProjectsHandlers.js"

const BASE = "/v1/projects/:projectId/platforms/imessage"

export const ImessageGroupLive = HttpApiBuilder.group(v1Group(ImessageGroup), "imessage", (handlers) =>
  Effect.gen(function*() {
    const imessage = yield* Imessage
    const provisioning = yield* Provisioning
    const billing = yield* BillingService
    const config = yield* ServerConfig
    const read = (projectId: string) => onProject(projectId, "platforms:read")
    const write = (projectId: string) => onProject(projectId, "platforms:write")

    return handlers
      .handleRaw("getProjectImessagePlatform", ({ params: path }) =>
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
      .handleRaw("createSharedLineAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(CreateSharedLineAssignmentRequest)
          return yield* idempotent(
            { route: `${BASE}/assignments`, path: { projectId: path.projectId }, body: body.json },
            Effect.flatMap(domain(imessage.createAssignment(path.projectId, principal, body.value)), (a) =>
              rendered(SharedLineAssignment, a, 201))
          )
        }))
      .handleRaw("listSharedLineAssignments", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const query = yield* decodeQuery(ListSharedLineAssignmentsQuery)
          const page = yield* domain(imessage.listAssignments(path.projectId, principal, query))
          return toResponse(yield* rendered(SharedLineAssignmentPage, {
            assignments: page.assignments,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }))
        }))
      .handleRaw("getSharedLineAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const a = yield* domain(imessage.getAssignment(path.projectId, principal, path.assignmentId))
          return toResponse(yield* rendered(SharedLineAssignment, a))
        }))
      .handleRaw("releaseSharedLineAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const a = yield* domain(imessage.releaseAssignment(path.projectId, principal, path.assignmentId))
          return toResponse(yield* rendered(SharedLineAssignment, a))
        }))
      .handleRaw("provisionImessageDedicatedLine", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          // The line is charged to the project's subscription once it is held: make sure it exists
          // (billing materialises subscriptions on first use; only for a caller who may write to the
          // project — a refusal here is answered by the provisioning call below, which gates alike).
          yield* billing.ensureSubscriptions(path.projectId, principal).pipe(Effect.catch(() => Effect.void))
          return yield* idempotent(
            { route: `${BASE}/dedicated`, path: { projectId: path.projectId } },
            Effect.flatMap(domain(imessage.provisionDedicatedLine(path.projectId, principal)), (op) =>
              acceptedOperation(config.apiUrl, path.projectId, op))
          )
        }))
      .handleRaw("releaseImessageDedicatedLine", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const op = yield* domain(provisioning.releaseResource(path.projectId, principal, path.resourceId, "imessage_line"))
          return toResponse(yield* rendered(Operation, op))
        }))
  }))
