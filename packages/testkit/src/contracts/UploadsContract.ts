/** The Uploads feature's part of the repository contract suite (called inside `repositoryContract`). */
import type { Vitest } from "@effect/vitest"
import { type StorePorts } from "@switchboard/core"
import { AccountsRepo } from "@switchboard/core/accounts"
import { AccountId, formatTypeId, IdKinds, Transactor, UploadId, uuidv7Bytes } from "@switchboard/core/shared"
import { AccountPictureRepo, type UploadTicketRecord, UploadTicketsRepo } from "@switchboard/core/uploads"
import { DateTime, Effect, Result, Option } from "effect"
import { expect } from "vitest"
import { accountFixture } from "../Fixtures.js"

const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"

const uploadIdFixture = () =>
  UploadId.make(`sb_upl_${Array.from(crypto.getRandomValues(new Uint8Array(26)), (b) => alphabet[b % 36]).join("")}`)

const ticketFixture = (overrides: Partial<UploadTicketRecord> = {}): UploadTicketRecord => ({
  uploadId: uploadIdFixture(),
  owner: "account:sb_acc_01jd0000000000000000000000",
  purpose: "profile_picture",
  contentType: "image/png",
  maxBytes: 5 * 1024 * 1024,
  state: "pending",
  blobKey: null,
  byteSize: null,
  createdAt: at(T0),
  expiresAt: at(T0 + 600_000),
  receivedAt: null,
  committedAt: null,
  ...overrides
})

const withAccount = (pictureUrl: string | null = null) =>
  Effect.gen(function*() {
    const account = accountFixture({ pictureUrl, createdAt: at(T0) })
    yield* (yield* AccountsRepo).insert(account)
    return account
  })

export const uploadsContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("upload tickets: insert and find by id round-trip every field; an unknown id is none", () =>
    Effect.gen(function*() {
      const tickets = yield* UploadTicketsRepo
      const ticket = ticketFixture({ purpose: "agent_avatar:0190f5c2-7c1e-7a00-8000-000000000001", contentType: "image/webp" })
      yield* tickets.insert(ticket)
      expect(Option.getOrThrow(yield* tickets.findById(ticket.uploadId))).toEqual(ticket)
      expect(Option.isNone(yield* tickets.findById(uploadIdFixture()))).toBe(true)
    }))

  it.effect("upload tickets: pending → received → committed, each step once and only in order", () =>
    Effect.gen(function*() {
      const tickets = yield* UploadTicketsRepo
      const ticket = ticketFixture()
      yield* tickets.insert(ticket)
      const { uploadId } = ticket
      expect(Option.isNone(yield* tickets.markCommitted({ uploadId, now: at(T0 + 1) }))).toBe(true)
      const received = Option.getOrThrow(
        yield* tickets.markReceived({ uploadId, blobKey: `${uploadId}_k.png`, byteSize: 1234, now: at(T0 + 2) })
      )
      expect(received).toEqual({ ...ticket, state: "received", blobKey: `${uploadId}_k.png`, byteSize: 1234, receivedAt: at(T0 + 2) })
      expect(Option.isNone(yield* tickets.markReceived({ uploadId, blobKey: "other.png", byteSize: 1, now: at(T0 + 3) }))).toBe(true)
      const committed = Option.getOrThrow(yield* tickets.markCommitted({ uploadId, now: at(T0 + 4) }))
      expect(committed).toEqual({ ...received, state: "committed", committedAt: at(T0 + 4) })
      expect(Option.isNone(yield* tickets.markCommitted({ uploadId, now: at(T0 + 5) }))).toBe(true)
      expect(Option.getOrThrow(yield* tickets.findById(uploadId))).toEqual(committed)
      const unknown = uploadIdFixture()
      expect(Option.isNone(yield* tickets.markReceived({ uploadId: unknown, blobKey: "x.png", byteSize: 1, now: at(T0) }))).toBe(true)
    }))

  it.effect("upload tickets: of concurrent receipts and of concurrent commits, exactly one wins", () =>
    Effect.gen(function*() {
      const tickets = yield* UploadTicketsRepo
      const ticket = ticketFixture()
      yield* tickets.insert(ticket)
      const { uploadId } = ticket
      const receipts = yield* Effect.all(
        Array.from({ length: 6 }, (_, i) => tickets.markReceived({ uploadId, blobKey: `k${i}.png`, byteSize: i + 1, now: at(T0 + i) })),
        { concurrency: "unbounded" }
      )
      const won = receipts.filter(Option.isSome)
      expect(won).toHaveLength(1)
      expect(Option.getOrThrow(yield* tickets.findById(uploadId)).blobKey).toBe(won[0]!.value.blobKey)
      const commits = yield* Effect.all(
        Array.from({ length: 6 }, (_, i) => tickets.markCommitted({ uploadId, now: at(T0 + 100 + i) })),
        { concurrency: "unbounded" }
      )
      expect(commits.filter(Option.isSome)).toHaveLength(1)
    }))

  it.effect("account pictures: set returns the URL replaced and updates the account; unknown account is none", () =>
    Effect.gen(function*() {
      const pictures = yield* AccountPictureRepo
      const accounts = yield* AccountsRepo
      const account = yield* withAccount()
      const first = yield* pictures.setPicture({ accountId: account.accountId, pictureUrl: "https://x.test/v1/files/a.png", now: at(T0 + 10) })
      expect(Option.getOrThrow(first)).toEqual({ previous: null })
      const second = yield* pictures.setPicture({ accountId: account.accountId, pictureUrl: "https://x.test/v1/files/b.png", now: at(T0 + 20) })
      expect(Option.getOrThrow(second)).toEqual({ previous: "https://x.test/v1/files/a.png" })
      const stored = Option.getOrThrow(yield* accounts.findById(account.accountId))
      expect(stored).toEqual({ ...account, pictureUrl: "https://x.test/v1/files/b.png", updatedAt: at(T0 + 20) })
      const reset = yield* pictures.setPicture({ accountId: account.accountId, pictureUrl: null, now: at(T0 + 30) })
      expect(Option.getOrThrow(reset)).toEqual({ previous: "https://x.test/v1/files/b.png" })
      expect(Option.getOrThrow(yield* accounts.findById(account.accountId)).pictureUrl).toBeNull()
      const ghost = AccountId.make(formatTypeId(IdKinds.account, uuidv7Bytes(T0, new Uint8Array(10).fill(7))))
      expect(Option.isNone(yield* pictures.setPicture({ accountId: ghost, pictureUrl: null, now: at(T0) }))).toBe(true)
    }))

  it.effect("account pictures: concurrent sets each learn a distinct previous URL (no lost replacement)", () =>
    Effect.gen(function*() {
      const pictures = yield* AccountPictureRepo
      const tx = yield* Transactor
      const account = yield* withAccount("https://x.test/v1/files/start.png")
      const urls = Array.from({ length: 5 }, (_, i) => `https://x.test/v1/files/p${i}.png`)
      const results = yield* Effect.all(
        urls.map((pictureUrl, i) => tx.withTransaction(pictures.setPicture({ accountId: account.accountId, pictureUrl, now: at(T0 + i) }))),
        { concurrency: "unbounded" }
      )
      const previous = results.map((r) => Option.getOrThrow(r).previous)
      // The replaced URLs form a chain: the start and all but one of the new ones, each exactly once.
      expect(new Set(previous).size).toBe(urls.length)
      expect(previous).toContain("https://x.test/v1/files/start.png")
      const final = Option.getOrThrow(yield* (yield* AccountsRepo).findById(account.accountId)).pictureUrl
      expect(previous).not.toContain(final)
    }))

  it.effect("a failed transaction rolls back the commit of a ticket and the picture it set", () =>
    Effect.gen(function*() {
      const tickets = yield* UploadTicketsRepo
      const pictures = yield* AccountPictureRepo
      const tx = yield* Transactor
      const account = yield* withAccount()
      const ticket = ticketFixture({ state: "received", blobKey: "k.png", byteSize: 10, receivedAt: at(T0 + 1) })
      yield* tickets.insert(ticket)
      const result = yield* Effect.result(tx.withTransaction(Effect.gen(function*() {
        yield* tickets.markCommitted({ uploadId: ticket.uploadId, now: at(T0 + 2) })
        yield* pictures.setPicture({ accountId: account.accountId, pictureUrl: "https://x.test/v1/files/k.png", now: at(T0 + 2) })
        return yield* Effect.fail("boom" as const)
      })))
      expect(Result.isFailure(result)).toBe(true)
      expect(Option.getOrThrow(yield* tickets.findById(ticket.uploadId)).state).toBe("received")
      expect(Option.getOrThrow(yield* (yield* AccountsRepo).findById(account.accountId)).pictureUrl).toBeNull()
    }))
}
