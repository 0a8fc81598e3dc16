/**
 * The Uploads feature's rows of the /v1 error table: core error → problem (see Problems.ts).
 *
 * - a form whose signature does not verify, or that was issued for another upload → 403 FORBIDDEN;
 * - an expired ticket, a second upload, a commit before the file arrived, a second commit →
 *   409 FAILED_PRECONDITION (the catalog has no 410 for uploads; the detail says which);
 * - an unknown uploadId, or another principal's → 404 RESOURCE_NOT_FOUND (no existence oracle);
 * - a file over the limit → 413 PAYLOAD_TOO_LARGE; bytes not of the declared type, a missing form
 *   field, a ticket of another purpose → 422 VALIDATION_FAILED naming the field.
 */
import type { UploadError, UploadStateConflict } from "@switchboard/core/uploads"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

const stateDetail: { readonly [R in UploadStateConflict["reason"]]: (uploadId: string) => string } = {
  already_received: (id) => `A file was already uploaded for ${id}; request a new upload ticket.`,
  not_received: (id) => `No file has been uploaded for ${id} yet; POST it to the ticket's uploadUrl first.`,
  already_committed: (id) => `Upload ${id} was already committed; request a new upload ticket.`
}

export const uploadsErrors: ErrorTable<UploadError> = {
  UploadNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No upload ${e.uploadId} for this caller.`),
  UploadFormInvalid: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "form", message: e.message, path: `/${e.field}` }],
      `The upload form field ${e.field} ${e.message}.`
    ),
  UploadSignatureInvalid: (e) => problem("FORBIDDEN", `The upload form is not valid: ${e.message}.`),
  UploadExpired: (e) =>
    problem("FAILED_PRECONDITION", `Upload ticket ${e.uploadId} expired at ${e.expiresAt}; request a new one.`),
  UploadStateConflict: (e) => problem("FAILED_PRECONDITION", stateDetail[e.reason](e.uploadId)),
  UploadTooLarge: (e) => problem("PAYLOAD_TOO_LARGE", `The file exceeds ${e.maxBytes} bytes.`),
  UploadContentMismatch: (e) =>
    validationFailed(
      [{
        code: "content_type_mismatch",
        location: "form",
        message: `The file's bytes are ${e.detected === null ? "not a JPEG, PNG or WebP image" : e.detected}, not the declared ${e.declared}.`,
        path: "/file"
      }],
      "The file is not of the declared content type."
    ),
  UploadPurposeMismatch: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "json", message: "was issued for another purpose", path: "/uploadId" }],
      `Upload ${e.uploadId} was issued for another purpose.`
    )
}
