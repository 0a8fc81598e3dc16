/** Attachments' domain errors (docs/provisioning.md). */
import { Schema } from "effect"

export class AttachmentNotFound extends Schema.TaggedError<AttachmentNotFound>()("AttachmentNotFound", {
  attachmentId: Schema.String
}) {}
/** The attachment's bytes are not stored yet (→ 409, Retry-After 5). */
export class AttachmentNotReady extends Schema.TaggedError<AttachmentNotReady>()("AttachmentNotReady", {
  attachmentId: Schema.String
}) {}
export class AttachmentTooLarge extends Schema.TaggedError<AttachmentTooLarge>()("AttachmentTooLarge", {
  maxBytes: Schema.Number
}) {}
/** An empty file, a Content-Type that is no media type, or bytes that contradict it (→ 400). */
export class InvalidAttachmentRequest extends Schema.TaggedError<InvalidAttachmentRequest>()("InvalidAttachmentRequest", {
  message: Schema.String
}) {}

export type AttachmentError = AttachmentNotFound | AttachmentNotReady | AttachmentTooLarge | InvalidAttachmentRequest
