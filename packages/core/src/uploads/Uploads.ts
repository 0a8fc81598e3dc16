/**
 * Uploads (docs/api-notes/accounts-and-projects.md: uploads and avatars): tickets for one image
 * each, the signed upload they authorise, and the commit that puts the stored file to use.
 *
 * A ticket is `pending` until its file arrives (`received`) and `committed` once used; each step
 * happens once. The ticket's expiry (10 minutes) bounds both the upload and the commit. Files are
 * checked on arrival — size against the ticket, bytes against the declared type — so a `received`
 * ticket always holds a valid image. A committed file is served at `{API_URL}/v1/files/<key>`.
 */
import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import { Transactor } from "../shared/Ports.js"
import { RecordCache } from "../shared/RecordCache.js"
import { encodeBase32, UploadId, type AccountId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Secrets } from "../shared/Secrets.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { formatTimestamp } from "../shared/Timestamp.js"
import { AccountNotFound } from "../accounts/Errors.js"
import { AccountsRepo } from "../accounts/Ports.js"
import type { ImageContentType, UploadTicket } from "../accounts/Schema.js"
import {
  UploadContentMismatch,
  UploadExpired,
  UploadNotFound,
  UploadPurposeMismatch,
  UploadSignatureInvalid,
  UploadStateConflict,
  UploadTooLarge
} from "./UploadErrors.js"
import { uploadFormOf, verifyUploadForm } from "./UploadForm.js"
import { imageExtension, sniffImageType } from "./UploadImage.js"
import {
  AccountPictureRepo,
  BlobStore,
  profilePicturePurpose,
  UploadSettings,
  type UploadPurpose,
  type UploadTicketRecord,
  UploadTicketsRepo
} from "./UploadPorts.js"
import { fn } from "../internal/Traced.js"

/** The owner of an account's own tickets: the principal scope of any account credential. */
export const accountUploadOwner = (accountId: AccountId): string => `account:${accountId}`

/** The blob key inside one of our file URLs (any origin, so a changed API_URL still finds it). */
const blobKeyPattern = /\/v1\/files\/(sb_upl_[0-9a-z]{26}_[0-9a-z]{16}\.(?:jpg|png|webp))$/
export const blobKeyOfFileUrl = (url: string | null): string | null =>
  url === null ? null : (blobKeyPattern.exec(url)?.[1] ?? null)

/** The value of a lookup, or `error` when there is none. */
const orFail = <A, E>(lookup: Effect.Effect<Option.Option<A>>, error: () => E) =>
  Effect.flatMap(lookup, Option.match({ onNone: () => Effect.fail(error()), onSome: Effect.succeed }))

export class Uploads extends Context.Service<Uploads>()("core/Uploads", {
  make: Effect.gen(function*() {
    const tickets = yield* UploadTicketsRepo
    const pictures = yield* AccountPictureRepo
    const accounts = yield* AccountsRepo
    const blobs = yield* BlobStore
    const tx = yield* Transactor
    const records = yield* RecordCache
    const ids = yield* Ids
    const secrets = yield* Secrets
    const serverSecret = yield* ServerSecret
    const settings = yield* UploadSettings
    const base = settings.publicBaseUrl.replace(/\/+$/, "")
    const fileUrl = (key: string) => `${base}/v1/files/${key}`

    const createTicket = fn("Uploads.createTicket")(function*(input: {
      readonly owner: string
      readonly purpose: UploadPurpose
      readonly contentType: ImageContentType
    }) {
      const now = yield* DateTime.now
      const ticket: UploadTicketRecord = {
        uploadId: UploadId.make(yield* ids.uploadId()),
        owner: input.owner,
        purpose: input.purpose,
        contentType: input.contentType,
        maxBytes: settings.maxBytes,
        state: "pending",
        blobKey: null,
        byteSize: null,
        createdAt: now,
        expiresAt: DateTime.addDuration(now, settings.ticketTtl),
        receivedAt: null,
        committedAt: null
      }
      yield* tickets.insert(ticket)
      const formFields = yield* Effect.provideService(uploadFormOf(ticket), ServerSecret, serverSecret)
      return {
        expiresAt: ticket.expiresAt,
        formFields,
        uploadId: ticket.uploadId,
        uploadUrl: `${base}/v1/uploads/${ticket.uploadId}`
      } satisfies typeof UploadTicket.Type
    })

    /**
     * Checks an upload before its file is read: the form verifies and was issued for `uploadId`
     * (the path's), has not expired, and its ticket still awaits its file. Returns the ticket.
     */
    const authorizeUpload = fn("Uploads.authorizeUpload")(function*(
      uploadId: string,
      fields: Readonly<Record<string, string>>
    ) {
      const form = yield* Effect.provideService(verifyUploadForm(fields), ServerSecret, serverSecret)
      if (form.uploadId !== uploadId) {
        return yield* new UploadSignatureInvalid({ message: "the form was issued for another upload" })
      }
      const now = yield* DateTime.now
      if (!DateTime.isLessThan(now, form.expiresAt)) {
        return yield* new UploadExpired({ uploadId, expiresAt: formatTimestamp(form.expiresAt) })
      }
      const ticket = yield* orFail(tickets.findById(form.uploadId), () => new UploadNotFound({ uploadId }))
      // The stored ticket is the record of what was signed; a form that disagrees was not ours.
      if (
        ticket.owner !== form.owner || ticket.purpose !== form.purpose || ticket.contentType !== form.contentType ||
        ticket.maxBytes !== form.maxBytes || DateTime.toEpochMillis(ticket.expiresAt) !== DateTime.toEpochMillis(form.expiresAt)
      ) {
        return yield* new UploadSignatureInvalid({ message: "the form does not match its ticket" })
      }
      if (ticket.state !== "pending") return yield* new UploadStateConflict({ uploadId, reason: "already_received" })
      return ticket
    })

    /**
     * Stores the file of an authorised ticket: at most `maxBytes`, of the declared type by magic
     * number. Once only: a concurrent second upload loses with `already_received` and its copy is
     * removed (each attempt writes its own key, so the loser never touches the winner's file).
     */
    const receive = fn("Uploads.receive")(function*(ticket: UploadTicketRecord, bytes: Uint8Array) {
      if (bytes.length > ticket.maxBytes) return yield* new UploadTooLarge({ maxBytes: ticket.maxBytes })
      const detected = sniffImageType(bytes)
      if (detected !== ticket.contentType) {
        return yield* new UploadContentMismatch({ declared: ticket.contentType, detected: detected ?? null })
      }
      const suffix = encodeBase32(yield* secrets.randomBytes(10))
      const blobKey = `${ticket.uploadId}_${suffix}.${imageExtension[ticket.contentType]}`
      yield* blobs.put(blobKey, bytes, ticket.contentType)
      const now = yield* DateTime.now
      const marked = yield* tickets.markReceived({ uploadId: ticket.uploadId, blobKey, byteSize: bytes.length, now })
      if (Option.isNone(marked)) {
        yield* blobs.delete(blobKey)
        return yield* new UploadStateConflict({ uploadId: ticket.uploadId, reason: "already_received" })
      }
    })

    /**
     * Uses a received upload for `purpose` on behalf of `owner`, once, and returns the URL its file
     * is served at. Run it inside the transaction of the change that stores that URL, so both
     * commit together. Unknown, malformed and other owners' ids are all `UploadNotFound`.
     */
    const claim = fn("Uploads.claim")(function*(input: {
      readonly owner: string
      readonly purpose: UploadPurpose
      readonly uploadId: string
    }) {
      const notFound = new UploadNotFound({ uploadId: input.uploadId })
      const uploadId = yield* Schema.decodeUnknownEffect(UploadId)(input.uploadId).pipe(Effect.mapError(() => notFound))
      const ticket = yield* orFail(tickets.findById(uploadId), () => notFound)
      if (ticket.owner !== input.owner) return yield* notFound
      if (ticket.purpose !== input.purpose) return yield* new UploadPurposeMismatch({ uploadId })
      if (ticket.state === "committed") return yield* new UploadStateConflict({ uploadId, reason: "already_committed" })
      const now = yield* DateTime.now
      if (!DateTime.isLessThan(now, ticket.expiresAt)) {
        return yield* new UploadExpired({ uploadId, expiresAt: formatTimestamp(ticket.expiresAt) })
      }
      if (ticket.state === "pending") return yield* new UploadStateConflict({ uploadId, reason: "not_received" })
      const committed = yield* tickets.markCommitted({ uploadId, now })
      if (Option.isNone(committed) || committed.value.blobKey === null) {
        return yield* new UploadStateConflict({ uploadId, reason: "already_committed" })
      }
      return { url: fileUrl(committed.value.blobKey), now }
    })

    /** Sets the account's picture and reads the account back; returns the blob the old picture used. */
    const setAccountPicture = (accountId: AccountId, pictureUrl: string | null, now: DateTime.Utc) =>
      Effect.gen(function*() {
        const set = yield* pictures.setPicture({ accountId, pictureUrl, now })
        if (Option.isNone(set)) return yield* new AccountNotFound({ accountId })
        yield* records.changed("account", accountId)
        const account = yield* orFail(accounts.findById(accountId), () => new AccountNotFound({ accountId }))
        return { account, replaced: blobKeyOfFileUrl(set.value.previous) }
      })

    /**
     * Makes a received profile-picture upload of the account its picture. `replaced` is the file
     * the old picture used: pass it to `discard` once the caller's transaction has committed.
     */
    const commitAccountPicture = fn("Uploads.commitAccountPicture")(function*(input: {
      readonly accountId: AccountId
      readonly uploadId: string
    }) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        const { now, url } = yield* claim({
          owner: accountUploadOwner(input.accountId),
          purpose: profilePicturePurpose,
          uploadId: input.uploadId
        })
        return yield* setAccountPicture(input.accountId, url, now)
      }))
    })

    /** Back to the default picture (a no-op when already there); `replaced` as for the commit. */
    const resetAccountPicture = fn("Uploads.resetAccountPicture")(function*(accountId: AccountId) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        const current = yield* orFail(accounts.findById(accountId), () => new AccountNotFound({ accountId }))
        if (current.pictureUrl === null) return { account: current, replaced: null }
        return yield* setAccountPicture(accountId, null, yield* DateTime.now)
      }))
    })

    /** Removes a file no longer in use (after the change that released it has committed). */
    const discard = (blobKey: string | null) => (blobKey === null ? Effect.void : blobs.delete(blobKey))

    /** A stored file, for serving. */
    const readFile = (blobKey: string) => blobs.get(blobKey)

    return {
      /** The largest file a ticket accepts. */
      maxBytes: settings.maxBytes,
      fileUrl,
      createTicket,
      authorizeUpload,
      receive,
      claim,
      commitAccountPicture,
      resetAccountPicture,
      discard,
      readFile
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}
