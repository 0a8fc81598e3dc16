/** Attachments' store (docs/provisioning.md). The bytes live in the uploads feature's `BlobStore`. */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { AttachmentRecord } from "./AttachmentsSchema.js"

/** Where a page ends: the sort key's time (creation or update) and the id. */
export interface AttachmentPosition {
  readonly t: number
  readonly id: string
}

export class AttachmentsRepo extends Context.Service<AttachmentsRepo, {
  readonly insert: (r: AttachmentRecord) => Effect.Effect<void>
  readonly find: (projectId: string, attachmentId: string) => Effect.Effect<Option.Option<AttachmentRecord>>
  /** `processing` → `ready` with its stored bytes, once: none when unknown or not processing. */
  readonly markReady: (args: {
    readonly attachmentId: string
    readonly blobKey: string
    readonly size: number
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<AttachmentRecord>>
  /**
   * A project's attachments ordered by `orderBy` (then id), ascending or descending, after
   * `after` in that order, within the time bounds (`since` inclusive, `before` exclusive; epoch ms).
   */
  readonly list: (args: {
    readonly projectId: string
    readonly orderBy: "createdAt" | "updatedAt"
    readonly order: "asc" | "desc"
    readonly createdSince?: number | undefined
    readonly createdBefore?: number | undefined
    readonly updatedSince?: number | undefined
    readonly updatedBefore?: number | undefined
    readonly after?: AttachmentPosition | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<AttachmentRecord>>
}>()("core/AttachmentsRepo") {}
