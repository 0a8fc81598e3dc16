/**
 * The platforms feature's part of the repository contract suite: operations (whole records
 * round-trip, list filters and cursor, claims that lease due work once — also under concurrent
 * claimers — unfinished lookups), resources in the lines table (a voice line is a resource with
 * derived type and abilities, a bot is a resource the lines repository does not list, one active
 * holder per number and per subject, retirement keeps the row readable), transactions rolling back,
 * and core's simulated providers (inventory, release, capacity 0, failure settings).
 */
import type { Vitest } from "@effect/vitest"
import type { StorePorts } from "@switchboard/core"
import {
  CampaignRegistry,
  EmailDomainProvider,
  newOperation,
  NumberProvider,
  type OperationRecord,
  OperationsRepo,
  type ResourceRecord,
  ResourcesRepo,
  TelegramProvider
} from "@switchboard/core/platforms"
import { defaultSimulatedProviderSettings, makeSimulatedProviders } from "../simulated/index.js"
import { ProjectsRepo } from "@switchboard/core/projects"
import { formatTypeId, IdKinds, Transactor, uuidv7Bytes } from "@switchboard/core/shared"
import { LinesRepo } from "@switchboard/core/voice"
import { DateTime, Effect, Result, Option } from "effect"
import { expect } from "vitest"
import { ownerAndOrganization, projectFixture } from "./ProjectsContract.js"

const T0 = Date.parse("2030-02-01T00:00:00.000Z")
const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
const rand = () => crypto.getRandomValues(new Uint8Array(10))
const id = (kind: (typeof IdKinds)[keyof typeof IdKinds], ms = T0) => formatTypeId(kind, uuidv7Bytes(ms, rand()))
let seq = 0
const uniqueNumber = () => `+1888${String(Date.now() % 1_000_000).padStart(6, "0")}${String(++seq % 100).padStart(2, "0")}`

/** A fresh project of a fresh organization (the platform contracts' fixture). */
export const newProject = Effect.gen(function*() {
  const owner = yield* ownerAndOrganization
  const project = projectFixture(owner)
  yield* (yield* ProjectsRepo).insert({ project, secretHash: "0".repeat(64) })
  return project.projectId as string
})

const opFixture = (projectId: string, ms: number, patch: Partial<OperationRecord> = {}): OperationRecord => ({
  ...newOperation({
    operationId: id(IdKinds.operation, ms),
    projectId,
    type: "resource.provision",
    resourceType: "sms_number",
    params: { countryCode: "US", areaCode: "617" },
    now: at(ms)
  }),
  ...patch
})

const numberFixture = (projectId: string, ms: number, phoneNumber = uniqueNumber()): ResourceRecord => ({
  resourceId: id(IdKinds.line, ms),
  projectId,
  type: "sms_number",
  abilities: ["sms", "pstn_voice"],
  detail: { phoneNumber, countryCode: "US" },
  phoneNumber,
  state: "active",
  createdAt: at(ms),
  updatedAt: at(ms),
  retiredAt: null
})

export const platformsContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("operations: a whole record round-trips; updates replace the mutable fields", () =>
    Effect.gen(function*() {
      const repo = yield* OperationsRepo
      const projectId = yield* newProject
      const op = opFixture(projectId, T0)
      yield* repo.insert(op)
      expect(Option.getOrThrow(yield* repo.find(op.operationId))).toEqual(op)
      const done: OperationRecord = {
        ...op,
        state: "succeeded",
        committed: true,
        resourceId: "sb_lin_x",
        detail: { a: 1 },
        error: null,
        reason: "because",
        attempts: 2,
        startedAt: at(T0 + 1),
        endedAt: at(T0 + 2),
        updatedAt: at(T0 + 2)
      }
      yield* repo.update(done)
      expect(Option.getOrThrow(yield* repo.lock(op.operationId))).toEqual(done)
      expect(Option.isNone(yield* repo.find("sb_opr_unknown"))).toBe(true)
    }))

  it.effect("operations: list is oldest first with filters and a cursor", () =>
    Effect.gen(function*() {
      const repo = yield* OperationsRepo
      const projectId = yield* newProject
      const other = yield* newProject
      const a = opFixture(projectId, T0 + 1)
      const b = opFixture(projectId, T0 + 2, { state: "failed", endedAt: at(T0 + 10), resourceId: "sb_lin_b" })
      const c = opFixture(projectId, T0 + 3, { type: "resource.release", state: "succeeded", endedAt: at(T0 + 20) })
      for (const op of [c, a, b, opFixture(other, T0)]) yield* repo.insert(op)
      const ids = (rows: ReadonlyArray<OperationRecord>) => rows.map((r) => r.operationId)
      expect(ids(yield* repo.list({ projectId, limit: 10 }))).toEqual([a, b, c].map((o) => o.operationId))
      expect(ids(yield* repo.list({ projectId, limit: 10, states: ["pending", "failed"] }))).toEqual([a.operationId, b.operationId])
      expect(ids(yield* repo.list({ projectId, limit: 10, type: "resource.release" }))).toEqual([c.operationId])
      expect(ids(yield* repo.list({ projectId, limit: 10, resourceId: "sb_lin_b" }))).toEqual([b.operationId])
      expect(ids(yield* repo.list({ projectId, limit: 10, endedAfter: at(T0 + 15) }))).toEqual([c.operationId])
      expect(ids(yield* repo.list({ projectId, limit: 1, after: { createdAt: a.createdAt, operationId: a.operationId } })))
        .toEqual([b.operationId])
    }))

  it.effect("operations: a claim leases due unfinished work once; the lease running out frees it", () =>
    Effect.gen(function*() {
      const repo = yield* OperationsRepo
      const tx = yield* Transactor
      const projectId = yield* newProject
      const due = opFixture(projectId, T0)
      const later = opFixture(projectId, T0, { nextAttemptAt: at(T0 + 60_000) })
      const finished = opFixture(projectId, T0, { state: "succeeded", committed: true })
      for (const op of [due, later, finished]) yield* repo.insert(op)
      const claim = (now: number) => tx.withTransaction(repo.claimDue({ now: at(now), leaseUntil: at(now + 1000), limit: 10 }))
      const first = (yield* claim(T0 + 1)).filter((o) => o.projectId === projectId)
      expect(first.map((o) => [o.operationId, o.claimSeq])).toEqual([[due.operationId, 1]])
      expect((yield* claim(T0 + 2)).filter((o) => o.projectId === projectId)).toEqual([])
      const again = (yield* claim(T0 + 1001)).filter((o) => o.projectId === projectId)
      expect(again.map((o) => [o.operationId, o.claimSeq])).toEqual([[due.operationId, 2]])
      const all = (yield* claim(T0 + 70_000)).filter((o) => o.projectId === projectId).map((o) => o.operationId).sort()
      expect(all).toEqual([due.operationId, later.operationId].sort())
    }))

  it.effect("operations: concurrent claimers never hold the same operation", () =>
    Effect.gen(function*() {
      const repo = yield* OperationsRepo
      const tx = yield* Transactor
      const projectId = yield* newProject
      const mine = Array.from({ length: 12 }, (_, i) => opFixture(projectId, T0 - 1_000_000 + i))
      for (const op of mine) yield* repo.insert(op)
      const now = T0 + 5_000_000
      const claims = yield* Effect.all(
        Array.from({ length: 4 }, () => tx.withTransaction(repo.claimDue({ now: at(now), leaseUntil: at(now + 60_000), limit: 5 }))),
        { concurrency: "unbounded" }
      )
      const claimed = claims.flat().filter((o) => o.projectId === projectId).map((o) => o.operationId)
      expect(new Set(claimed).size).toBe(claimed.length)
    }))

  it.effect("operations: the unfinished one of a type, per project or per subject", () =>
    Effect.gen(function*() {
      const repo = yield* OperationsRepo
      const projectId = yield* newProject
      const domain = `d${Date.now()}${++seq}.example.com`
      const bot = opFixture(projectId, T0, { resourceType: "telegram_bot", params: {} })
      const mail = opFixture(projectId, T0, { resourceType: "email_domain", params: { domain } })
      yield* repo.insert(bot)
      yield* repo.insert({ ...mail, subject: domain })
      expect(Option.getOrThrow(yield* repo.findUnfinished({ projectId, resourceType: "telegram_bot" })).operationId)
        .toBe(bot.operationId)
      expect(Option.getOrThrow(yield* repo.findUnfinished({ resourceType: "email_domain", subject: domain })).operationId)
        .toBe(mail.operationId)
      yield* repo.update({ ...bot, state: "cancelled", endedAt: at(T0 + 1) })
      expect(Option.isNone(yield* repo.findUnfinished({ projectId, resourceType: "telegram_bot" }))).toBe(true)
    }))

  it.effect("operations: a rolled-back transaction stores nothing", () =>
    Effect.gen(function*() {
      const repo = yield* OperationsRepo
      const tx = yield* Transactor
      const projectId = yield* newProject
      const op = opFixture(projectId, T0)
      yield* Effect.result(tx.withTransaction(Effect.andThen(repo.insert(op), Effect.fail("boom"))))
      expect(Option.isNone(yield* repo.find(op.operationId))).toBe(true)
    }))

  it.effect("resources: numbers, bots and the voice feature's lines are one table", () =>
    Effect.gen(function*() {
      const repo = yield* ResourcesRepo
      const lines = yield* LinesRepo
      const projectId = yield* newProject
      const number = numberFixture(projectId, T0 + 1)
      yield* repo.insert(number)
      const bot: ResourceRecord = {
        ...numberFixture(projectId, T0 + 2),
        resourceId: id(IdKinds.resource, T0 + 2),
        type: "telegram_bot",
        abilities: ["telegram"],
        phoneNumber: null,
        detail: { botId: "b1" }
      }
      yield* repo.insert(bot)
      const voicePhone = uniqueNumber()
      const voiceLine = { lineId: id(IdKinds.line, T0 + 3), projectId, platform: "voice" as const, phoneNumber: voicePhone, voiceCapable: true, createdAt: at(T0 + 3) }
      yield* lines.insert(voiceLine)
      expect(Option.getOrThrow(yield* repo.find(projectId, number.resourceId))).toEqual(number)
      expect(Option.getOrThrow(yield* repo.find(projectId, voiceLine.lineId))).toMatchObject({
        type: "voice_line",
        abilities: ["pstn_voice"],
        phoneNumber: voicePhone,
        state: "active",
        detail: { phoneNumber: voicePhone }
      })
      // The sms number is a line too (voice profile assignments reach it); the bot is not.
      expect((yield* lines.listActive(projectId)).map((l) => l.lineId)).toEqual([number.resourceId, voiceLine.lineId])
      const all = yield* repo.list({ projectId, limit: 10 })
      expect(all.map((r) => r.resourceId)).toEqual([number.resourceId, bot.resourceId, voiceLine.lineId])
      expect((yield* repo.list({ projectId, limit: 10, type: "telegram_bot" })).map((r) => r.resourceId)).toEqual([bot.resourceId])
      expect((yield* repo.list({ projectId, limit: 10, ability: "pstn_voice" })).map((r) => r.resourceId))
        .toEqual([number.resourceId, voiceLine.lineId])
      expect((yield* repo.list({ projectId, limit: 1, after: { createdAt: number.createdAt, resourceId: number.resourceId } }))
        .map((r) => r.resourceId)).toEqual([bot.resourceId])
      expect(Option.isNone(yield* repo.find(yield* newProject, number.resourceId))).toBe(true)
    }))

  it.effect("resources: one active holder per number; retiring keeps the row readable and frees the number", () =>
    Effect.gen(function*() {
      const repo = yield* ResourcesRepo
      const projectId = yield* newProject
      const number = numberFixture(projectId, T0)
      yield* repo.insert(number)
      const twice = yield* Effect.result(repo.insert(numberFixture(yield* newProject, T0, number.phoneNumber!)))
      expect(Result.isFailure(twice) && twice.failure._tag).toBe("ResourceNumberTaken")
      const retired = Option.getOrThrow(yield* repo.retire({ projectId, resourceId: number.resourceId, now: at(T0 + 5) }))
      expect(retired).toMatchObject({ state: "retired", retiredAt: at(T0 + 5), updatedAt: at(T0 + 5) })
      expect(Option.isNone(yield* repo.retire({ projectId, resourceId: number.resourceId, now: at(T0 + 6) }))).toBe(true)
      expect(Option.getOrThrow(yield* repo.find(projectId, number.resourceId)).state).toBe("retired")
      expect((yield* repo.list({ projectId, limit: 10, states: ["active"] }))).toEqual([])
      expect((yield* repo.list({ projectId, limit: 10, states: ["retired"] })).length).toBe(1)
      yield* repo.insert(numberFixture(projectId, T0 + 7, number.phoneNumber!))
    }))

  it.effect("resources: the detail of an active resource is replaced whole; a retired one is left alone", () =>
    Effect.gen(function*() {
      const repo = yield* ResourcesRepo
      const projectId = yield* newProject
      const number = numberFixture(projectId, T0)
      yield* repo.insert(number)
      const detail = { ...number.detail, campaign: { id: "c1", organizationId: "o" }, campaignVersion: 2 }
      const updated = Option.getOrThrow(yield* repo.updateDetail({ projectId, resourceId: number.resourceId, detail, now: at(T0 + 9) }))
      expect(updated).toMatchObject({ detail, updatedAt: at(T0 + 9), type: "sms_number", abilities: ["sms", "pstn_voice"] })
      expect(Option.getOrThrow(yield* repo.find(projectId, number.resourceId)).detail).toEqual(detail)
      yield* repo.retire({ projectId, resourceId: number.resourceId, now: at(T0 + 10) })
      expect(Option.isNone(yield* repo.updateDetail({ projectId, resourceId: number.resourceId, detail: {}, now: at(T0 + 11) }))).toBe(true)
    }))

  it.effect("simulated campaign registry: named campaigns, capacity per campaign, detach frees a place", () =>
    Effect.gen(function*() {
      const registry = yield* CampaignRegistry
      const ready = Option.getOrThrow(yield* registry.find({ campaignId: "camp1", organizationId: "org" }))
      expect(ready).toEqual({ campaignId: "camp1", organizationId: "org", status: "ready", capacity: 2 })
      expect(Option.isNone(yield* registry.find({ campaignId: "missing-1", organizationId: "org" }))).toBe(true)
      expect(Option.getOrThrow(yield* registry.find({ campaignId: "pending-1", organizationId: "org" })).status).toBe("pending")
      expect(Option.getOrThrow(yield* registry.find({ campaignId: "foreign-1", organizationId: "org" })).organizationId).not.toBe("org")
      expect(yield* registry.attach({ campaignId: "camp1", phoneNumber: "+1" })).toBe(true)
      expect(yield* registry.attach({ campaignId: "camp1", phoneNumber: "+2" })).toBe(true)
      expect(yield* registry.attach({ campaignId: "camp1", phoneNumber: "+3" })).toBe(false)
      expect(yield* registry.attach({ campaignId: "camp1", phoneNumber: "+2" })).toBe(true)
      yield* registry.detach({ campaignId: "camp1", phoneNumber: "+1" })
      expect(yield* registry.attach({ campaignId: "camp1", phoneNumber: "+3" })).toBe(true)
      expect(yield* registry.attach({ campaignId: "full-1", phoneNumber: "+1" })).toBe(false)
    }).pipe(Effect.provide(makeSimulatedProviders())))

  it.effect("resources: one live resource per subject", () =>
    Effect.gen(function*() {
      const repo = yield* ResourcesRepo
      const projectId = yield* newProject
      const domain = `s${Date.now()}${++seq}.example.com`
      const mail = (ms: number): ResourceRecord & { subject: string } => ({
        ...numberFixture(projectId, ms),
        resourceId: id(IdKinds.resource, ms),
        type: "email_domain",
        abilities: ["email"],
        phoneNumber: null,
        detail: { domain },
        subject: domain
      })
      const first = mail(T0)
      yield* repo.insert(first)
      expect(Option.getOrThrow(yield* repo.findActiveBySubject("email_domain", domain)).resourceId).toBe(first.resourceId)
      expect(Result.isFailure(yield* Effect.result(repo.insert(mail(T0 + 1))))).toBe(true)
      yield* repo.retire({ projectId, resourceId: first.resourceId, now: at(T0 + 2) })
      expect(Option.isNone(yield* repo.findActiveBySubject("email_domain", domain))).toBe(true)
    }))

  it.effect("simulated providers: numbers in order per area code, released ones first, capacity and failures", () =>
    Effect.gen(function*() {
      const numbers = yield* NumberProvider
      expect(yield* numbers.areaCodes("US")).toEqual([...defaultSimulatedProviderSettings.areaCodes].sort())
      const a = Option.getOrThrow(yield* numbers.purchase({ countryCode: "US", areaCode: "617" }))
      const b = Option.getOrThrow(yield* numbers.purchase({ countryCode: "US", areaCode: "617" }))
      expect([a.phoneNumber, b.phoneNumber]).toEqual(["+16175550100", "+16175550101"])
      yield* numbers.release(a.phoneNumber)
      expect(Option.getOrThrow(yield* numbers.purchase({ countryCode: "US", areaCode: "617" })).phoneNumber).toBe(a.phoneNumber)
      expect(Option.isNone(yield* numbers.purchase({ countryCode: "US", areaCode: "999" }))).toBe(true)
      const bot = yield* (yield* TelegramProvider).createBot({ projectId: "p", operationId: "o" })
      expect(bot.setupUrl).toContain("?start=o")
      const mail = yield* EmailDomainProvider
      expect((yield* mail.register("example.com")).length).toBe(3)
      expect(yield* mail.verify("example.com")).toBe(false)
      expect(yield* mail.verify("example.com")).toBe(true)
    }).pipe(Effect.provide(makeSimulatedProviders())))

  it.effect("simulated providers: an empty inventory has nothing; failure settings fail", () =>
    Effect.gen(function*() {
      const empty = yield* Effect.provide(NumberProvider, makeSimulatedProviders({ ...defaultSimulatedProviderSettings, numbersPerAreaCode: 0 }))
      expect(Option.isNone(yield* empty.purchase({ countryCode: "US" }))).toBe(true)
      const failing = yield* Effect.provide(NumberProvider, makeSimulatedProviders({ ...defaultSimulatedProviderSettings, fail: "transient" }))
      const failed = yield* Effect.result(failing.purchase({ countryCode: "US" }))
      expect(Result.isFailure(failed) && failed.failure.retryable).toBe(true)
    }))
}
