/**
 * The ProjectApiKeys feature's /v1 handlers (docs/api-notes/credentials.md). Listing needs
 * `project:read` (a project key may list its project's keys); creating, updating and revoking need
 * `project:write` from an account credential — a project API key never mints or changes keys.
 */
import { HttpApiBuilder } from "effect/http-api"
import { CreateProjectApiKeyResponse, ProjectApiKeys } from "@switchboard/core/credentials"
import { Effect, Redacted } from "effect"
import { onProject } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { ProjectApiKeysGroup } from "./ProjectApiKeysApi.js"
import { domain, rendered, toResponse } from "./Pipeline.js"
import { accountBehind } from "./ProjectsHandlers.js"

export const ProjectApiKeysGroupLive = HttpApiBuilder.group(v1Group(ProjectApiKeysGroup), "projectApiKeys", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* ProjectApiKeys
    return handlers
      .handle("listProjectApiKeys", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:read")
          return { apiKeys: yield* domain(keys.list(path.projectId, principal)) }
        }))
      .handle("createProjectApiKey", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write", true, true)
          const accountId = yield* accountBehind(principal)
          const created = yield* domain(keys.create({
            projectId: path.projectId,
            principal,
            accountId,
            name: payload.name,
            permissions: payload.permissions,
            expiresAt: payload.expiresAt
          }))
          // The secret is in this answer only: no cache may keep it.
          return toResponse(yield* rendered(
            CreateProjectApiKeyResponse,
            { apiKey: created.apiKey, secret: Redacted.value(created.secret) },
            201,
            { "cache-control": "no-store" }
          ))
        }))
      .handle("updateProjectApiKey", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write", true, true)
          return { apiKey: yield* domain(keys.updatePermissions(path.projectId, principal, path.apiKeyId, payload.permissions)) }
        }))
      .handle("revokeProjectApiKey", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "project:write", true)
          return { apiKey: yield* domain(keys.revoke(path.projectId, principal, path.apiKeyId)) }
        }))
  }))
