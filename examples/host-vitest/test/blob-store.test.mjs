// A host's own adapter of a core port — a BlobStore over a Map — checked by the testkit's
// contract suite, exactly as the repository checks its memory and filesystem stores.
import { BlobStore, isBlobContentType, isSafeBlobKey } from "@switchboard/core/uploads"
import { blobStoreContract } from "@switchboard/testkit/vitest"
import { Effect, Layer, Option } from "effect"

const MapBlobStore = () =>
  Layer.sync(BlobStore, () => {
    const blobs = new Map()
    return {
      put: (key, bytes, contentType) =>
        !isSafeBlobKey(key)
          ? Effect.die(new Error(`BlobStore.put: unsafe key ${JSON.stringify(key)}`))
          : !isBlobContentType(contentType)
          ? Effect.die(new Error(`BlobStore.put: not a media type: ${JSON.stringify(contentType)}`))
          : Effect.sync(() => void blobs.set(key, { bytes: Uint8Array.from(bytes), contentType })),
      get: (key) => Effect.sync(() => {
        const blob = isSafeBlobKey(key) ? blobs.get(key) : undefined
        return blob === undefined ? Option.none() : Option.some({ bytes: Uint8Array.from(blob.bytes), contentType: blob.contentType })
      }),
      delete: (key) => Effect.sync(() => void blobs.delete(key))
    }
  })

blobStoreContract("host map", MapBlobStore)
