/** Attachments' rows of the /v1 error table: core error → problem (see Problems.ts). */
import type { AttachmentError } from "@switchboard/core/platforms"
import { type ErrorTable, problem } from "./ProblemFailure.js"

export const attachmentsErrors: ErrorTable<AttachmentError> = {
  AttachmentNotFound: (e) => problem("ATTACHMENT_NOT_FOUND", `No attachment ${e.attachmentId} in this project.`),
  AttachmentNotReady: (e) =>
    problem("ATTACHMENT_NOT_READY", `Attachment ${e.attachmentId} is still being processed; retry shortly.`, {
      headers: { "retry-after": "5" }
    }),
  AttachmentTooLarge: (e) => problem("PAYLOAD_TOO_LARGE", `The file exceeds ${e.maxBytes} bytes.`),
  InvalidAttachmentRequest: (e) => problem("INVALID_ATTACHMENT_REQUEST", `The upload is not valid: ${e.message}.`)
}
