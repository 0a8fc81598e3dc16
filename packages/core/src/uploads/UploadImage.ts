/**
 * What an uploaded file is, by its magic number (docs/api-notes/accounts-and-projects.md: JPEG,
 * PNG, WebP). Pure; the declared content type of a ticket must match what the bytes say.
 */
import type { ImageContentType } from "../accounts/Schema.js"

const startsWith = (bytes: Uint8Array, prefix: ReadonlyArray<number>, at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b)

const JPEG = [0xff, 0xd8, 0xff]
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const RIFF = [0x52, 0x49, 0x46, 0x46] // "RIFF"
const WEBP = [0x57, 0x45, 0x42, 0x50] // "WEBP", after the 4-byte RIFF size

/** The image type the bytes start with, if one of the accepted three. */
export const sniffImageType = (bytes: Uint8Array): ImageContentType | undefined => {
  if (startsWith(bytes, JPEG)) return "image/jpeg"
  if (startsWith(bytes, PNG)) return "image/png"
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return "image/webp"
  return undefined
}

/** The file name extension a stored image gets (served files keep a recognisable name). */
export const imageExtension: Record<ImageContentType, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/webp": "webp"
}
