/** Attachments' memory repository: the table `"attachments"` (bytes are in the memory `BlobStore`). */
import { type AttachmentRecord, AttachmentsRepo } from "@switchboard/core/platforms"
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

export const ATTACHMENTS_TABLE = "attachments"

export const AttachmentsMemory: Layer.Layer<AttachmentsRepo, never, MemoryState> = Layer.effect(
  AttachmentsRepo,
  Effect.gen(function*() {
    const rows = (yield* MemoryState).table<string, AttachmentRecord>(ATTACHMENTS_TABLE)
    return AttachmentsRepo.of({
      insert: (r) => Effect.sync(() => void rows.set(r.attachmentId, r)),
      find: (projectId, attachmentId) =>
        Effect.sync(() => Option.filter(Option.fromNullishOr(rows.get(attachmentId)), (r) => r.projectId === projectId)),
      markReady: ({ attachmentId, blobKey, now, size }) =>
        Effect.sync(() => {
          const r = rows.get(attachmentId)
          if (r === undefined || r.state !== "processing") return Option.none()
          const ready: AttachmentRecord = { ...r, state: "ready", blobKey, size, updatedAt: now }
          rows.set(attachmentId, ready)
          return Option.some(ready)
        }),
      list: ({ after, createdBefore, createdSince, limit, order, orderBy, projectId, updatedBefore, updatedSince }) =>
        Effect.sync(() => {
          const key = (r: AttachmentRecord) => (orderBy === "createdAt" ? r.createdAt : r.updatedAt).epochMilliseconds
          const sign = order === "asc" ? 1 : -1
          const compare = (t: number, id: string, u: number, uid: string) => sign * (t - u || (id < uid ? -1 : id > uid ? 1 : 0))
          return [...rows.values()]
            .filter((r) =>
              r.projectId === projectId &&
              (createdSince === undefined || DateTime.toEpochMillis(r.createdAt) >= createdSince) &&
              (createdBefore === undefined || DateTime.toEpochMillis(r.createdAt) < createdBefore) &&
              (updatedSince === undefined || DateTime.toEpochMillis(r.updatedAt) >= updatedSince) &&
              (updatedBefore === undefined || DateTime.toEpochMillis(r.updatedAt) < updatedBefore) &&
              (after === undefined || compare(key(r), r.attachmentId, after.t, after.id) > 0)
            )
            .sort((a, b) => compare(key(a), a.attachmentId, key(b), b.attachmentId))
            .slice(0, limit)
        })
    })
  })
)
