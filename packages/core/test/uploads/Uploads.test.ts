import { describe, expect, it } from "@effect/vitest"
import { AccountsRepo } from "@switchboard/core/accounts"
import { RecordCache, RecordChangesNone, SecretsLive, ServerSecretFromBytes } from "@switchboard/core/shared"
import {
  agentAvatarPurpose,
  BlobStore,
  profilePicturePurpose,
  type StoredBlob,
  uploadFormFieldNames,
  uploadFormOf,
  Uploads,
  UploadSettings,
  UploadTicketsRepo,
  verifyUploadForm
} from "@switchboard/core/uploads"
import { IdentityReposMemory, MemoryStateLive, TestServerSecret, UploadsMemory } from "@switchboard/testkit"
import { Cause, Context, DateTime, Duration, Effect, Exit, Layer, Option, Result } from "effect"
import { TestClock } from "effect/testing"
import { accountFixture } from "@switchboard/testkit"
import * as fc from "fast-check"
import { runLikeTest } from "../Properties.js"

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
const BASE = "https://api.example.test"

/** A memory blob store that can list its keys (to see that a losing upload's copy is removed). */
class StoredKeys extends Context.Service<StoredKeys, Effect.Effect<ReadonlyArray<string>>>()("test/StoredKeys") {}
const ListingBlobStore = Layer.effectContext(Effect.sync(() => {
  const blobs = new Map<string, StoredBlob>()
  return Context.make(BlobStore, BlobStore.of({
    put: (key, bytes, contentType) => Effect.sync(() => void blobs.set(key, { bytes: bytes.slice(), contentType })),
    get: (key) => Effect.sync(() => Option.fromNullishOr(blobs.get(key))),
    delete: (key) => Effect.sync(() => void blobs.delete(key))
  })).pipe(Context.add(StoredKeys, Effect.sync(() => [...blobs.keys()])))
}))

// Only what the feature needs: its ports and the accounts table, in memory, with a fixed secret.
const Env = Uploads.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(UploadsMemory, IdentityReposMemory, ListingBlobStore).pipe(Layer.provideMerge(MemoryStateLive))),
  Layer.provideMerge(Layer.mergeAll(
    SecretsLive,
    TestServerSecret,
    RecordCache.layer.pipe(Layer.provide(Layer.succeedContext(RecordChangesNone))),
    Layer.succeed(UploadSettings, { publicBaseUrl: BASE, maxBytes: 1024, ticketTtl: Duration.minutes(10) })
  ))
)

const png = (size = 32) => new Uint8Array(size).map((_, i) => [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a][i] ?? 7)
const jpeg = (size = 32) => new Uint8Array(size).map((_, i) => [0xff, 0xd8, 0xff][i] ?? 7)

let n = 0
const newAccount = Effect.gen(function*() {
  n += 1
  const record = accountFixture({ email: `u${n}@example.com`, createdAt: at(T0) })
  yield* (yield* AccountsRepo).insert(record)
  return record.accountId
})

/** T0, an account, and a picture ticket of that account. */
const setup = (contentType: "image/png" | "image/jpeg" | "image/webp" = "image/png") =>
  Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    const accountId = yield* newAccount
    const uploads = yield* Uploads
    const ticket = yield* uploads.createTicket({ owner: `account:${accountId}`, purpose: profilePicturePurpose, contentType })
    return { accountId, uploads, ticket }
  })

/** The upload of a file through a ticket's form, as the upload route does it. */
const upload = (ticket: { uploadId: string; formFields: Record<string, string> }, bytes: Uint8Array) =>
  Effect.flatMap(Uploads, (uploads) =>
    Effect.flatMap(uploads.authorizeUpload(ticket.uploadId, ticket.formFields), (t) => uploads.receive(t, bytes)))

/** The tag of the error an effect failed with, or "success". */
const failureTag = <A, E extends { readonly _tag: string }>(exit: Exit.Exit<A, E>) =>
  Exit.match(exit, { onSuccess: () => "success", onFailure: (cause) => Option.getOrUndefined(Cause.findErrorOption(cause))?._tag })

describe("Uploads: tickets", () => {
  it.effect("a ticket lasts 10 minutes, targets API_URL/v1/uploads/{id}, and carries a form that verifies", () =>
    Effect.gen(function*() {
      const { accountId, ticket } = yield* setup()
      expect(ticket.uploadId).toMatch(/^sb_upl_[0-9a-z]{26}$/)
      expect(ticket.expiresAt).toEqual(at(T0 + 600_000))
      expect(ticket.uploadUrl).toBe(`${BASE}/v1/uploads/${ticket.uploadId}`)
      expect(ticket.formFields).toMatchObject({
        uploadId: ticket.uploadId,
        owner: `account:${accountId}`,
        purpose: "profile_picture",
        contentType: "image/png",
        maxBytes: "1024",
        expiresAt: "2030-01-01T00:10:00.000Z"
      })
      const verified = yield* verifyUploadForm(ticket.formFields).pipe(Effect.provide(TestServerSecret))
      expect(verified).toEqual({
        uploadId: ticket.uploadId,
        owner: `account:${accountId}`,
        purpose: "profile_picture",
        contentType: "image/png",
        maxBytes: 1024,
        expiresAt: at(T0 + 600_000)
      })
      const stored = Option.getOrThrow(yield* (yield* UploadTicketsRepo).findById(ticket.uploadId))
      expect(stored).toMatchObject({ state: "pending", blobKey: null, createdAt: at(T0), expiresAt: at(T0 + 600_000) })
    }).pipe(Effect.provide(Env)))

  it.effect("changing any one signed field, or dropping the signature, is refused; a missing field is named", () =>
    Effect.gen(function*() {
      const { ticket, uploads } = yield* setup()
      for (const field of uploadFormFieldNames) {
        const value = ticket.formFields[field]!
        const tampered = { ...ticket.formFields, [field]: value.slice(0, -1) + (value.endsWith("0") ? "1" : "0") }
        const exit = yield* Effect.exit(uploads.authorizeUpload(ticket.uploadId, tampered))
        expect([field, failureTag(exit)]).toEqual([field, "UploadSignatureInvalid"])
        // The signature alone catches it (not only the comparison with the stored ticket).
        const bare = yield* Effect.exit(verifyUploadForm(tampered).pipe(Effect.provide(TestServerSecret)))
        expect([field, failureTag(bare)]).toEqual([field, "UploadSignatureInvalid"])
        const { [field]: _, ...without } = ticket.formFields
        const missing = yield* Effect.result(uploads.authorizeUpload(ticket.uploadId, without))
        expect(Result.isFailure(missing) && missing.failure).toMatchObject({ _tag: "UploadFormInvalid", field })
      }
      // A form under another server secret is refused too.
      const foreign = yield* uploadFormOf(Option.getOrThrow(yield* (yield* UploadTicketsRepo).findById(ticket.uploadId))).pipe(
        Effect.provide(ServerSecretFromBytes(new Uint8Array(32).fill(9)))
      )
      expect(failureTag(yield* Effect.exit(uploads.authorizeUpload(ticket.uploadId, foreign)))).toBe("UploadSignatureInvalid")
      // Another upload's valid form does not open this upload.
      const other = yield* uploads.createTicket({ owner: "account:x", purpose: profilePicturePurpose, contentType: "image/png" })
      expect(failureTag(yield* Effect.exit(uploads.authorizeUpload(ticket.uploadId, other.formFields)))).toBe("UploadSignatureInvalid")
      // None of that used the ticket up.
      yield* upload(ticket, png())
    }).pipe(Effect.provide(Env)))

  it("the form of any ticket verifies, and any single-character change of any field does not", () =>
    fc.assert(
      fc.asyncProperty(fc.constantFrom(...uploadFormFieldNames), fc.nat(), fc.integer({ min: 0x21, max: 0x7e }), (field, position, code) =>
        runLikeTest(
          Effect.gen(function*() {
            const { ticket, uploads } = yield* setup()
            const value = ticket.formFields[field]!
            const i = position % value.length
            const changed = value.slice(0, i) + String.fromCharCode(code) + value.slice(i + 1)
            const exit = yield* Effect.exit(uploads.authorizeUpload(ticket.uploadId, { ...ticket.formFields, [field]: changed }))
            expect(failureTag(exit)).toBe(changed === value ? "success" : "UploadSignatureInvalid")
          }).pipe(Effect.provide(Env))
        )),
      { numRuns: 40 }
    ))

  it.effect("expiry (TestClock): the upload is accepted until 10 minutes have passed, then refused", () =>
    Effect.gen(function*() {
      const { ticket, uploads } = yield* setup()
      yield* TestClock.adjust(Duration.millis(600_000 - 1))
      yield* uploads.authorizeUpload(ticket.uploadId, ticket.formFields)
      yield* TestClock.adjust(Duration.millis(1))
      const exit = yield* Effect.result(uploads.authorizeUpload(ticket.uploadId, ticket.formFields))
      expect(Result.isFailure(exit) && exit.failure).toMatchObject({ _tag: "UploadExpired", expiresAt: "2030-01-01T00:10:00.000Z" })
    }).pipe(Effect.provide(Env)))
})

describe("Uploads: receiving the file", () => {
  it.effect("stores a file of the declared type once; the size limit and the magic number are enforced", () =>
    Effect.gen(function*() {
      const { ticket, uploads } = yield* setup()
      expect(failureTag(yield* Effect.exit(upload(ticket, png(1025))))).toBe("UploadTooLarge")
      const mismatch = yield* Effect.result(upload(ticket, jpeg()))
      expect(Result.isFailure(mismatch) && mismatch.failure).toMatchObject({ _tag: "UploadContentMismatch", declared: "image/png", detected: "image/jpeg" })
      const unknown = yield* Effect.result(upload(ticket, new TextEncoder().encode("GIF89a")))
      expect(Result.isFailure(unknown) && unknown.failure).toMatchObject({ _tag: "UploadContentMismatch", detected: null })
      const bytes = png(1024)
      yield* upload(ticket, bytes)
      const stored = Option.getOrThrow(yield* (yield* UploadTicketsRepo).findById(ticket.uploadId))
      expect(stored).toMatchObject({ state: "received", byteSize: 1024, receivedAt: at(T0) })
      expect(stored.blobKey).toMatch(new RegExp(`^${ticket.uploadId}_[0-9a-z]{16}\\.png$`))
      const blob = Option.getOrThrow(yield* uploads.readFile(stored.blobKey!))
      expect(blob).toEqual({ bytes, contentType: "image/png" })
      const again = yield* Effect.result(upload(ticket, png()))
      expect(Result.isFailure(again) && again.failure).toMatchObject({ _tag: "UploadStateConflict", reason: "already_received" })
    }).pipe(Effect.provide(Env)))

  it.effect("of two uploads authorised at once, one is stored and the other's file is removed", () =>
    Effect.gen(function*() {
      const { ticket, uploads } = yield* setup()
      const a = yield* uploads.authorizeUpload(ticket.uploadId, ticket.formFields)
      const b = yield* uploads.authorizeUpload(ticket.uploadId, ticket.formFields)
      yield* uploads.receive(a, png(40))
      const lost = yield* Effect.result(uploads.receive(b, png(50)))
      expect(Result.isFailure(lost) && lost.failure._tag).toBe("UploadStateConflict")
      const stored = Option.getOrThrow(yield* (yield* UploadTicketsRepo).findById(ticket.uploadId))
      expect(Option.getOrThrow(yield* uploads.readFile(stored.blobKey!)).bytes.length).toBe(40)
      expect(yield* (yield* StoredKeys)).toEqual([stored.blobKey])
    }).pipe(Effect.provide(Env)))
})

describe("Uploads: committing and resetting the account picture", () => {
  it.effect("commit sets the picture to the served file; a second commit is refused; a new one replaces it; reset clears it", () =>
    Effect.gen(function*() {
      const { accountId, ticket, uploads } = yield* setup()
      const early = yield* Effect.result(uploads.commitAccountPicture({ accountId, uploadId: ticket.uploadId }))
      expect(Result.isFailure(early) && early.failure).toMatchObject({ _tag: "UploadStateConflict", reason: "not_received" })
      yield* upload(ticket, png())
      yield* TestClock.adjust(Duration.minutes(1))
      const first = yield* uploads.commitAccountPicture({ accountId, uploadId: ticket.uploadId })
      const key = Option.getOrThrow(yield* (yield* UploadTicketsRepo).findById(ticket.uploadId)).blobKey!
      expect(first.account.pictureUrl).toBe(`${BASE}/v1/files/${key}`)
      expect(first.account.updatedAt).toEqual(at(T0 + 60_000))
      expect(first.replaced).toBeNull()
      expect(Option.getOrThrow(yield* (yield* UploadTicketsRepo).findById(ticket.uploadId))).toMatchObject({
        state: "committed",
        committedAt: at(T0 + 60_000)
      })
      const twice = yield* Effect.result(uploads.commitAccountPicture({ accountId, uploadId: ticket.uploadId }))
      expect(Result.isFailure(twice) && twice.failure).toMatchObject({ _tag: "UploadStateConflict", reason: "already_committed" })

      const next = yield* uploads.createTicket({ owner: `account:${accountId}`, purpose: profilePicturePurpose, contentType: "image/jpeg" })
      yield* upload(next, jpeg())
      const second = yield* uploads.commitAccountPicture({ accountId, uploadId: next.uploadId })
      expect(second.replaced).toBe(key)
      expect(second.account.pictureUrl).toMatch(/\.jpg$/)

      yield* TestClock.adjust(Duration.minutes(1))
      const reset = yield* uploads.resetAccountPicture(accountId)
      expect(reset.account.pictureUrl).toBeNull()
      expect(reset.account.updatedAt).toEqual(at(T0 + 120_000))
      expect(blobKeyOf(second.account.pictureUrl)).toBe(reset.replaced)
      yield* TestClock.adjust(Duration.minutes(1))
      const noop = yield* uploads.resetAccountPicture(accountId)
      expect(noop).toEqual({ account: reset.account, replaced: null })
    }).pipe(Effect.provide(Env)))

  it.effect("only the owner commits; an unknown or malformed id is not found; another purpose is refused", () =>
    Effect.gen(function*() {
      const { accountId, ticket, uploads } = yield* setup()
      yield* upload(ticket, png())
      const stranger = yield* newAccount
      for (const [who, uploadId] of [[stranger, ticket.uploadId], [accountId, `sb_upl_${"a".repeat(26)}`], [accountId, "not-an-id"]] as const) {
        const r = yield* Effect.result(uploads.commitAccountPicture({ accountId: who, uploadId }))
        expect(Result.isFailure(r) && r.failure).toMatchObject({ _tag: "UploadNotFound", uploadId })
      }
      const avatar = yield* uploads.createTicket({
        owner: `account:${accountId}`,
        purpose: agentAvatarPurpose("0190f5c2-7c1e-7a00-8000-000000000001"),
        contentType: "image/png"
      })
      yield* upload(avatar, png())
      const wrong = yield* Effect.result(uploads.commitAccountPicture({ accountId, uploadId: avatar.uploadId }))
      expect(Result.isFailure(wrong) && wrong.failure._tag).toBe("UploadPurposeMismatch")
      // The refusals changed nothing: the owner still commits.
      yield* uploads.commitAccountPicture({ accountId, uploadId: ticket.uploadId })
    }).pipe(Effect.provide(Env)))

  it.effect("a ticket past its expiry cannot be committed, even with its file received", () =>
    Effect.gen(function*() {
      const { accountId, ticket, uploads } = yield* setup()
      yield* TestClock.adjust(Duration.minutes(9))
      yield* upload(ticket, png())
      yield* TestClock.adjust(Duration.minutes(1))
      const late = yield* Effect.result(uploads.commitAccountPicture({ accountId, uploadId: ticket.uploadId }))
      expect(Result.isFailure(late) && late.failure._tag).toBe("UploadExpired")
      const account = Option.getOrThrow(yield* (yield* AccountsRepo).findById(accountId))
      expect(account.pictureUrl).toBeNull()
    }).pipe(Effect.provide(Env)))
})

const blobKeyOf = (url: string | null) => url?.split("/").pop() ?? null
