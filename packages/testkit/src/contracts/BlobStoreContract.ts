/**
 * The `BlobStore` contract: what every blob store (memory here, the filesystem one of the standalone
 * server, a host's own) must do. Call it from a test file with a layer giving a fresh, empty store.
 */
import { layer } from "@effect/vitest"
import { BlobStore } from "@switchboard/core/uploads"
import { Effect, Exit, Layer, Option } from "effect"
import { expect } from "vitest"

let counter = 0
const key = (ext = "png") => `sb_upl_${Date.now().toString(36)}${++counter}_${Math.random().toString(36).slice(2, 10)}.${ext}`
const bytesOf = (...values: Array<number>) => Uint8Array.from(values)
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i])

export const blobStoreContract = <E>(name: string, makeLayer: () => Layer.Layer<BlobStore, E>) =>
  layer(makeLayer(), { excludeTestServices: true, timeout: "60 seconds" })(`${name}: blob store contract`, (it) => {
    it.effect("put then get returns the same bytes and content type; a missing key is none", () =>
      Effect.gen(function*() {
        const blobs = yield* BlobStore
        const k = key()
        const bytes = bytesOf(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255)
        yield* blobs.put(k, bytes, "image/png")
        const got = Option.getOrThrow(yield* blobs.get(k))
        expect(got.contentType).toBe("image/png")
        expect([...got.bytes]).toEqual([...bytes])
        expect(Option.isNone(yield* blobs.get(key()))).toBe(true)
      }))

    it.effect("an empty blob and a 5 MiB blob round-trip", () =>
      Effect.gen(function*() {
        const blobs = yield* BlobStore
        const empty = key("bin")
        yield* blobs.put(empty, new Uint8Array(0), "application/octet-stream")
        expect(Option.getOrThrow(yield* blobs.get(empty)).bytes.length).toBe(0)
        const big = new Uint8Array(5 * 1024 * 1024).map((_, i) => (i * 31) & 0xff)
        const k = key("jpg")
        yield* blobs.put(k, big, "image/jpeg")
        const got = Option.getOrThrow(yield* blobs.get(k))
        expect(got.bytes.length).toBe(big.length)
        expect(sameBytes(got.bytes, big)).toBe(true)
      }))

    it.effect("put replaces a blob whole; delete removes it and is fine when absent", () =>
      Effect.gen(function*() {
        const blobs = yield* BlobStore
        const k = key()
        yield* blobs.put(k, bytesOf(1, 2, 3), "image/png")
        yield* blobs.put(k, bytesOf(9), "image/webp")
        const got = Option.getOrThrow(yield* blobs.get(k))
        expect([...got.bytes]).toEqual([9])
        expect(got.contentType).toBe("image/webp")
        yield* blobs.delete(k)
        expect(Option.isNone(yield* blobs.get(k))).toBe(true)
        yield* blobs.delete(k)
      }))

    it.effect("the stored bytes are not the caller's array: changing it afterwards changes nothing", () =>
      Effect.gen(function*() {
        const blobs = yield* BlobStore
        const k = key()
        const bytes = bytesOf(1, 2, 3)
        yield* blobs.put(k, bytes, "image/png")
        bytes[0] = 42
        const first = Option.getOrThrow(yield* blobs.get(k))
        first.bytes[1] = 42
        expect([...Option.getOrThrow(yield* blobs.get(k)).bytes]).toEqual([1, 2, 3])
      }))

    it.effect("unsafe keys: put is a defect, get is none, delete does nothing", () =>
      Effect.gen(function*() {
        const blobs = yield* BlobStore
        for (const bad of ["../escape", "a/b", "a\\b", ".hidden", "..", "", "x".repeat(201), "nul\u0000byte", "sp ace"]) {
          const put = yield* Effect.exit(blobs.put(bad, bytesOf(1), "image/png"))
          expect(Exit.isFailure(put) && put.cause.reasons.map((r) => r._tag)).toEqual(["Die"])
          expect(Option.isNone(yield* blobs.get(bad))).toBe(true)
          yield* blobs.delete(bad)
        }
        const badType = yield* Effect.exit(blobs.put(key(), bytesOf(1), "image/png\nx-evil: 1"))
        expect(Exit.isFailure(badType)).toBe(true)
      }))

    it.effect("concurrent puts of one key leave one whole blob, never a mix", () =>
      Effect.gen(function*() {
        const blobs = yield* BlobStore
        const k = key()
        const versions = Array.from({ length: 6 }, (_, v) => new Uint8Array(256 * 1024).fill(v))
        yield* Effect.all(versions.map((b) => blobs.put(k, b, "image/png")), { concurrency: "unbounded" })
        const got = Option.getOrThrow(yield* blobs.get(k))
        expect(got.bytes.length).toBe(256 * 1024)
        expect(new Set(got.bytes).size).toBe(1)
      }))
  })
