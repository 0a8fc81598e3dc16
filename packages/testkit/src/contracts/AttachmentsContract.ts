/**
 * Attachments' part of the repository contract suite: whole records round-trip per project,
 * `processing` → `ready` once, the list's time filters (since inclusive, before exclusive), both
 * orders by creation or update time with a cursor in that order, and rollback.
 */
import type { Vitest } from "@effect/vitest"
import type { StorePorts } from "@switchboard/core"
import { type AttachmentRecord, AttachmentsRepo } from "@switchboard/core/platforms"
import { formatTypeId, IdKinds, Transactor, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect, Result, Option } from "effect"
import { expect } from "vitest"
import { newProject } from "./PlatformsContract.js"

const T0 = Date.parse("2030-04-01T00:00:00.000Z")
const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
const attachmentId = (ms: number) => formatTypeId(IdKinds.attachment, uuidv7Bytes(ms, crypto.getRandomValues(new Uint8Array(10))))

const fixture = (projectId: string, created: number, updated = created, patch: Partial<AttachmentRecord> = {}): AttachmentRecord => {
  const id = attachmentId(created)
  return {
    attachmentId: id, projectId, contentType: "image/png", size: 3_000_000_000, state: "ready", blobKey: `${id}.bin`,
    createdAt: at(created), updatedAt: at(updated), ...patch
  }
}

export const attachmentsContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("attachments: round-trip per project; processing becomes ready once", () =>
    Effect.gen(function*() {
      const repo = yield* AttachmentsRepo
      const projectId = yield* newProject
      const other = yield* newProject
      const a = fixture(projectId, T0)
      yield* repo.insert(a)
      expect(Option.getOrThrow(yield* repo.find(projectId, a.attachmentId))).toEqual(a)
      expect(Option.isNone(yield* repo.find(other, a.attachmentId))).toBe(true)
      const p = fixture(projectId, T0 + 1, T0 + 1, { state: "processing", blobKey: null, size: 0, contentType: "video/mp4" })
      yield* repo.insert(p)
      const ready = Option.getOrThrow(yield* repo.markReady({ attachmentId: p.attachmentId, blobKey: "k.bin", size: 12, now: at(T0 + 9) }))
      expect(ready).toEqual({ ...p, state: "ready", blobKey: "k.bin", size: 12, updatedAt: at(T0 + 9) })
      expect(Option.isNone(yield* repo.markReady({ attachmentId: p.attachmentId, blobKey: "x.bin", size: 1, now: at(T0 + 10) }))).toBe(true)
      expect(Option.isNone(yield* repo.markReady({ attachmentId: "sb_att_unknown", blobKey: "x.bin", size: 1, now: at(T0 + 10) }))).toBe(true)
    }))

  it.effect("attachments: list filters by time, orders either way by either time, with a cursor", () =>
    Effect.gen(function*() {
      const repo = yield* AttachmentsRepo
      const projectId = yield* newProject
      // created 0..3; updated in the reverse order
      const rows = [0, 1, 2, 3].map((i) => fixture(projectId, T0 + i * 10, T0 + 100 - i * 10))
      for (const r of rows) yield* repo.insert(r)
      const ids = (xs: ReadonlyArray<AttachmentRecord>) => xs.map((x) => rows.indexOf(rows.find((r) => r.attachmentId === x.attachmentId)!))
      const list = (args: Partial<Parameters<typeof repo.list>[0]>) =>
        repo.list({ projectId, orderBy: "createdAt", order: "asc", limit: 10, ...args })
      expect(ids(yield* list({}))).toEqual([0, 1, 2, 3])
      expect(ids(yield* list({ order: "desc" }))).toEqual([3, 2, 1, 0])
      expect(ids(yield* list({ orderBy: "updatedAt" }))).toEqual([3, 2, 1, 0])
      expect(ids(yield* list({ orderBy: "updatedAt", order: "desc" }))).toEqual([0, 1, 2, 3])
      expect(ids(yield* list({ createdSince: T0 + 10, createdBefore: T0 + 30 }))).toEqual([1, 2])
      expect(ids(yield* list({ updatedSince: T0 + 80, updatedBefore: T0 + 100 }))).toEqual([1, 2])
      expect(ids(yield* list({ after: { t: T0 + 10, id: rows[1]!.attachmentId }, limit: 1 }))).toEqual([2])
      expect(ids(yield* list({ order: "desc", after: { t: T0 + 20, id: rows[2]!.attachmentId } }))).toEqual([1, 0])
      expect(ids(yield* list({ orderBy: "updatedAt", after: { t: T0 + 80, id: rows[2]!.attachmentId } }))).toEqual([1, 0])
      expect(yield* repo.list({ projectId: yield* newProject, orderBy: "createdAt", order: "asc", limit: 10 })).toEqual([])
    }))

  it.effect("attachments: a failed transaction stores nothing", () =>
    Effect.gen(function*() {
      const repo = yield* AttachmentsRepo
      const tx = yield* Transactor
      const projectId = yield* newProject
      const a = fixture(projectId, T0)
      expect(Result.isFailure(yield* Effect.result(tx.withTransaction(Effect.andThen(repo.insert(a), Effect.fail("boom")))))).toBe(true)
      expect(Option.isNone(yield* repo.find(projectId, a.attachmentId))).toBe(true)
    }))
}
