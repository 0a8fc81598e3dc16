/**
 * Request bodies of the upload operations (docs/api-notes/accounts-and-projects.md). The
 * ticket they answer with is `UploadTicket` (identity/Schema.ts).
 */
import { Schema } from "effect"
import { BoundedString } from "../shared/Bounds.js"
import { UploadId } from "../shared/Identifiers.js"
import { ImageContentType } from "../accounts/Schema.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/** `POST /v1/account/profile-picture/uploads`. */
export const ProfilePictureUploadRequest = Schema.Struct({
  contentType: ImageContentType
}).annotate({ identifier: "ProfilePictureUploadRequest" }).pipe(noExcessKeys)

/** `PUT /v1/account/profile-picture`: the id has the spec's shape (`sb_upl_` + 26 of [0-9a-z]). */
export const CommitAccountProfilePictureRequest = Schema.Struct({
  uploadId: UploadId
}).annotate({ identifier: "CommitAccountProfilePictureRequest" }).pipe(noExcessKeys)

/** `POST /v1/projects/{projectId}/agent-profile/avatar/uploads`. */
export const CreateAgentProfileAvatarUploadRequest = Schema.Struct({
  contentType: ImageContentType
}).annotate({ identifier: "CreateAgentProfileAvatarUploadRequest" }).pipe(noExcessKeys)

/**
 * `PUT /v1/projects/{projectId}/agent-profile/avatar`: the contract gives this `uploadId` no pattern
 * (a plain string), so any bounded string is accepted and one never issued is simply not found.
 */
export const CommitAgentProfileAvatarRequest = Schema.Struct({
  uploadId: BoundedString(1, 128)
}).annotate({ identifier: "CommitAgentProfileAvatarRequest" }).pipe(noExcessKeys)
