/** The ProjectApiKeys feature's /v1 routes (docs/api-notes/credentials.md): the group, the problem codes of each operation, the *Idem* ones. */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  CreateProjectApiKeyRequest,
  CreateProjectApiKeyResponse,
  ListProjectApiKeysResponse,
  ProjectApiKeyResponse,
  UpdateProjectApiKeyRequest
} from "@switchboard/core/credentials"
import { ApiKeyId, ProjectId } from "@switchboard/core/shared"
import { Schema } from "effect"
import { idempotencyProblems as idempotency, projectProblems as common } from "./CommonProblems.js"
import { projectAccess } from "./Access.js"
import { Idempotent, Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

const ProjectPath = Schema.Struct({ projectId: ProjectId })
const KeyPath = Schema.Struct({ projectId: ProjectId, apiKeyId: ApiKeyId })

export const ProjectApiKeysGroup = HttpApiGroup.make("projectApiKeys")
  .add(
    HttpApiEndpoint.get("listProjectApiKeys", "/v1/projects/:projectId/api-keys", {
      params: ProjectPath,
      success: ListProjectApiKeysResponse,
      error: problems(common)
    }).annotate(Requires, projectAccess("project:read")).annotateMerge(OpenApi.annotations({ summary: "List API keys", description: "The project's API keys with their permissions, without secrets." }))
  )
  .add(
    HttpApiEndpoint.post("createProjectApiKey", "/v1/projects/:projectId/api-keys", {
      params: ProjectPath,
      payload: CreateProjectApiKeyRequest,
      success: CreateProjectApiKeyResponse.pipe(HttpApiSchema.status(201)),
      error: problems(common, idempotency, "PROJECT_CLOSING", "API_KEY_LIMIT_REACHED", "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, projectAccess("project:write", true, true)).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Create an API key", description: "Creates a project API key with permissions; its secret is in this answer only." }))
  )
  .add(
    HttpApiEndpoint.patch("updateProjectApiKey", "/v1/projects/:projectId/api-keys/:apiKeyId", {
      params: KeyPath,
      payload: UpdateProjectApiKeyRequest,
      success: ProjectApiKeyResponse,
      error: problems(common, idempotency, "PROJECT_CLOSING", "API_KEY_NOT_FOUND", "API_KEY_REVOKED", "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, projectAccess("project:write", true, true)).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Update an API key", description: "Changes an API key's name or permissions." }))
  )
  .add(
    HttpApiEndpoint.delete("revokeProjectApiKey", "/v1/projects/:projectId/api-keys/:apiKeyId", {
      params: KeyPath,
      success: ProjectApiKeyResponse,
      error: problems(common, idempotency, "API_KEY_NOT_FOUND")
    }).annotate(Requires, projectAccess("project:write", true)).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Revoke an API key", description: "Revokes the key at once." }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Project API keys",
    description: "Credentials scoped to one project (sb_sk_…), with permissions."
  }))
