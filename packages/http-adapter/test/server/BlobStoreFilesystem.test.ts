import { BlobStore } from "@switchboard/core/uploads"
import { BlobStoreFilesystem } from "../../src/server/UploadsAdapters.js"
import { blobStoreContract } from "@switchboard/testkit/vitest"
import { Effect, Exit } from "effect"
import { mkdtempSync } from "node:fs"
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const base = mkdtempSync(join(tmpdir(), "sb-blobs-"))
afterAll(() => rm(base, { recursive: true, force: true }))

// The filesystem store (the standalone server's, under DATA_DIR/blobs) passes the same contract.
blobStoreContract("filesystem", () => BlobStoreFilesystem(join(base, "contract", "blobs")))

describe("BlobStoreFilesystem on disk", () => {
  const root = join(base, "disk", "blobs")
  const run = <A, E>(effect: Effect.Effect<A, E, BlobStore>) => Effect.runPromiseExit(Effect.provide(effect, BlobStoreFilesystem(root)))

  it("creates its directory on first write and leaves no temporary files behind", async () => {
    await run(Effect.flatMap(BlobStore, (b) => b.put("a.png", Uint8Array.from([1, 2, 3]), "image/png")))
    expect(await readdir(root)).toEqual(["a.png"])
    // One file: a header line with the content type, then the bytes.
    const raw = await readFile(join(root, "a.png"))
    expect(raw.subarray(0, raw.indexOf(0x0a)).toString()).toBe("sb-blob-v1 image/png")
    expect([...raw.subarray(raw.indexOf(0x0a) + 1)]).toEqual([1, 2, 3])
  })

  it("never reaches outside its directory, whatever the key", async () => {
    await mkdir(join(base, "disk"), { recursive: true })
    await writeFile(join(base, "disk", "secret.txt"), "keep out")
    for (const key of ["../secret.txt", "..", "../../etc/passwd", "/etc/passwd", "sub/../../secret.txt"]) {
      const put = await run(Effect.flatMap(BlobStore, (b) => b.put(key, Uint8Array.from([0]), "image/png")))
      expect(Exit.isFailure(put)).toBe(true)
      const got = await run(Effect.flatMap(BlobStore, (b) => b.get(key)))
      expect(Exit.isSuccess(got) && got.value._tag).toBe("None")
      await run(Effect.flatMap(BlobStore, (b) => b.delete(key)))
    }
    expect(await readFile(join(base, "disk", "secret.txt"), "utf8")).toBe("keep out")
    expect((await readdir(join(base, "disk"))).sort()).toEqual(["blobs", "secret.txt"])
  })
})
