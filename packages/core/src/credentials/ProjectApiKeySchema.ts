/**
 * Project API key requests and responses (docs/api-notes/credentials.md). Request bodies reject
 * unknown properties; permission values other than the six known ones are accepted and preserved
 * (docs/api-notes/credentials.md), as long as they look like permissions (`<area>:<action>`).
 */
import { Schema } from "effect"
import { NullableTimestamp } from "../shared/Timestamp.js"
import { KeyName, Permission, ProjectApiKey } from "../accounts/Schema.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/** 1..32 permissions (duplicates are dropped when stored). */
export const ProjectApiKeyPermissions = Schema.Array(Permission).pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(32)))
  .annotate({ identifier: "ProjectApiKeyPermissions" })

/** `POST /v1/projects/{projectId}/api-keys`: `expiresAt` optional (absent or null: never expires). */
export const CreateProjectApiKeyRequest = Schema.Struct({
  name: KeyName,
  permissions: ProjectApiKeyPermissions,
  expiresAt: Schema.optionalKey(NullableTimestamp)
}).annotate({ identifier: "CreateProjectApiKeyRequest" }).pipe(noExcessKeys)
export type CreateProjectApiKeyRequest = typeof CreateProjectApiKeyRequest.Type

export const CreateProjectApiKeyResponse = Schema.Struct({
  apiKey: ProjectApiKey,
  secret: Schema.String
}).annotate({ identifier: "CreateProjectApiKeyResponse" })

/** `PATCH …/api-keys/{apiKeyId}`: the full new permission list. */
export const UpdateProjectApiKeyRequest = Schema.Struct({
  permissions: ProjectApiKeyPermissions
}).annotate({ identifier: "UpdateProjectApiKeyRequest" }).pipe(noExcessKeys)
export type UpdateProjectApiKeyRequest = typeof UpdateProjectApiKeyRequest.Type

export const ProjectApiKeyResponse = Schema.Struct({
  apiKey: ProjectApiKey
}).annotate({ identifier: "ProjectApiKeyResponse" })

export const ListProjectApiKeysResponse = Schema.Struct({
  apiKeys: Schema.Array(ProjectApiKey)
}).annotate({ identifier: "ListProjectApiKeysResponse" })
