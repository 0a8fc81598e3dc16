/**
 * Attachments on the /v1 API (docs/provisioning.md): files a project uploads (to send) or
 * receives (inbound media), with their metadata, a filtered list, and their bytes.
 *
 * - **Upload** takes the file's bytes with its declared type. The size is bounded
 *   (`AttachmentSettings.maxBytes`, 413 beyond; the HTTP adapter stops reading there). The stored
 *   type is what the bytes are when the sniffer knows them (`sniffAttachmentType`); a declaration
 *   the bytes contradict is refused (INVALID_ATTACHMENT_REQUEST). The bytes go to the uploads
 *   feature's `BlobStore` first, then the record is stored `ready`: an upload answers once the file
 *   is downloadable.
 * - **Inbound media** is `processing` until its bytes arrive: recorded by a `received` message fact
 *   whose attachment content names media the project has no attachment for (Messages.ts, with the
 *   id `incomingAttachmentId`), its bytes then delivered by the edge (`deliver`, PUT of the
 *   content); or recorded by a host (`recordIncoming`) and completed by it (`completeIncoming`). A download of a processing attachment waits up to
 *   `readyWaitMs` (10 s) for it, then answers ATTACHMENT_NOT_READY (409, Retry-After 5).
 * - **List** filters by creation and update time, orders by either, ascending or descending, with
 *   a signed cursor bound to the filters.
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import type { Principal } from "../credentials/Access.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { canonicalJson } from "../shared/Idempotency.js"
import { formatTypeId, IdKinds, type ProjectId } from "../shared/Identifiers.js"
import { sha256Bytes } from "../internal/Sha256.js"
import { Ids } from "../shared/Ids.js"
import { createdAtPage } from "../shared/PageToken.js"
import { Transactor } from "../shared/Ports.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { fn } from "../internal/Traced.js"
import { BlobStore } from "../uploads/UploadPorts.js"
import { AttachmentsRepo } from "./AttachmentsPorts.js"
import {
  attachmentContentType,
  type AttachmentRecord,
  attachmentView,
  isAttachmentContentType,
  type ListAttachmentsQuery
} from "./AttachmentsSchema.js"
import {
  AttachmentNotFound,
  AttachmentNotReady,
  AttachmentTooLarge,
  InvalidAttachmentRequest
} from "./AttachmentsErrors.js"
import { InvalidPlatformRequest } from "./PlatformErrors.js"
import { Setting } from "../internal/Settings.js"

export class AttachmentSettings extends Setting<AttachmentSettings>()("core/AttachmentSettings", {
  defaultValue: () => ({
    /** Largest accepted file: 25 MiB. */
    maxBytes: 25 * 1024 * 1024,
    /** How long a download waits for a processing attachment before ATTACHMENT_NOT_READY. */
    readyWaitMs: 10_000,
    /** How often it looks again meanwhile. */
    readyPollMs: 250
  })
}) {}

const DEFAULT_PAGE_SIZE = 50
const MAX_PAGE_SIZE = 200

/**
 * The project's attachment for inbound media the messaging edge names `edgeId` in a `received`
 * fact: derived from the project and that id, so every fact naming the same media names one
 * attachment (docs/provisioning.md#attachments).
 */
export const incomingAttachmentId = (projectId: string, edgeId: string): string =>
  formatTypeId(IdKinds.attachment, sha256Bytes(new TextEncoder().encode(`incoming:${projectId}:${edgeId}`)).slice(0, 16))

/** The `processing` record of inbound media before its bytes arrive, of its declared type and size. */
export const incomingAttachmentRecord = (args: {
  readonly attachmentId: string
  readonly projectId: string
  readonly contentType: string
  readonly size?: number | undefined
  readonly now: DateTime.Utc
}): AttachmentRecord => ({
  attachmentId: args.attachmentId,
  projectId: args.projectId,
  contentType: isAttachmentContentType(args.contentType) ? args.contentType.toLowerCase() : "application/octet-stream",
  size: args.size ?? 0,
  state: "processing",
  blobKey: null,
  createdAt: args.now,
  updatedAt: args.now
})

export class Attachments extends Context.Service<Attachments>()("core/Attachments", {
  make: Effect.gen(function*() {
    const repo = yield* AttachmentsRepo
    const blobs = yield* BlobStore
    const tx = yield* Transactor
    const ids = yield* Ids
    const gate = yield* makeProjectGate
    const serverSecret = yield* ServerSecret

    const blobKeyOf = (attachmentId: string) => `${attachmentId}.bin`

    const own = (projectId: string, attachmentId: string) =>
      Effect.flatMap(repo.find(projectId, attachmentId), Option.match({
        onNone: () => Effect.fail(new AttachmentNotFound({ attachmentId })),
        onSome: Effect.succeed
      }))

    /** Stores the file and answers its ready attachment. */
    const upload = fn("Attachments.upload")(function*(
      projectId: ProjectId,
      principal: Principal,
      file: { readonly declaredType: string; readonly bytes: Uint8Array }
    ) {
      yield* gate.open(projectId, principal, "write")
      const settings = yield* AttachmentSettings
      if (file.bytes.length === 0) return yield* new InvalidAttachmentRequest({ message: "the file is empty" })
      if (file.bytes.length > settings.maxBytes) return yield* new AttachmentTooLarge({ maxBytes: settings.maxBytes })
      const declared = file.declaredType.split(";")[0]!.trim()
      if (!isAttachmentContentType(declared)) {
        return yield* new InvalidAttachmentRequest({ message: `Content-Type ${JSON.stringify(declared)} is not a media type` })
      }
      const contentType = attachmentContentType(declared, file.bytes)
      if (contentType === undefined) {
        return yield* new InvalidAttachmentRequest({ message: `the file's bytes are not ${declared}` })
      }
      const attachmentId = yield* ids.typeId(IdKinds.attachment)
      const blobKey = blobKeyOf(attachmentId)
      yield* blobs.put(blobKey, file.bytes, contentType)
      const now = yield* DateTime.now
      const record: AttachmentRecord = {
        attachmentId, projectId, contentType, size: file.bytes.length, state: "ready", blobKey, createdAt: now, updatedAt: now
      }
      yield* tx.withTransaction(Effect.andThen(gate.open(projectId, principal, "write", { lock: true }), repo.insert(record))).pipe(
        Effect.tapError(() => blobs.delete(blobKey))
      )
      return attachmentView(record)
    })

    /** A host records inbound media before its bytes are fetched (`processing`). */
    const recordIncoming = fn("Attachments.recordIncoming")(function*(projectId: ProjectId, contentType: string) {
      const record = incomingAttachmentRecord({
        attachmentId: yield* ids.typeId(IdKinds.attachment),
        projectId,
        contentType,
        now: yield* DateTime.now
      })
      yield* repo.insert(record)
      return attachmentView(record)
    })

    /** Stores the bytes of a processing attachment, which becomes ready. */
    const completeIncoming = fn("Attachments.completeIncoming")(function*(attachmentId: string, bytes: Uint8Array) {
      const blobKey = blobKeyOf(attachmentId)
      yield* blobs.put(blobKey, bytes, "application/octet-stream")
      const now = yield* DateTime.now
      const done = yield* repo.markReady({ attachmentId, blobKey, size: bytes.length, now })
      return Option.map(done, attachmentView)
    })

    /**
     * The bytes of the project's processing attachment (inbound media a `received` fact named),
     * which becomes ready: 404 if the project has no such attachment, 400 once it has its bytes.
     */
    const deliver = fn("Attachments.deliver")(function*(
      projectId: ProjectId,
      principal: Principal,
      attachmentId: string,
      bytes: Uint8Array
    ) {
      yield* gate.open(projectId, principal, "write")
      const settings = yield* AttachmentSettings
      const current = yield* own(projectId, attachmentId)
      const already = () => new InvalidAttachmentRequest({ message: `attachment ${attachmentId} already has its bytes` })
      if (current.state !== "processing") return yield* already()
      if (bytes.length === 0) return yield* new InvalidAttachmentRequest({ message: "the file is empty" })
      if (bytes.length > settings.maxBytes) return yield* new AttachmentTooLarge({ maxBytes: settings.maxBytes })
      // A key of this delivery's own: a concurrent one that loses the race never overwrites the bytes.
      const blobKey = `${attachmentId}.${yield* ids.typeId(IdKinds.attachment)}.bin`
      yield* blobs.put(blobKey, bytes, "application/octet-stream")
      const now = yield* DateTime.now
      const done = yield* tx.withTransaction(
        Effect.andThen(gate.open(projectId, principal, "write", { lock: true }), repo.markReady({ attachmentId, blobKey, size: bytes.length, now }))
      ).pipe(Effect.tapError(() => blobs.delete(blobKey)))
      if (Option.isNone(done)) {
        yield* blobs.delete(blobKey)
        return yield* already()
      }
      return attachmentView(done.value)
    })

    const get = fn("Attachments.get")(function*(projectId: ProjectId, principal: Principal, attachmentId: string) {
      yield* gate.open(projectId, principal, "read")
      return attachmentView(yield* own(projectId, attachmentId))
    })

    /** The bytes, waiting up to `readyWaitMs` for a processing attachment. */
    const download = fn("Attachments.download")(function*(projectId: ProjectId, principal: Principal, attachmentId: string) {
      yield* gate.open(projectId, principal, "read")
      const settings = yield* AttachmentSettings
      const deadline = (yield* DateTime.now).epochMilliseconds + settings.readyWaitMs
      let current = yield* own(projectId, attachmentId)
      while (current.state !== "ready" && (yield* DateTime.now).epochMilliseconds < deadline) {
        yield* Effect.sleep(settings.readyPollMs)
        current = yield* own(projectId, attachmentId)
      }
      const blob = current.blobKey === null ? Option.none() : yield* blobs.get(current.blobKey)
      if (current.state !== "ready" || Option.isNone(blob)) return yield* new AttachmentNotReady({ attachmentId })
      return { attachment: attachmentView(current), bytes: blob.value.bytes }
    })

    const list = fn("Attachments.list")(function*(projectId: ProjectId, principal: Principal, query: ListAttachmentsQuery) {
      yield* gate.open(projectId, principal, "read")
      const orderBy = query.orderBy ?? "createdAt"
      const order = query.order ?? "asc"
      const filters = {
        createdSince: query.createdSince,
        createdBefore: query.createdBefore,
        updatedSince: query.updatedSince,
        updatedBefore: query.updatedBefore
      }
      const pageSize = query.pageSize === undefined || query.pageSize === 0 ? DEFAULT_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, query.pageSize)
      const { page, nextPageToken } = yield* createdAtPage({
        list: `attachments:${projectId}:${canonicalJson({ orderBy, order, ...filters })}`,
        pageSize,
        pageToken: query.pageToken,
        fetch: (after, limit) =>
          repo.list({ projectId, orderBy, order, ...filters, after: after && { t: DateTime.toEpochMillis(after.createdAt), id: after.id }, limit }),
        positionOf: (r) => ({ createdAt: orderBy === "createdAt" ? r.createdAt : r.updatedAt, id: r.attachmentId }),
        invalidToken: (message) => new InvalidPlatformRequest({ parameter: "pageToken", message })
      }).pipe(Effect.provideService(ServerSecret, serverSecret))
      return { items: page.map(attachmentView), nextPageToken }
    })

    return { upload, recordIncoming, completeIncoming, deliver, get, download, list } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}
