/** The Uploads feature's domain errors (no HTTP knowledge; v1/UploadsErrors.ts maps them). */
import { Schema } from "effect"

/** No such ticket for this caller (unknown, malformed, or another principal's). */
export class UploadNotFound extends Schema.TaggedError<UploadNotFound>()("UploadNotFound", {
  uploadId: Schema.String
}) {}

/** An upload form lacks a field, or a field is malformed (before the signature can be checked). */
export class UploadFormInvalid extends Schema.TaggedError<UploadFormInvalid>()("UploadFormInvalid", {
  field: Schema.String,
  message: Schema.String
}) {}

/** The upload form's signature does not cover what was sent (tampered, forged, or another upload's). */
export class UploadSignatureInvalid extends Schema.TaggedError<UploadSignatureInvalid>()("UploadSignatureInvalid", {
  message: Schema.String
}) {}

/** The ticket's time is up: it accepts neither its upload nor its commit. */
export class UploadExpired extends Schema.TaggedError<UploadExpired>()("UploadExpired", {
  uploadId: Schema.String,
  expiresAt: Schema.String
}) {}

/** The ticket is not in the state the operation needs. */
export class UploadStateConflict extends Schema.TaggedError<UploadStateConflict>()("UploadStateConflict", {
  uploadId: Schema.String,
  reason: Schema.Literals(["already_received", "not_received", "already_committed"])
}) {}

/** The file is larger than the ticket allows. */
export class UploadTooLarge extends Schema.TaggedError<UploadTooLarge>()("UploadTooLarge", {
  maxBytes: Schema.Int
}) {}

/** The file's bytes are not of the declared type (checked by magic number). */
export class UploadContentMismatch extends Schema.TaggedError<UploadContentMismatch>()("UploadContentMismatch", {
  declared: Schema.String,
  detected: Schema.NullOr(Schema.String)
}) {}

/** The ticket was issued for something else (e.g. an avatar ticket committed as a profile picture). */
export class UploadPurposeMismatch extends Schema.TaggedError<UploadPurposeMismatch>()("UploadPurposeMismatch", {
  uploadId: Schema.String
}) {}

/** Every error of the Uploads feature (the adapters' tables are typed against it). */
export type UploadError =
  | UploadNotFound | UploadFormInvalid | UploadSignatureInvalid | UploadExpired | UploadStateConflict | UploadTooLarge
  | UploadContentMismatch | UploadPurposeMismatch
