/**
 * The Uploads feature's memory layers: upload tickets and account pictures as tables of the shared
 * `MemoryState` (so transactions roll them back), and a memory `BlobStore`. Blobs live outside the
 * transactional tables on purpose, as files do: a rolled-back transaction does not unwrite them.
 */
import { type AccountRecord } from "@switchboard/core/accounts"
import {
  AccountPictureRepo,
  BlobStore,
  isBlobContentType,
  isSafeBlobKey,
  type StoredBlob,
  type UploadTicketRecord,
  UploadTicketsRepo
} from "@switchboard/core/uploads"
import { Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

/** A `BlobStore` in memory, with the same key rules as the filesystem one. Each build is empty. */
export const BlobStoreMemory: Layer.Layer<BlobStore> = Layer.sync(BlobStore, () => {
  const blobs = new Map<string, StoredBlob>()
  return BlobStore.of({
    put: (key, bytes, contentType) =>
      Effect.suspend(() => {
        if (!isSafeBlobKey(key)) return Effect.die(new Error(`unsafe blob key ${JSON.stringify(key)}`))
        if (!isBlobContentType(contentType)) return Effect.die(new Error(`bad blob content type ${JSON.stringify(contentType)}`))
        blobs.set(key, { bytes: bytes.slice(), contentType })
        return Effect.void
      }),
    get: (key) =>
      Effect.sync(() => {
        const blob = isSafeBlobKey(key) ? blobs.get(key) : undefined
        return blob === undefined ? Option.none() : Option.some({ bytes: blob.bytes.slice(), contentType: blob.contentType })
      }),
    delete: (key) => Effect.sync(() => void blobs.delete(key))
  })
})

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const tickets = state.table<string, UploadTicketRecord>("upload_tickets")
  // The identity slice's accounts table (AccountsMemory.ts): the same Map, so pictures are the accounts' own.
  const accounts = state.table<string, AccountRecord>("accounts")

  /** Moves a ticket `from` one state to the next, once; none otherwise. */
  const transition = (uploadId: string, from: UploadTicketRecord["state"], change: Partial<UploadTicketRecord>) =>
    Effect.sync(() => {
      const ticket = tickets.get(uploadId)
      if (ticket === undefined || ticket.state !== from) return Option.none<UploadTicketRecord>()
      const next = { ...ticket, ...change }
      tickets.set(uploadId, next)
      return Option.some(next)
    })

  const ticketsRepo = UploadTicketsRepo.of({
    insert: (ticket) => Effect.sync(() => void tickets.set(ticket.uploadId, ticket)),
    findById: (uploadId) => Effect.sync(() => Option.fromNullishOr(tickets.get(uploadId))),
    markReceived: ({ blobKey, byteSize, now, uploadId }) =>
      transition(uploadId, "pending", { state: "received", blobKey, byteSize, receivedAt: now }),
    markCommitted: ({ now, uploadId }) => transition(uploadId, "received", { state: "committed", committedAt: now })
  })

  const picturesRepo = AccountPictureRepo.of({
    setPicture: ({ accountId, now, pictureUrl }) =>
      Effect.sync(() => {
        const account = accounts.get(accountId)
        if (account === undefined) return Option.none()
        accounts.set(accountId, { ...account, pictureUrl, updatedAt: now })
        return Option.some({ previous: account.pictureUrl })
      })
  })

  return Layer.mergeAll(Layer.succeed(UploadTicketsRepo, ticketsRepo), Layer.succeed(AccountPictureRepo, picturesRepo))
})

/** Upload tickets and account pictures over the shared memory state, plus a memory blob store. */
export const UploadsMemory: Layer.Layer<UploadTicketsRepo | AccountPictureRepo | BlobStore, never, MemoryState> =
  Layer.merge(Layer.unwrap(make), BlobStoreMemory)
