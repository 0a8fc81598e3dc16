/**
 * The ProjectApiKeys feature's /v1 handlers (API.md §1.4). Listing needs `project:read` (a project
 * key may list its project's keys); creating, updating and revoking need `project:write` from an
 * account credential — a project API key never mints or changes keys.
 */
import { HttpApiBuilder } from "effect/http-api"
import {
  CreateProjectApiKeyRequest,
  CreateProjectApiKeyResponse,
  ListProjectApiKeysResponse,
  ProjectApiKeyResponse,
  ProjectApiKeys,
  UpdateProjectApiKeyRequest
} from "@switchboard/core/credentials"
import { Effect, Redacted } from "effect"
import { v1Group } from "./V1Group.js"
import { ProjectApiKeysGroup } from "./ProjectApiKeysApi.js"
import { idempotent } from "./Idempotency.js"
import { decodeJsonBody, domain, rendered, toResponse } from "./Pipeline.js"
import { accountBehind, onProject } from "./ProjectsHandlers.js"

export const ProjectApiKeysGroupLive = HttpApiBuilder.group(v1Group(ProjectApiKeysGroup), "projectApiKeys", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* ProjectApiKeys
    return handlers
      .handleRaw("listProjectApiKeys", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:read")
          const apiKeys = yield* domain(keys.list(path.projectId, principal))
          return toResponse(yield* rendered(ListProjectApiKeysResponse, { apiKeys }))
        }))
      .handleRaw("createProjectApiKey", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write", true, true)
          const accountId = yield* accountBehind(principal)
          const body = yield* decodeJsonBody(CreateProjectApiKeyRequest)
          return yield* idempotent(
            { route: "/v1/projects/:projectId/api-keys", path: { projectId: path.projectId }, body: body.json },
            Effect.gen(function*() {
              const created = yield* domain(keys.create({
                projectId: path.projectId,
                principal,
                accountId,
                name: body.value.name,
                permissions: body.value.permissions,
                expiresAt: body.value.expiresAt
              }))
              return yield* rendered(
                CreateProjectApiKeyResponse,
                { apiKey: created.apiKey, secret: Redacted.value(created.secret) },
                201,
                { "cache-control": "no-store" }
              )
            })
          )
        }))
      .handleRaw("updateProjectApiKey", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write", true, true)
          const body = yield* decodeJsonBody(UpdateProjectApiKeyRequest)
          return yield* idempotent(
            {
              route: "/v1/projects/:projectId/api-keys/:apiKeyId",
              path: { projectId: path.projectId, apiKeyId: path.apiKeyId },
              body: body.json
            },
            Effect.gen(function*() {
              const apiKey = yield* domain(keys.updatePermissions(path.projectId, principal, path.apiKeyId, body.value.permissions))
              return yield* rendered(ProjectApiKeyResponse, { apiKey })
            })
          )
        }))
      .handleRaw("revokeProjectApiKey", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write", true)
          return yield* idempotent(
            { route: "/v1/projects/:projectId/api-keys/:apiKeyId", path: { projectId: path.projectId, apiKeyId: path.apiKeyId } },
            Effect.gen(function*() {
              const apiKey = yield* domain(keys.revoke(path.projectId, principal, path.apiKeyId))
              return yield* rendered(ProjectApiKeyResponse, { apiKey })
            })
          )
        }))
  }))
