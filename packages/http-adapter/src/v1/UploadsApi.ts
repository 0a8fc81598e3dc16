/**
 * The Uploads feature's /v1 routes (docs/api-notes/accounts-and-projects.md: profile pictures and
 * avatars): the group, the problem codes of each operation, the *Idem* ones. The upload target
 * itself (`POST /v1/uploads/{uploadId}`, multipart, no bearer) and the served files
 * (`GET /v1/files/{key}`) are raw routes (UploadsRoutes.ts).
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Projects } from "@switchboard/core"
import { Account, UploadTicket } from "@switchboard/core/accounts"
import { ProjectId } from "@switchboard/core/shared"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import {
  CommitAccountProfilePictureRequest,
  CommitAgentProfileAvatarRequest,
  CreateAgentProfileAvatarUploadRequest,
  ProfilePictureUploadRequest
} from "@switchboard/core/uploads"
import { Schema } from "effect"
import { commonProblems as common, idempotencyProblems as idempotency } from "./CommonProblems.js"
import { accountAccess, projectAccess } from "./Access.js"
import { Idempotent, Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

const ProjectPath = Schema.Struct({ projectId: ProjectId })

// Kept local rather than imported from Api.ts, which imports this module.

/** What a commit can answer besides: unknown/foreign uploadId, expired/not uploaded/already committed. */
const commit: ReadonlyArray<ProblemCode> = ["RESOURCE_NOT_FOUND", "FAILED_PRECONDITION", "PAYLOAD_TOO_LARGE"]
/** Routes under /v1/projects/{projectId} (project:write; project API keys allowed). */
const projectWrite: ReadonlyArray<ProblemCode> = [
  ...common, "RESOURCE_MISMATCH", "PROJECT_NOT_FOUND", "PROJECT_DELETED", "PROJECT_CLOSING"
]

/**
 * The commits and resets are `Idempotent` "in handler": their handlers run the protocol themselves, so that the file a change replaces is removed only once the change and its
 * idempotency record have committed (`releasingFile`, UploadsHandlers.ts).
 */
export const UploadsGroup = HttpApiGroup.make("uploads")
  .add(
    HttpApiEndpoint.post("createAccountProfilePictureUpload", "/v1/account/profile-picture/uploads", {
      payload: ProfilePictureUploadRequest,
      success: UploadTicket.pipe(HttpApiSchema.status(201)),
      error: problems(common, "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, accountAccess()).annotateMerge(OpenApi.annotations({ summary: "Start a profile picture upload", description: "Answers a one-time form to upload an image to; commit it with PUT /v1/account/profile-picture." }))
  )
  .add(
    HttpApiEndpoint.put("commitAccountProfilePicture", "/v1/account/profile-picture", {
      payload: CommitAccountProfilePictureRequest,
      success: Account,
      error: problems(common, idempotency, "ACCOUNT_NOT_FOUND", commit)
    }).annotate(Requires, accountAccess()).annotate(Idempotent, "in handler").annotateMerge(OpenApi.annotations({ summary: "Use the uploaded picture", description: "Makes the uploaded image the account's profile picture." }))
  )
  .add(HttpApiEndpoint.delete("resetAccountProfilePicture", "/v1/account/profile-picture", {
    success: Account,
    error: problems(common, idempotency, "ACCOUNT_NOT_FOUND")
  }).annotate(Requires, accountAccess()).annotate(Idempotent, "in handler").annotateMerge(OpenApi.annotations({ summary: "Reset the profile picture", description: "Goes back to the default picture." })))
  .add(
    HttpApiEndpoint.post("createAgentProfileAvatarUpload", "/v1/projects/:projectId/agent-profile/avatar/uploads", {
      params: ProjectPath,
      payload: CreateAgentProfileAvatarUploadRequest,
      success: UploadTicket.pipe(HttpApiSchema.status(201)),
      error: problems(projectWrite, "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, projectAccess("project:write")).annotateMerge(OpenApi.annotations({ summary: "Start an avatar upload", description: "Answers a one-time form to upload the agent's avatar to; commit it with PUT .../agent-profile/avatar." }))
  )
  .add(
    HttpApiEndpoint.put("commitAgentProfileAvatar", "/v1/projects/:projectId/agent-profile/avatar", {
      params: ProjectPath,
      payload: CommitAgentProfileAvatarRequest,
      success: Projects.AgentProfile,
      error: problems(projectWrite, idempotency, commit)
    }).annotate(Requires, projectAccess("project:write")).annotate(Idempotent, "in handler").annotateMerge(OpenApi.annotations({ summary: "Use the uploaded avatar", description: "Makes the uploaded image the agent's avatar." }))
  )
  .add(
    HttpApiEndpoint.delete("resetAgentProfileAvatar", "/v1/projects/:projectId/agent-profile/avatar", {
      params: ProjectPath,
      success: Projects.AgentProfile,
      error: problems(projectWrite, idempotency)
    }).annotate(Requires, projectAccess("project:write")).annotate(Idempotent, "in handler").annotateMerge(OpenApi.annotations({ summary: "Reset the avatar", description: "Goes back to the default avatar." }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Uploads",
    description: "Profile pictures and agent avatars: a ticket (10 minutes, one JPEG/PNG/WebP file up to 5 MiB) whose formFields are " +
      "posted as multipart/form-data, with the file last in a part named `file`, to its uploadUrl (no bearer; " +
      "204 when stored); then a commit by uploadId. Committed files are served from /v1/files/{key}."
  }))
