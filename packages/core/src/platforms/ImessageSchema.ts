/**
 * iMessage on the /v1 API (docs/provisioning.md): the create request of a shared-line
 * assignment and the record core keeps of one (`ProjectPlatformSettings`, `SharedLineAssignment` and
 * its page and list query are shared with WhatsApp: `WhatsappSchema.ts`). Dedicated lines are resources of the
 * common model (type `imessage_line`), provisioned by `resource.provision` operations.
 */
import { DateTime, Schema } from "effect"
import { SharedLineAssignment } from "./WhatsappSchema.js"
import type { EventTypeSpec } from "../events/Catalog.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

const E164Handle = /^\+[1-9]\d{1,14}$/
const EmailHandle = /^[^\s@]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/
const EmailAddress = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(254)),
  Schema.check(Schema.isPattern(EmailHandle, {
    message: "must be an email address",
    // Without the `u` flag Effect writes no pattern; JSON Schema counts `{1,64}` in code points, not
    // UTF-16 units, so the pattern is looser than this check for astral characters (approximate).
    toJsonSchema: () => [{ pattern: EmailHandle.source }, true]
  }))
)
const Name = Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(100)))

/** An iMessage handle: an E.164 number or an email address (at most 254 characters). */
export const ImessageHandle = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(254)),
  Schema.check(Schema.makeFilter((h) => E164Handle.test(h) || EmailHandle.test(h) || "must be an E.164 phone number or an email address"))
)

export const CreateSharedLineAssignmentRequest = Schema.Struct({
  handle: ImessageHandle,
  email: Schema.optional(EmailAddress),
  firstName: Schema.optional(Name),
  lastName: Schema.optional(Name)
}).annotate({ identifier: "CreateSharedLineAssignmentRequest" }).pipe(noExcessKeys)
export type CreateSharedLineAssignmentRequest = typeof CreateSharedLineAssignmentRequest.Type

/** An assignment as core keeps it. `handleKey` is the handle compared case-insensitively (emails). */
export interface SharedLineAssignmentRecord {
  readonly assignmentId: string
  readonly projectId: string
  readonly platform: "imessage" | "whatsapp"
  readonly handle: string
  readonly handleKey: string
  readonly assignedPhoneNumber: string
  readonly email: string | null
  readonly firstName: string | null
  readonly lastName: string | null
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
  readonly releasedAt: DateTime.Utc | null
}

export const handleKeyOf = (handle: string): string => handle.toLowerCase()

export const imessageAssignmentView = (r: SharedLineAssignmentRecord): SharedLineAssignment => ({
  assignmentId: r.assignmentId,
  projectId: r.projectId,
  platform: r.platform,
  handle: r.handle,
  assignedPhoneNumber: r.assignedPhoneNumber,
  ...(r.email === null ? {} : { email: r.email }),
  ...(r.firstName === null ? {} : { firstName: r.firstName }),
  ...(r.lastName === null ? {} : { lastName: r.lastName }),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  ...(r.releasedAt === null ? {} : { releasedAt: r.releasedAt })
})

export const imessageEventSchemas: Readonly<Record<string, EventTypeSpec>> = {
  "imessage.assignment.updated": {
    data: SharedLineAssignment,
    audience: "infrastructure",
    description: "An end user's handle was assigned onto a shared iMessage line, or the assignment was released (releasedAt set)."
  }
}
