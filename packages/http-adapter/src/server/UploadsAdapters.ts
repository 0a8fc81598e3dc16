/**
 * The Uploads feature's adapters in the standalone server: files on disk under `DATA_DIR/blobs`,
 * and the public base URL (`API_URL`) the upload targets and served files are reached at.
 */
import { BlobStore, isBlobContentType, isSafeBlobKey, UploadSettings } from "@switchboard/core/uploads"
import { Effect, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises"
import { join } from "node:path"
import type { ServerConfigShape } from "../http/ServerConfig.js"

// A blob file is a one-line header — format tag and content type — then the bytes, so the type and
// the bytes are replaced together by one rename.
const MAGIC = "sb-blob-v1 "
const encoder = new TextEncoder()

const isMissing = (e: unknown) => typeof e === "object" && e !== null && (e as { code?: unknown }).code === "ENOENT"

/**
 * A `BlobStore` of files in `root` (created on first write). Only safe keys reach the filesystem —
 * plain names, no separators, no leading dot — so no key can name a path outside `root`. A write
 * goes to a temporary file (dot-named, so never a key), is flushed, and is renamed into place.
 */
export const BlobStoreFilesystem = (root: string): Layer.Layer<BlobStore> =>
  Layer.succeed(BlobStore, BlobStore.of({
    put: (key, bytes, contentType) =>
      Effect.suspend(() => {
        if (!isSafeBlobKey(key)) return Effect.die(new Error(`unsafe blob key ${JSON.stringify(key)}`))
        if (!isBlobContentType(contentType)) return Effect.die(new Error(`bad blob content type ${JSON.stringify(contentType)}`))
        return Effect.promise(async () => {
          await mkdir(root, { recursive: true })
          const temp = join(root, `.tmp-${key}-${randomBytes(8).toString("hex")}`)
          try {
            const file = await open(temp, "wx", 0o600)
            try {
              await file.write(encoder.encode(`${MAGIC}${contentType}\n`))
              await file.write(bytes)
              await file.sync()
            } finally {
              await file.close()
            }
            await rename(temp, join(root, key))
          } catch (e) {
            await unlink(temp).catch(() => undefined)
            throw e
          }
        })
      }),
    get: (key) =>
      !isSafeBlobKey(key)
        ? Effect.succeed(Option.none())
        : Effect.promise(async () => {
          let data: Buffer
          try {
            data = await readFile(join(root, key))
          } catch (e) {
            if (isMissing(e)) return Option.none()
            throw e
          }
          const newline = data.indexOf(0x0a)
          const header = newline < 0 ? "" : data.subarray(0, newline).toString("utf8")
          if (!header.startsWith(MAGIC)) throw new Error(`blob ${key} has no header`)
          return Option.some({
            contentType: header.slice(MAGIC.length),
            bytes: new Uint8Array(data.buffer, data.byteOffset + newline + 1, data.length - newline - 1)
          })
        }),
    delete: (key) =>
      !isSafeBlobKey(key)
        ? Effect.void
        : Effect.promise(() => unlink(join(root, key)).catch((e) => (isMissing(e) ? undefined : Promise.reject(e))))
  }))

export const UploadsServerAdapters = (config: ServerConfigShape) =>
  Layer.mergeAll(
    BlobStoreFilesystem(join(config.dataDir, "blobs")),
    Layer.succeed(UploadSettings, { ...UploadSettings.defaultValue(), publicBaseUrl: config.apiUrl })
  )
