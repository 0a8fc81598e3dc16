/**
 * The Uploads feature's ports (docs/architecture.md#rules-of-the-road;
 * docs/api-notes/accounts-and-projects.md "Uploads"): upload tickets and account pictures in the
 * store, the blob store the files go to, and the feature's settings.
 */
import { Context, DateTime, Duration, type Effect, type Option } from "effect"
import type { AccountId, UploadId } from "../shared/Identifiers.js"
import type { ImageContentType } from "../accounts/Schema.js"
import { Setting } from "../internal/Settings.js"

/** A ticket's life: issued (`pending`), file stored (`received`), used by a commit (`committed`). */
export type UploadState = "pending" | "received" | "committed"

/**
 * What an upload is for: an account's profile picture, or one project's agent avatar. Stored and
 * signed as a string: `profile_picture` or `agent_avatar:<projectId>`.
 */
export type UploadPurpose = "profile_picture" | `agent_avatar:${string}`
export const profilePicturePurpose: UploadPurpose = "profile_picture"
export const agentAvatarPurpose = (projectId: string): UploadPurpose => `agent_avatar:${projectId}`

/** An upload ticket as stored. */
export interface UploadTicketRecord {
  readonly uploadId: UploadId
  /** Who may commit it: the principal scope of its creator (`account:<id>` or `project-key:<id>`). */
  readonly owner: string
  readonly purpose: UploadPurpose
  /** The declared type: the file's bytes must be of this type. */
  readonly contentType: ImageContentType
  readonly maxBytes: number
  readonly state: UploadState
  /** The stored file (set once `received`). */
  readonly blobKey: string | null
  readonly byteSize: number | null
  readonly createdAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc
  readonly receivedAt: DateTime.Utc | null
  readonly committedAt: DateTime.Utc | null
}

export class UploadTicketsRepo extends Context.Service<UploadTicketsRepo, {
  readonly insert: (ticket: UploadTicketRecord) => Effect.Effect<void>
  readonly findById: (uploadId: UploadId) => Effect.Effect<Option.Option<UploadTicketRecord>>
  /**
   * `pending` → `received` with the stored file, atomically and once: none when the ticket is
   * unknown or no longer pending (a concurrent upload won).
   */
  readonly markReceived: (args: {
    readonly uploadId: UploadId
    readonly blobKey: string
    readonly byteSize: number
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<UploadTicketRecord>>
  /** `received` → `committed`, atomically and once: none when the ticket is unknown or not `received`. */
  readonly markCommitted: (args: {
    readonly uploadId: UploadId
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<UploadTicketRecord>>
}>()("core/UploadTicketsRepo") {}

/** The picture of an account, on the accounts store (`pictureUrl` null = the default picture). */
export class AccountPictureRepo extends Context.Service<AccountPictureRepo, {
  /**
   * Sets the account's `pictureUrl` and `updatedAt` and returns the URL it replaced, read under the
   * same row lock (so concurrent commits each learn what they replaced); none for an unknown account.
   */
  readonly setPicture: (args: {
    readonly accountId: AccountId
    readonly pictureUrl: string | null
    readonly now: DateTime.Utc
  }) => Effect.Effect<Option.Option<{ readonly previous: string | null }>>
}>()("core/AccountPictureRepo") {}

export interface StoredBlob {
  readonly bytes: Uint8Array
  readonly contentType: string
}

/**
 * Stored files by key (filesystem in the standalone server, memory in testkit). Keys are safe
 * names ({@link isSafeBlobKey}); `put` with another key is a defect, `get`/`delete` treat it as
 * absent. Storage failures are defects: the caller cannot act on them.
 */
export class BlobStore extends Context.Service<BlobStore, {
  /** Stores (or replaces) the blob atomically: a reader sees the old or the new, never a part. */
  readonly put: (key: string, bytes: Uint8Array, contentType: string) => Effect.Effect<void>
  readonly get: (key: string) => Effect.Effect<Option.Option<StoredBlob>>
  /** Removes the blob; absent is fine. */
  readonly delete: (key: string) => Effect.Effect<void>
}>()("core/BlobStore") {}

/** A key that is a plain file name everywhere: no separators, no leading dot, at most 200 characters. */
export const isSafeBlobKey = (key: string): boolean => /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(key)

/** A media type without parameters (what a blob may be stored and served as). */
export const isBlobContentType = (contentType: string): boolean =>
  /^[A-Za-z0-9!#$&^_.+-]{1,127}\/[A-Za-z0-9!#$&^_.+-]{1,127}$/.test(contentType)

/** The feature's settings, with the defaults of docs/api-notes/accounts-and-projects.md; the server sets `publicBaseUrl` to API_URL. */
export class UploadSettings extends Setting<UploadSettings>()("core/UploadSettings", {
  defaultValue: () => ({
    /** The origin the upload targets and served files are reached at (`{API_URL}`). */
    publicBaseUrl: "http://localhost" as string,
    /** Largest accepted file: 5 MiB. */
    maxBytes: 5 * 1024 * 1024,
    /** How long a ticket accepts its upload and its commit. */
    ticketTtl: Duration.minutes(10)
  })
}) {}
