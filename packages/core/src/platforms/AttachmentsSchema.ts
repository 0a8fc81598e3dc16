/**
 * Attachments on the /v1 API (docs/provisioning.md): the wire shapes, the list query, the
 * record core keeps, and what a file is by its bytes.
 *
 * An attachment is `ready` once its bytes are stored and downloadable; an attachment a host records
 * before its bytes arrive (inbound media fetched from a platform) is `processing` until then.
 */
import { DateTime, Schema } from "effect"
import { sniffImageType } from "../uploads/UploadImage.js"
import { Timestamp, TimestampMillis } from "../shared/Timestamp.js"
import { NumberFromString } from "../internal/NumberFromString.js"

export const AttachmentState = Schema.Literals(["processing", "ready"]).annotate({ identifier: "AttachmentState" })
export type AttachmentState = typeof AttachmentState.Type

export const Attachment = Schema.Struct({
  id: Schema.String,
  projectId: Schema.String,
  contentType: Schema.String,
  size: Schema.Int.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(0))),
  state: AttachmentState,
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotate({ identifier: "Attachment" })
export type Attachment = typeof Attachment.Type

export const AttachmentPage = Schema.Struct({
  items: Schema.Array(Attachment),
  nextPageToken: Schema.optional(Schema.String)
}).annotate({ identifier: "AttachmentPage" })

/** A time in a query: a timestamp like every other a request carries (UTC with `Z`, no offset). */
const QueryTime = TimestampMillis

export const ListAttachmentsQuery = Schema.Struct({
  createdBefore: Schema.optional(QueryTime),
  createdSince: Schema.optional(QueryTime),
  updatedBefore: Schema.optional(QueryTime),
  updatedSince: Schema.optional(QueryTime),
  order: Schema.optional(Schema.Literals(["asc", "desc"])),
  orderBy: Schema.optional(Schema.Literals(["createdAt", "updatedAt"])),
  pageSize: Schema.optional(
    NumberFromString.pipe(Schema.decodeTo(Schema.Int), Schema.check(Schema.isBetween({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })))
  ),
  pageToken: Schema.optional(
    Schema.String.pipe(
      Schema.check(Schema.isMinLength(1)),
      Schema.check(Schema.isMaxLength(4096)),
      Schema.check(Schema.isPattern(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/u, { message: "must be a page token from a previous page" }))
    )
  )
})
export type ListAttachmentsQuery = typeof ListAttachmentsQuery.Type

export interface AttachmentRecord {
  readonly attachmentId: string
  readonly projectId: string
  readonly contentType: string
  readonly size: number
  readonly state: AttachmentState
  /** The stored bytes (set once `ready`). */
  readonly blobKey: string | null
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

export const attachmentView = (r: AttachmentRecord): Attachment => ({
  id: r.attachmentId,
  projectId: r.projectId,
  contentType: r.contentType,
  size: r.size,
  state: r.state,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt
})

/** A media type as the contract allows it (no parameters). */
export const isAttachmentContentType = (s: string): boolean => /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/.test(s) && s.length <= 255

const startsWith = (bytes: Uint8Array, prefix: ReadonlyArray<number>, at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b)
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0))

/** What the bytes are, by their magic number (images as the uploads feature knows them, and common media). */
export const sniffAttachmentType = (bytes: Uint8Array): string | undefined => {
  const image = sniffImageType(bytes)
  if (image !== undefined) return image
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif"
  if (startsWith(bytes, ascii("%PDF-"))) return "application/pdf"
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WAVE"), 8)) return "audio/wav"
  if (startsWith(bytes, ascii("OggS"))) return "audio/ogg"
  if (startsWith(bytes, ascii("ID3"))) return "audio/mpeg"
  if (startsWith(bytes, ascii("ftyp"), 4)) {
    const brand = String.fromCharCode(...bytes.slice(8, 12))
    if (brand.startsWith("heic") || brand.startsWith("heix") || brand === "mif1") return "image/heic"
    if (brand === "M4A " || brand === "M4B ") return "audio/mp4"
    if (brand === "qt  ") return "video/quicktime"
    return "video/mp4"
  }
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return "application/zip"
  return undefined
}

/** Types the sniffer recognises: a file declared as one of them must be one. */
export const sniffableTypes: ReadonlySet<string> = new Set([
  "image/jpeg", "image/png", "image/webp", "image/gif", "application/pdf", "audio/wav", "audio/ogg", "audio/mpeg", "image/heic",
  "audio/mp4", "video/quicktime", "video/mp4", "application/zip"
])

/**
 * The stored content type of an upload: what the bytes are when the sniffer knows them; otherwise
 * the declared type, unless it names a type the bytes would have shown (then the declaration is
 * false: undefined).
 */
export const attachmentContentType = (declared: string, bytes: Uint8Array): string | undefined => {
  const sniffed = sniffAttachmentType(bytes)
  if (sniffed !== undefined) return sniffed
  return sniffableTypes.has(declared.toLowerCase()) ? undefined : declared.toLowerCase()
}
