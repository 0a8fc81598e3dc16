/**
 * WhatsApp's and the filtered verification codes' part of the repository contract suite: the WABA
 * connection per project (upsert replaces, remove), shared-line assignments (one unreleased per
 * handle and project, release once, list order, filter and cursor, seat count), filtered-code
 * records (window bounds exclusive, resource and platform filters, newest first with a cursor, the
 * newest WhatsApp ownership code), a rolled-back transaction, and core's simulated WhatsApp provider.
 */
import type { Vitest } from "@effect/vitest"
import type { StorePorts } from "@switchboard/core"
import {
  type FilteredCodeRecord,
  type SharedAssignmentRecord,
  VerificationCodesRepo,
  type WhatsappAccountRecord,
  WhatsappAccountsRepo,
  WhatsappAssignmentsRepo,
  WhatsappProvider
} from "@switchboard/core/platforms"
import { defaultSimulatedWhatsappSettings, makeSimulatedWhatsapp } from "../simulated/index.js"
import { formatTypeId, IdKinds, Transactor, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect, Result, Option } from "effect"
import { expect } from "vitest"
import { ownerAndOrganization, projectFixture } from "./ProjectsContract.js"
import { ProjectsRepo } from "@switchboard/core/projects"

const T0 = Date.parse("2030-03-01T00:00:00.000Z")
const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
const id = (kind: (typeof IdKinds)[keyof typeof IdKinds], ms = T0) =>
  formatTypeId(kind, uuidv7Bytes(ms, crypto.getRandomValues(new Uint8Array(10))))

const newProject = Effect.gen(function*() {
  const project = projectFixture(yield* ownerAndOrganization)
  yield* (yield* ProjectsRepo).insert({ project, secretHash: "0".repeat(64) })
  return project.projectId as string
})

const accountFixture = (projectId: string, patch: Partial<WhatsappAccountRecord> = {}): WhatsappAccountRecord => ({
  projectId,
  wabaId: "waba-1",
  businessId: "biz-1",
  businessName: "Biz",
  accountName: null,
  reviewStatus: "APPROVED",
  outboundCapacity: "1000",
  maxPhoneNumbersPerBusiness: 20,
  state: "connected",
  connectedAt: at(T0),
  subscribedAt: null,
  updatedAt: at(T0),
  ...patch
})

const assignment = (projectId: string, ms: number, handle: string): SharedAssignmentRecord => ({
  assignmentId: id(IdKinds.assignment, ms),
  projectId,
  handle,
  assignedPhoneNumber: "+14155550200",
  email: ms % 2 === 0 ? "a@example.com" : null,
  firstName: "Ada",
  lastName: null,
  createdAt: at(ms),
  updatedAt: at(ms),
  releasedAt: null
})

const code = (projectId: string, ms: number, patch: Partial<FilteredCodeRecord> = {}): FilteredCodeRecord => ({
  filteredCodeId: id(IdKinds.message, ms),
  projectId,
  resourceId: "sb_lin_a",
  platform: "sms",
  receivedAt: at(ms),
  whatsappCode: null,
  ...patch
})

export const whatsappContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("whatsapp accounts: one per project, upsert replaces, remove deletes", () =>
    Effect.gen(function*() {
      const repo = yield* WhatsappAccountsRepo
      const projectId = yield* newProject
      expect(Option.isNone(yield* repo.find(projectId))).toBe(true)
      const a = accountFixture(projectId)
      yield* repo.upsert(a)
      expect(Option.getOrThrow(yield* repo.find(projectId))).toEqual(a)
      const b = accountFixture(projectId, { state: "disconnecting", subscribedAt: at(T0 + 1), updatedAt: at(T0 + 2), maxPhoneNumbersPerBusiness: null })
      yield* repo.upsert(b)
      expect(Option.getOrThrow(yield* repo.find(projectId))).toEqual(b)
      yield* repo.remove(projectId)
      expect(Option.isNone(yield* repo.find(projectId))).toBe(true)
    }))

  it.effect("whatsapp assignments: one unreleased per handle; release once; list order, filter, cursor; seats", () =>
    Effect.gen(function*() {
      const repo = yield* WhatsappAssignmentsRepo
      const projectId = yield* newProject
      const other = yield* newProject
      const a = assignment(projectId, T0 + 1, "+14155550001")
      const b = assignment(projectId, T0 + 2, "+14155550002")
      yield* repo.insert(a)
      yield* repo.insert(b)
      yield* repo.insert(assignment(other, T0, "+14155550001"))
      const twice = yield* Effect.result(repo.insert(assignment(projectId, T0 + 3, "+14155550001")))
      expect(Result.isFailure(twice) && twice.failure._tag).toBe("AssignmentHandleTaken")
      expect(yield* repo.handleTaken(projectId, "+14155550001")).toBe(true)
      expect(yield* repo.handleTaken(projectId, "+14155550009")).toBe(false)
      expect(Option.getOrThrow(yield* repo.find(projectId, a.assignmentId))).toEqual(a)
      expect(Option.isNone(yield* repo.find(other, a.assignmentId))).toBe(true)
      expect(yield* repo.countActive(projectId)).toBe(2)
      const released = Option.getOrThrow(yield* repo.release({ projectId, assignmentId: a.assignmentId, now: at(T0 + 9) }))
      expect(released).toEqual({ ...a, releasedAt: at(T0 + 9), updatedAt: at(T0 + 9) })
      expect(Option.isNone(yield* repo.release({ projectId, assignmentId: a.assignmentId, now: at(T0 + 10) }))).toBe(true)
      // Released, the handle is free again (in this project; the other project's stays taken).
      expect(yield* repo.handleTaken(projectId, "+14155550001")).toBe(false)
      expect(yield* repo.handleTaken(other, "+14155550001")).toBe(true)
      expect(yield* repo.countActive(projectId)).toBe(1)
      const again = assignment(projectId, T0 + 4, "+14155550001")
      yield* repo.insert(again)
      const ids = (rows: ReadonlyArray<SharedAssignmentRecord>) => rows.map((r) => r.assignmentId)
      expect(ids(yield* repo.list({ projectId, includeReleased: false, limit: 10 }))).toEqual([b.assignmentId, again.assignmentId])
      expect(ids(yield* repo.list({ projectId, includeReleased: true, limit: 10 }))).toEqual([a.assignmentId, b.assignmentId, again.assignmentId])
      expect(ids(yield* repo.list({ projectId, includeReleased: true, limit: 1, after: { createdAt: a.createdAt, assignmentId: a.assignmentId } })))
        .toEqual([b.assignmentId])
    }))

  it.effect("filtered codes: window bounds are exclusive; resource and platform filters; newest first with a cursor", () =>
    Effect.gen(function*() {
      const repo = yield* VerificationCodesRepo
      const projectId = yield* newProject
      const rows = [
        code(projectId, T0 + 10),
        code(projectId, T0 + 20, { platform: "whatsapp", resourceId: "sb_lin_b" }),
        code(projectId, T0 + 30),
        code(projectId, T0 + 30),
        code(yield* newProject, T0 + 25)
      ]
      for (const r of rows) yield* repo.insert(r)
      const window = { projectId, receivedAfter: at(T0 + 10), receivedBefore: at(T0 + 40) }
      expect(yield* repo.count(window)).toBe(3)
      expect(yield* repo.count({ ...window, receivedAfter: at(T0) })).toBe(4)
      expect(yield* repo.count({ ...window, platform: "whatsapp" })).toBe(1)
      expect(yield* repo.count({ ...window, resourceId: "sb_lin_a" })).toBe(2)
      const all = yield* repo.list({ ...window, receivedAfter: at(T0), limit: 10 })
      const sameTime = [rows[2]!, rows[3]!].map((r) => r.filteredCodeId).sort().reverse()
      expect(all.map((r) => r.filteredCodeId)).toEqual([...sameTime, rows[1]!.filteredCodeId, rows[0]!.filteredCodeId])
      const first = all[0]!
      const next = yield* repo.list({ ...window, receivedAfter: at(T0), limit: 2, before: { receivedAt: first.receivedAt, filteredCodeId: first.filteredCodeId } })
      expect(next.map((r) => r.filteredCodeId)).toEqual([sameTime[1], rows[1]!.filteredCodeId])
      expect(all[0]).toEqual(rows.find((r) => r.filteredCodeId === first.filteredCodeId))
    }))

  it.effect("filtered codes: the newest WhatsApp ownership code of a resource after a time", () =>
    Effect.gen(function*() {
      const repo = yield* VerificationCodesRepo
      const tx = yield* Transactor
      const projectId = yield* newProject
      yield* repo.insert(code(projectId, T0 + 1, { whatsappCode: "111111" }))
      yield* repo.insert(code(projectId, T0 + 2, { whatsappCode: "222222" }))
      yield* repo.insert(code(projectId, T0 + 3))
      yield* repo.insert(code(projectId, T0 + 4, { whatsappCode: "444444", resourceId: "sb_lin_other" }))
      expect(Option.getOrThrow(yield* repo.latestWhatsappCode({ projectId, resourceId: "sb_lin_a", after: at(T0) })))
        .toEqual({ code: "222222", receivedAt: at(T0 + 2) })
      expect(Option.isNone(yield* repo.latestWhatsappCode({ projectId, resourceId: "sb_lin_a", after: at(T0 + 2) }))).toBe(true)
      const rolledBack = code(projectId, T0 + 5, { whatsappCode: "555555" })
      yield* Effect.result(tx.withTransaction(Effect.andThen(repo.insert(rolledBack), Effect.fail("boom"))))
      expect(Option.getOrThrow(yield* repo.latestWhatsappCode({ projectId, resourceId: "sb_lin_a", after: at(T0) })).code).toBe("222222")
    }))

  it.effect("filtered codes from message facts: a fact id once per project; a taken one fails the whole write", () =>
    Effect.gen(function*() {
      const repo = yield* VerificationCodesRepo
      const tx = yield* Transactor
      const projectId = yield* newProject
      const other = yield* newProject
      const a = code(projectId, T0 + 1, { factId: "f-a" })
      const b = code(projectId, T0 + 2, { factId: "f-b", whatsappCode: "123456" })
      expect(yield* repo.insertFromFacts([])).toBe(true)
      expect(yield* repo.insertFromFacts([a, b])).toBe(true)
      // The same fact id in another project is another fact.
      expect(yield* repo.insertFromFacts([code(other, T0 + 1, { factId: "f-a" })])).toBe(true)
      expect([...(yield* repo.factsHeldBack(projectId, ["f-a", "f-b", "f-c"]))].sort()).toEqual(["f-a", "f-b"])
      expect([...(yield* repo.factsHeldBack(projectId, []))]).toEqual([])
      // A batch with a taken fact id answers false (the caller rolls its transaction back).
      const c = code(projectId, T0 + 3, { factId: "f-c" })
      const raced = yield* Effect.result(tx.withTransaction(Effect.flatMap(
        repo.insertFromFacts([c, code(projectId, T0 + 4, { factId: "f-a" })]),
        (ok) => ok ? Effect.succeed(ok) : Effect.fail("raced")
      )))
      expect(Result.isFailure(raced)).toBe(true)
      expect([...(yield* repo.factsHeldBack(projectId, ["f-c"]))]).toEqual([])
      const listed = yield* repo.list({ projectId, receivedAfter: at(T0), receivedBefore: at(T0 + 10), limit: 10 })
      expect(listed).toEqual([b, a])
      expect(Option.getOrThrow(yield* repo.latestWhatsappCode({ projectId, resourceId: "sb_lin_a", after: at(T0) })).code).toBe("123456")
    }))

  it.effect("simulated whatsapp provider: code exchange, senders, display names, pools and failures", () =>
    Effect.gen(function*() {
      const wa = yield* WhatsappProvider
      const info = yield* wa.exchangeCode({ code: "ok", wabaId: "w1", phoneNumberId: "pn-1234" })
      expect(info).toMatchObject({ businessId: "biz_w1", reviewStatus: "APPROVED", displayPhoneNumber: "+1 650-555-1234" })
      expect(Result.isFailure(yield* Effect.result(wa.exchangeCode({ code: "invalid-1", wabaId: "w1", phoneNumberId: "p" })))).toBe(true)
      expect(yield* wa.displayNameAvailable("Acme")).toBe(true)
      expect(yield* wa.displayNameAvailable("Taken Inc")).toBe(false)
      const { phoneNumberId } = yield* wa.registerSender({ wabaId: "w1", phoneNumber: "+16175550100", displayName: "Acme" })
      expect((yield* wa.listPhoneNumbers("w1")).map((n) => n.phoneNumberId)).toEqual(["pn-1234", phoneNumberId])
      yield* wa.deregisterSender({ wabaId: "w1", phoneNumberId })
      expect((yield* wa.listPhoneNumbers("w1")).map((n) => n.phoneNumberId)).toEqual(["pn-1234"])
      expect(Result.isFailure(yield* Effect.result(wa.listPhoneNumbers("broken-1")))).toBe(true)
      expect(yield* wa.sharedLines).toEqual(["+14155550200", "+14155550201", "+14155550202"])
      const line = Option.getOrThrow(yield* wa.allocateDedicatedLine({ projectId: "p", operationId: "o" }))
      expect(line.phoneNumber).toBe("+16285550100")
      yield* wa.releaseDedicatedLine(line.phoneNumber)
      expect(Option.getOrThrow(yield* wa.allocateDedicatedLine({ projectId: "p", operationId: "o" })).phoneNumber).toBe(line.phoneNumber)
      const none = yield* Effect.provide(WhatsappProvider, makeSimulatedWhatsapp({ delayMs: 0, fail: "never" }, { sharedLines: 0, dedicatedLines: 0 }))
      expect(yield* none.sharedLines).toEqual([])
      expect(Option.isNone(yield* none.allocateDedicatedLine({ projectId: "p", operationId: "o" }))).toBe(true)
      const failing = yield* Effect.provide(WhatsappProvider, makeSimulatedWhatsapp({ delayMs: 0, fail: "permanent" }))
      const failed = yield* Effect.result(failing.allocateDedicatedLine({ projectId: "p", operationId: "o" }))
      expect(Result.isFailure(failed) && failed.failure.retryable).toBe(false)
    }).pipe(Effect.provide(makeSimulatedWhatsapp({ delayMs: 0, fail: "never" }, defaultSimulatedWhatsappSettings))))
}
