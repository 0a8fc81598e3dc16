/**
 * The form fields of an upload ticket (docs/api-notes/accounts-and-projects.md "Uploads"): the
 * ticket's terms — upload id, owner, purpose, declared content type, size limit, expiry — and an
 * HMAC over them under the server secret (`mac("upload", …)`). The upload target needs no bearer: a
 * form that verifies is the authority to upload that one file, until it expires.
 */
import { DateTime, Effect, Result, Schema } from "effect"
import { base64url, constantTimeEqual } from "../internal/Crypto.js"
import { UploadId } from "../shared/Identifiers.js"
import { mac } from "../shared/ServerSecret.js"
import { formatTimestamp, parseTimestamp } from "../shared/Timestamp.js"
import { UploadFormInvalid, UploadSignatureInvalid } from "./UploadErrors.js"
import type { UploadPurpose, UploadTicketRecord } from "./UploadPorts.js"
import { ImageContentType } from "../accounts/Schema.js"

/** The fields a ticket's form carries, in the order they are signed; `signature` last. */
export const uploadFormFieldNames = [
  "uploadId", "owner", "purpose", "contentType", "maxBytes", "expiresAt", "signature"
] as const
export type UploadFormFieldName = (typeof uploadFormFieldNames)[number]

/** What a verified form says. */
export interface VerifiedUploadForm {
  readonly uploadId: UploadId
  readonly owner: string
  readonly purpose: UploadPurpose
  readonly contentType: ImageContentType
  readonly maxBytes: number
  readonly expiresAt: DateTime.Utc
}

const MAX_FIELD_LENGTH = 512

/** The signed message: a JSON array, so no choice of field values can shift one into another. */
const signingInput = (f: Readonly<Record<Exclude<UploadFormFieldName, "signature">, string>>) =>
  JSON.stringify(["sb-upload-v1", f.uploadId, f.owner, f.purpose, f.contentType, f.maxBytes, f.expiresAt])

const sign = (f: Readonly<Record<Exclude<UploadFormFieldName, "signature">, string>>) =>
  Effect.map(mac("upload", signingInput(f)), base64url)

/** The form fields of a ticket, signed. */
export const uploadFormOf = (ticket: UploadTicketRecord) =>
  Effect.gen(function*() {
    const unsigned = {
      uploadId: ticket.uploadId,
      owner: ticket.owner,
      purpose: ticket.purpose,
      contentType: ticket.contentType,
      maxBytes: String(ticket.maxBytes),
      expiresAt: formatTimestamp(ticket.expiresAt)
    }
    return { ...unsigned, signature: yield* sign(unsigned) } satisfies Record<UploadFormFieldName, string>
  })

/**
 * Checks a submitted form: every field present (else `UploadFormInvalid`, naming it), then the
 * signature over the fields exactly as sent (else `UploadSignatureInvalid`). Expiry and the
 * ticket's state are the caller's to check.
 */
export const verifyUploadForm = (fields: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    for (const name of uploadFormFieldNames) {
      const value = fields[name]
      if (value === undefined || value === "") {
        return yield* new UploadFormInvalid({ field: name, message: "is required" })
      }
      if (value.length > MAX_FIELD_LENGTH) {
        return yield* new UploadFormInvalid({ field: name, message: `must be at most ${MAX_FIELD_LENGTH} characters` })
      }
    }
    const f = fields as Readonly<Record<UploadFormFieldName, string>>
    const expected = yield* sign(f)
    if (!constantTimeEqual(expected, f.signature)) {
      return yield* new UploadSignatureInvalid({ message: "the signature does not match the form's fields" })
    }
    // Signed by this server, so these decode; a failure means a leaked secret, refused all the same.
    const uploadId = Schema.decodeUnknownResult(UploadId)(f.uploadId)
    const contentType = Schema.decodeUnknownResult(ImageContentType)(f.contentType)
    const expiresAt = parseTimestamp(f.expiresAt)
    const purposeOk = f.purpose === "profile_picture" || f.purpose.startsWith("agent_avatar:")
    if (
      Result.isFailure(uploadId) || Result.isFailure(contentType) || Result.isFailure(expiresAt) || !purposeOk ||
      !/^[1-9]\d{0,9}$/.test(f.maxBytes)
    ) {
      return yield* new UploadSignatureInvalid({ message: "a signed field is malformed" })
    }
    return {
      uploadId: uploadId.success,
      owner: f.owner,
      purpose: f.purpose as UploadPurpose,
      contentType: contentType.success,
      maxBytes: Number(f.maxBytes),
      expiresAt: DateTime.makeUnsafe(expiresAt.success) as DateTime.Utc
    } satisfies VerifiedUploadForm
  })
