/**
 * iMessage's /v1 routes (docs/provisioning.md): the project's iMessage mode, shared-line
 * assignments and dedicated lines. Reads need `platforms:read`, writes `platforms:write`;
 * `createSharedLineAssignment` and `provisionImessageDedicatedLine` take an Idempotency-Key.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  CreateSharedLineAssignmentRequest,
  ListSharedLineAssignmentsQuery,
  Operation,
  ProjectPlatformSettings,
  SharedLineAssignment,
  SharedLineAssignmentPage
} from "@switchboard/core/platforms"
import { ProjectId } from "@switchboard/core/shared"
import { Schema } from "effect"
import { idempotencyProblems as idempotency, projectProblems as common } from "./CommonProblems.js"
import { projectAccess } from "./Access.js"
import { Idempotent, Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

const BASE = "/v1/projects/:projectId/platforms/imessage"
const Id = Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(128)))
const ProjectPath = Schema.Struct({ projectId: ProjectId })
const AssignmentPath = Schema.Struct({ projectId: ProjectId, assignmentId: Id })
const ResourcePath = Schema.Struct({ projectId: ProjectId, resourceId: Id })

export const ImessageGroup = HttpApiGroup.make("imessage")
  .add(
    HttpApiEndpoint.get("getProjectImessagePlatform", BASE, {
      params: ProjectPath,
      success: ProjectPlatformSettings,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Get the iMessage mode",
      description: "Shared or dedicated iMessage, from the project's plan entitlements: shared mode carries the seat cap (maxUserAssignments), dedicated mode whether a dedicated line would be assigned without waiting. Needs `platforms:read`."
    }))
  )
  .add(
    HttpApiEndpoint.post("createSharedLineAssignment", `${BASE}/assignments`, {
      params: ProjectPath,
      payload: CreateSharedLineAssignmentRequest,
      success: SharedLineAssignment.pipe(HttpApiSchema.status(201)),
      error: problems(
        common, idempotency, "PAYLOAD_TOO_LARGE", "PROJECT_CLOSING", "ASSIGNMENT_EXISTS", "SHARED_LINE_CAP_EXCEEDED",
        "IMESSAGE_MODE_DEDICATED", "SHARED_LINE_POOL_EXHAUSTED"
      )
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true)
      .annotateMerge(OpenApi.annotations({
        summary: "Assign a handle to a shared line",
        description: "Maps an end user's iMessage handle (E.164 or email) onto a seat of a pooled shared line; the server picks the number. When every shared line is full the pool grows only if the project's iMessage auto-scale setting is on. Needs `platforms:write` and an Idempotency-Key; 409 ASSIGNMENT_EXISTS, SHARED_LINE_CAP_EXCEEDED, IMESSAGE_MODE_DEDICATED or PROJECT_CLOSING, 503 SHARED_LINE_POOL_EXHAUSTED."
      }))
  )
  .add(
    HttpApiEndpoint.get("listSharedLineAssignments", `${BASE}/assignments`, {
      params: ProjectPath,
      query: ListSharedLineAssignmentsQuery,
      success: SharedLineAssignmentPage,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "List shared-line assignments",
      description: "The project's iMessage shared-line assignments, oldest first; released ones only with includeReleased=true. Needs `platforms:read`."
    }))
  )
  .add(
    HttpApiEndpoint.get("getSharedLineAssignment", `${BASE}/assignments/:assignmentId`, {
      params: AssignmentPath,
      success: SharedLineAssignment,
      error: problems(common, "ASSIGNMENT_NOT_FOUND")
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Get a shared-line assignment",
      description: "One iMessage shared-line assignment, released or not. Needs `platforms:read`; 404 ASSIGNMENT_NOT_FOUND."
    }))
  )
  .add(
    HttpApiEndpoint.delete("releaseSharedLineAssignment", `${BASE}/assignments/:assignmentId`, {
      params: AssignmentPath,
      success: SharedLineAssignment,
      error: problems(common, "ASSIGNMENT_NOT_FOUND", "PROJECT_CLOSING")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({
      summary: "Release a shared-line assignment",
      description: "Frees the seat and the handle; the assignment stays readable with releasedAt, and repeating the release answers the same. Needs `platforms:write`; 404 ASSIGNMENT_NOT_FOUND."
    }))
  )
  .add(
    HttpApiEndpoint.post("provisionImessageDedicatedLine", `${BASE}/dedicated`, {
      params: ProjectPath,
      success: Operation.pipe(HttpApiSchema.status(202)),
      error: problems(common, idempotency, "PROJECT_CLOSING", "ENTITLEMENT_REQUIRED")
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true)
      .annotateMerge(OpenApi.annotations({
        summary: "Claim a dedicated iMessage line",
        description: "Starts a resource.provision operation for one dedicated line (always 202 with Location and Retry-After). Requests are served first in, first out and may wait for capacity for hours; the operation cancels itself if the project is deleted or loses the entitlement. The line is billed as the fixed charge imessage_dedicated_line while held. Needs `platforms:write` and an Idempotency-Key (a new line needs a new key); 402 ENTITLEMENT_REQUIRED without imessage_dedicated_lines.can_purchase, 409 PROJECT_CLOSING."
      }))
  )
  .add(
    HttpApiEndpoint.delete("releaseImessageDedicatedLine", `${BASE}/dedicated/:resourceId`, {
      params: ResourcePath,
      success: Operation,
      error: problems(common, "RESOURCE_NOT_FOUND", "PROJECT_CLOSING")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({
      summary: "Release a dedicated iMessage line",
      description: "Gives the dedicated line back to the pool, stops its charge and records a succeeded resource.release operation (200). Needs `platforms:write`; 404 RESOURCE_NOT_FOUND for anything but an active dedicated iMessage line of the project."
    }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "iMessage",
    description: "The project's iMessage mode, shared-line assignments and dedicated lines."
  }))
