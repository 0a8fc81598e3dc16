/**
 * The Uploads feature's rows of the error table: core error tag → problem (see Problems.ts).
 *
 * - a form whose signature does not verify, or that was issued for another upload → 403 FORBIDDEN;
 * - an expired ticket, a second upload, a commit before the file arrived, a second commit →
 *   409 FAILED_PRECONDITION (the catalog has no 410 for uploads; the detail says which);
 * - an unknown uploadId, or another principal's → 404 RESOURCE_NOT_FOUND (no existence oracle);
 * - a file over the limit → 413 PAYLOAD_TOO_LARGE; bytes not of the declared type, a missing form
 *   field, a ticket of another purpose → 422 VALIDATION_FAILED naming the field.
 */
import type { ErrorTable } from "./Problems.js"
import { problem, validationFailed } from "./ProblemFailure.js"

const stateDetail: Record<string, (uploadId: string) => string> = {
  already_received: (id) => `A file was already uploaded for ${id}; request a new upload ticket.`,
  not_received: (id) => `No file has been uploaded for ${id} yet; POST it to the ticket's uploadUrl first.`,
  already_committed: (id) => `Upload ${id} was already committed; request a new upload ticket.`
}

export const uploadsErrors: ErrorTable = {
  UploadNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No upload ${String(e.uploadId)} for this caller.`),
  UploadFormInvalid: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "form", message: String(e.message), path: `/${String(e.field)}` }],
      `The upload form field ${String(e.field)} ${String(e.message)}.`
    ),
  UploadSignatureInvalid: (e) => problem("FORBIDDEN", `The upload form is not valid: ${String(e.message)}.`),
  UploadExpired: (e) =>
    problem("FAILED_PRECONDITION", `Upload ticket ${String(e.uploadId)} expired at ${String(e.expiresAt)}; request a new one.`),
  UploadStateConflict: (e) =>
    problem("FAILED_PRECONDITION", (stateDetail[String(e.reason)] ?? ((id: string) => `Upload ${id} is not usable.`))(String(e.uploadId))),
  UploadTooLarge: (e) => problem("PAYLOAD_TOO_LARGE", `The file exceeds ${String(e.maxBytes)} bytes.`),
  UploadContentMismatch: (e) =>
    validationFailed(
      [{
        code: "content_type_mismatch",
        location: "form",
        message: `The file's bytes are ${e.detected === null ? "not a JPEG, PNG or WebP image" : String(e.detected)}, not the declared ${String(e.declared)}.`,
        path: "/file"
      }],
      "The file is not of the declared content type."
    ),
  UploadPurposeMismatch: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "json", message: "was issued for another purpose", path: "/uploadId" }],
      `Upload ${String(e.uploadId)} was issued for another purpose.`
    )
}
