/**
 * Switchboard's mark: two lines switched onto one, white on the console's indigo. The same drawing
 * is the inline SVG of the console's top bar, the SVG icon (`/favicon.svg`) and the 32×32 icon
 * browsers ask for at `/favicon.ico` (an ICO holding one PNG, drawn here from the same shapes, so
 * nothing is read from disk or fetched from elsewhere).
 */
import { deflateSync } from "node:zlib"

/** The mark's colours: the console's accent and white. */
const ACCENT = [0x4f, 0x46, 0xe5] as const

const markShapes = `<rect width="32" height="32" rx="7" fill="#4f46e5"/>` +
  `<path d="M10 11L22 16M10 21L22 16" stroke="#fff" stroke-width="2.4" stroke-linecap="round"/>` +
  `<circle cx="10" cy="11" r="3.2" fill="#fff"/><circle cx="10" cy="21" r="3.2" fill="#fff"/><circle cx="22" cy="16" r="3.6" fill="#fff"/>`

/** The mark inline in a page (decorative: the name beside it says what it is). */
export const logoMark = (size = 28) =>
  `<svg class="mark" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="${size}" height="${size}" aria-hidden="true" focusable="false">${markShapes}</svg>`

/** `/favicon.svg`. */
export const faviconSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32">${markShapes}</svg>`

// --- The same mark as pixels -------------------------------------------------------------------

const clamp01 = (x: number) => (x < 0 ? 0 : x > 1 ? 1 : x)

/** Distance from (px, py) to the segment (ax, ay)–(bx, by). */
const segmentDistance = (px: number, py: number, ax: number, ay: number, bx: number, by: number) => {
  const dx = bx - ax
  const dy = by - ay
  const t = clamp01(((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy))
  return Math.hypot(px - ax - t * dx, py - ay - t * dy)
}

/** Signed distance to a rounded square of side 32 and corner radius r (negative inside). */
const roundedSquare = (px: number, py: number, r: number) => {
  const qx = Math.abs(px - 16) - (16 - r)
  const qy = Math.abs(py - 16) - (16 - r)
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r
}

/** RGBA pixels of the mark at 32×32, antialiased by coverage of each pixel's centre. */
const markPixels = (): Uint8Array => {
  const out = new Uint8Array(32 * 32 * 4)
  for (let y = 0; y < 32; y++) {
    for (let x = 0; x < 32; x++) {
      const px = x + 0.5
      const py = y + 0.5
      const alpha = clamp01(0.5 - roundedSquare(px, py, 7))
      const white = Math.max(
        clamp01(0.5 + 1.2 - segmentDistance(px, py, 10, 11, 22, 16)),
        clamp01(0.5 + 1.2 - segmentDistance(px, py, 10, 21, 22, 16)),
        clamp01(0.5 + 3.2 - Math.hypot(px - 10, py - 11)),
        clamp01(0.5 + 3.2 - Math.hypot(px - 10, py - 21)),
        clamp01(0.5 + 3.6 - Math.hypot(px - 22, py - 16))
      )
      const i = (y * 32 + x) * 4
      for (let c = 0; c < 3; c++) out[i + c] = Math.round(ACCENT[c]! * (1 - white) + 255 * white)
      out[i + 3] = Math.round(alpha * 255)
    }
  }
  return out
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

const crc32 = (bytes: Uint8Array) => {
  let c = 0xffffffff
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

const chunk = (type: string, data: Uint8Array) => {
  const out = Buffer.alloc(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, "ascii")
  Buffer.from(data).copy(out, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}

/** A 32×32 RGBA PNG of the mark. */
export const markPng = (): Buffer => {
  const pixels = markPixels()
  const rows = Buffer.alloc(32 * (1 + 32 * 4))
  for (let y = 0; y < 32; y++) {
    rows[y * 129] = 0 // filter: none
    Buffer.from(pixels.subarray(y * 128, (y + 1) * 128)).copy(rows, y * 129 + 1)
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(32, 0)
  header.writeUInt32BE(32, 4)
  header.set([8, 6, 0, 0, 0], 8) // 8 bits, RGBA, deflate, no filter set, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", new Uint8Array(0))
  ])
}

/** `/favicon.ico`: an ICO file with one 32×32 PNG image. */
export const faviconIco: Uint8Array = (() => {
  const png = markPng()
  const head = Buffer.alloc(22)
  head.writeUInt16LE(0, 0)
  head.writeUInt16LE(1, 2) // an icon
  head.writeUInt16LE(1, 4) // one image
  head.set([32, 32, 0, 0], 6) // 32×32, no palette
  head.writeUInt16LE(1, 10) // planes
  head.writeUInt16LE(32, 12) // bits per pixel
  head.writeUInt32LE(png.length, 14)
  head.writeUInt32LE(22, 18)
  return new Uint8Array(Buffer.concat([head, png]))
})()

/** The icons' headers: a week in caches (they change only with a release). */
export const iconHeaders = { "cache-control": "public, max-age=604800, immutable", "x-content-type-options": "nosniff" }
