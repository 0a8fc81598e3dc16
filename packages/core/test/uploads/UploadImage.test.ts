import { describe, expect, it } from "@effect/vitest"
import { type ImageContentType } from "@switchboard/core/accounts"
import { imageExtension, sniffImageType } from "@switchboard/core/uploads"
import * as fc from "fast-check"

const JPEG = [0xff, 0xd8, 0xff]
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const RIFF = [0x52, 0x49, 0x46, 0x46]
const WEBP = [0x57, 0x45, 0x42, 0x50]

/** Each type with a maker of an image of it: its signature around arbitrary bytes. */
const signatures: ReadonlyArray<readonly [ImageContentType, (rest: Uint8Array) => Uint8Array]> = [
  ["image/jpeg", (rest) => Uint8Array.from([...JPEG, ...rest])],
  ["image/png", (rest) => Uint8Array.from([...PNG, ...rest])],
  // RIFF, a 4-byte little-endian size (any value: taken from `rest`), WEBP.
  ["image/webp", (rest) => Uint8Array.from([...RIFF, ...rest.slice(0, 4), ...WEBP, ...rest.slice(4)])]
]
const bytes = (...b: Array<number>) => Uint8Array.from(b)
const ascii = (s: string) => new TextEncoder().encode(s)

describe("sniffImageType", () => {
  it.each([
    ["a JPEG (JFIF)", bytes(0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46), "image/jpeg"],
    ["a JPEG (Exif)", bytes(0xff, 0xd8, 0xff, 0xe1), "image/jpeg"],
    ["a bare JPEG signature", bytes(0xff, 0xd8, 0xff), "image/jpeg"],
    ["a PNG", bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d), "image/png"],
    ["a WebP", Uint8Array.from([...ascii("RIFF"), 0x24, 0, 0, 0, ...ascii("WEBPVP8 ")]), "image/webp"],
    ["nothing", bytes(), undefined],
    ["a JPEG cut short", bytes(0xff, 0xd8), undefined],
    ["a PNG cut short", bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a), undefined],
    ["a PNG with a wrong byte", bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0b), undefined],
    ["a RIFF that is a WAV", Uint8Array.from([...ascii("RIFF"), 0, 0, 0, 0, ...ascii("WAVE")]), undefined],
    ["WEBP at the wrong offset", Uint8Array.from([...ascii("RIFF"), ...ascii("WEBP"), 0, 0, 0, 0]), undefined],
    ["a RIFF header alone", ascii("RIFF\0\0\0\0"), undefined],
    ["a GIF", ascii("GIF89a"), undefined],
    ["an SVG", ascii("<svg xmlns='http://www.w3.org/2000/svg'/>"), undefined],
    ["text", ascii("hello"), undefined]
  ] as const)("%s → %s", (_, input, expected) => {
    expect(sniffImageType(input)).toBe(expected)
  })

  it("any bytes after a type's signature are that type", () => {
    fc.assert(fc.property(fc.constantFrom(...signatures), fc.uint8Array({ minLength: 4, maxLength: 256 }), ([type, make], rest) => {
      expect(sniffImageType(make(rest))).toBe(type)
    }))
  })

  it("a detected type is sound: the bytes really carry its signature", () => {
    fc.assert(fc.property(fc.oneof(
      fc.uint8Array({ maxLength: 64 }),
      fc.tuple(fc.constantFrom(...signatures), fc.uint8Array({ minLength: 4, maxLength: 32 }), fc.nat(40), fc.nat(255))
        .map(([[, make], rest, i, b]) => make(rest).map((x, j) => (j === i ? b : x)))
    ), (input) => {
      const at = (from: number, n: number) => [...input.slice(from, from + n)]
      const detected = sniffImageType(input)
      if (detected === "image/jpeg") expect(at(0, 3)).toEqual(JPEG)
      else if (detected === "image/png") expect(at(0, 8)).toEqual(PNG)
      else if (detected === "image/webp") expect([...at(0, 4), ...at(8, 4)]).toEqual([...RIFF, ...WEBP])
      else expect(at(0, 3)).not.toEqual(JPEG)
    }))
  })

  it("one changed byte in a signature breaks it", () => {
    fc.assert(fc.property(fc.constantFrom(...signatures), fc.nat(), fc.integer({ min: 1, max: 255 }), ([type, make], at, delta) => {
      const image = make(new Uint8Array(8))
      const signed = type === "image/webp" ? [0, 1, 2, 3, 8, 9, 10, 11] : type === "image/png" ? [0, 1, 2, 3, 4, 5, 6, 7] : [0, 1, 2]
      const i = signed[at % signed.length]!
      image[i] = (image[i]! + delta) % 256
      expect(sniffImageType(image)).not.toBe(type)
    }))
  })

  it("gives each type its file extension", () => {
    expect(imageExtension).toEqual({ "image/jpeg": "jpg", "image/png": "png", "image/webp": "webp" })
  })
})
