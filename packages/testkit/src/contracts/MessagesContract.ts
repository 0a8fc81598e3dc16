/**
 * The messages context's part of the repository contract suite: records written by a batch read
 * back whole and per project, lists newest first with the filters and the cursor, a batch's read of
 * messages and of the project's applied fact ids (scoped per project), a taken message id or fact
 * id answering false, concurrent batches serialising on the messages' row locks (no lost update),
 * and a rolled-back transaction leaving nothing behind.
 */
import type { Vitest } from "@effect/vitest"
import type { StorePorts } from "@switchboard/core"
import {
  type AppliedMessageFact,
  applyFact,
  type Message,
  MessageFact,
  MessagesRepo
} from "@switchboard/core/messages"
import { formatTypeId, IdKinds, Transactor, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Effect, Result, Option, Schema } from "effect"
import { expect } from "vitest"
import { ProjectsRepo } from "@switchboard/core/projects"
import { ownerAndOrganization, projectFixture } from "./ProjectsContract.js"

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
const rand = () => crypto.getRandomValues(new Uint8Array(10))
const newMessageId = (ms = T0) => formatTypeId(IdKinds.message, uuidv7Bytes(ms, rand()))

const newProject = Effect.gen(function*() {
  const project = projectFixture(yield* ownerAndOrganization)
  yield* (yield* ProjectsRepo).insert({ project, secretHash: "0".repeat(64) })
  return project.projectId as string
})

const fact = (messageId: string, id: string, type: string, ms: number, data: unknown) =>
  Schema.decodeUnknownSync(MessageFact)({ id, messageId, type, timestamp: new Date(ms).toISOString(), data })

const created = (platform: string) => ({
  platform,
  space: { id: "space-1", type: "direct" },
  sentBy: { id: formatTypeId(IdKinds.user, uuidv7Bytes(T0, rand())), handle: "+15550100" },
  content: { type: "text", text: "hello" },
  metadata: { k: "v" }
})

/** A message after `steps` (built by the reducer, so it is a valid record), with the facts applied. */
export const messageFixture = (
  projectId: string,
  ms: number,
  steps: ReadonlyArray<"accepted" | "delivered" | "failed"> = [],
  platform = "sms"
): { readonly message: Message; readonly facts: ReadonlyArray<AppliedMessageFact> } => {
  const messageId = newMessageId(ms)
  const all = [
    fact(messageId, `${messageId}:dispatched`, "dispatched", ms, created(platform)),
    ...steps.map((s, i) =>
      fact(messageId, `${messageId}:${s}`, s, ms + i + 1, s === "accepted"
        ? { acceptance: { providerMessageId: "SM1" } }
        : s === "failed"
        ? { failure: { code: "provider_rejected" } }
        : {})
    )
  ]
  let message: Message | undefined
  const facts: Array<AppliedMessageFact> = []
  for (const f of all) {
    const d = applyFact(projectId, message, f, () => false)
    if (d.outcome !== "applied") throw new Error(`fixture fact ${f.type} was ${d.outcome}: ${d.reason}`)
    message = d.message
    facts.push({
      factId: f.id,
      messageId,
      platform,
      direction: "addressed",
      type: f.type,
      status: d.message.status,
      occurredAt: f.timestamp
    })
  }
  return { message: message!, facts }
}

export const messagesContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("messages: a batch's records read back whole, per project; lists newest first with filters and cursor", () =>
    Effect.gen(function*() {
      const repo = yield* MessagesRepo
      const tx = yield* Transactor
      const projectId = yield* newProject
      const other = yield* newProject
      const a = messageFixture(projectId, T0, ["accepted"])
      const b = messageFixture(projectId, T0 + 1000, [], "imessage")
      const c = messageFixture(projectId, T0 + 2000, ["accepted", "delivered"])
      const written = yield* tx.withTransaction(repo.writeBatch({
        projectId,
        created: [a.message, b.message, c.message],
        updated: [],
        facts: [...a.facts, ...b.facts, ...c.facts],
        recordedAt: at(T0 + 5000)
      }))
      expect(written).toBe(true)
      expect(yield* repo.find(projectId, a.message.id)).toEqual(Option.some(a.message))
      expect(yield* repo.find(other, a.message.id)).toEqual(Option.none())
      const ids = (ms: ReadonlyArray<Message>) => ms.map((m) => m.id)
      const base = { projectId, platform: undefined, status: undefined, createdAfter: undefined, createdBefore: undefined, after: undefined, limit: 10 }
      expect(ids(yield* repo.list(base))).toEqual([c.message.id, b.message.id, a.message.id])
      expect(ids(yield* repo.list({ ...base, platform: "imessage" }))).toEqual([b.message.id])
      expect(ids(yield* repo.list({ ...base, status: "accepted" }))).toEqual([a.message.id])
      expect(ids(yield* repo.list({ ...base, createdAfter: at(T0), createdBefore: at(T0 + 2000) }))).toEqual([b.message.id])
      expect(ids(yield* repo.list({ ...base, limit: 1 }))).toEqual([c.message.id])
      expect(ids(yield* repo.list({ ...base, after: { createdAt: c.message.createdAt, messageId: c.message.id } })))
        .toEqual([b.message.id, a.message.id])
      expect(yield* repo.list({ ...base, projectId: other })).toEqual([])
    }))

  it.effect("message batches: one read of messages and applied fact ids (per project); a changed record is written; a taken message or fact id answers false", () =>
    Effect.gen(function*() {
      const repo = yield* MessagesRepo
      const tx = yield* Transactor
      const projectId = yield* newProject
      const other = yield* newProject
      const a = messageFixture(projectId, T0)
      expect(yield* tx.withTransaction(repo.writeBatch({ projectId, created: [a.message], updated: [], facts: a.facts, recordedAt: at(T0) })))
        .toBe(true)
      const loaded = yield* tx.withTransaction(repo.loadBatch({
        projectId,
        messageIds: [a.message.id, "sb_msg_00000000000000000000000000"],
        factIds: [a.facts[0]!.factId, "unknown-fact"]
      }))
      expect([...loaded.messages.entries()]).toEqual([[a.message.id, a.message]])
      expect([...loaded.applied]).toEqual([a.facts[0]!.factId])
      const elsewhere = yield* tx.withTransaction(repo.loadBatch({ projectId: other, messageIds: [a.message.id], factIds: [a.facts[0]!.factId] }))
      expect(elsewhere.messages.size).toBe(0)
      expect(elsewhere.applied.size).toBe(0)
      // The same message and fact ids in another project are another message and other facts.
      expect(yield* tx.withTransaction(repo.writeBatch({ projectId: other, created: [{ ...a.message, projectId: other } as Message], updated: [], facts: a.facts, recordedAt: at(T0) })))
        .toBe(true)
      // A change: the record and its fact.
      const accepted = applyFact(projectId, a.message, fact(a.message.id, "acc", "accepted", T0 + 10, { acceptance: { providerMessageId: null } }), () => false)
      if (accepted.outcome !== "applied") throw new Error("not applied")
      const accFact: AppliedMessageFact = { ...a.facts[0]!, factId: "acc", type: "accepted", status: "accepted", occurredAt: at(T0 + 10) }
      expect(yield* tx.withTransaction(repo.writeBatch({ projectId, created: [], updated: [accepted.message], facts: [accFact], recordedAt: at(T0) })))
        .toBe(true)
      expect(yield* repo.find(projectId, a.message.id)).toEqual(Option.some(accepted.message))
      // Taken ids: false (the caller rolls back).
      const again = yield* Effect.result(tx.withTransaction(Effect.gen(function*() {
        const ok = yield* repo.writeBatch({ projectId, created: [a.message], updated: [], facts: [], recordedAt: at(T0) })
        return ok ? ok : yield* Effect.fail("taken" as const)
      })))
      expect(again).toEqual(Result.fail("taken"))
      const b = messageFixture(projectId, T0 + 50)
      const reused = yield* Effect.result(tx.withTransaction(Effect.gen(function*() {
        const ok = yield* repo.writeBatch({ projectId, created: [b.message], updated: [], facts: [{ ...b.facts[0]!, factId: "acc" }], recordedAt: at(T0) })
        return ok ? ok : yield* Effect.fail("taken" as const)
      })))
      expect(reused).toEqual(Result.fail("taken"))
      expect(yield* repo.find(projectId, b.message.id)).toEqual(Option.none())
      expect(yield* repo.find(projectId, a.message.id)).toEqual(Option.some(accepted.message))
    }))

  it.effect("message batches: concurrent batches on one message serialise on its row lock; concurrent creates make one message; a rollback leaves nothing", () =>
    Effect.gen(function*() {
      const repo = yield* MessagesRepo
      const tx = yield* Transactor
      const projectId = yield* newProject
      const a = messageFixture(projectId, T0)
      const create = tx.withTransaction(repo.writeBatch({ projectId, created: [a.message], updated: [], facts: a.facts, recordedAt: at(T0) }))
      const creates = yield* Effect.all([create, create, create], { concurrency: "unbounded" })
      expect(creates.filter(Boolean)).toHaveLength(1)
      // Each read-decide-write under the lock: exactly one of the competing `accepted` facts applies.
      const accept = (i: number) =>
        tx.withTransaction(Effect.gen(function*() {
          const loaded = yield* repo.loadBatch({ projectId, messageIds: [a.message.id], factIds: [`acc-${i}`] })
          yield* Effect.sleep("5 millis")
          const d = applyFact(projectId, loaded.messages.get(a.message.id), fact(a.message.id, `acc-${i}`, "accepted", T0 + 10 + i, {
            acceptance: { providerMessageId: `p${i}` }
          }), (id) => loaded.applied.has(id))
          if (d.outcome !== "applied") return d.outcome
          const ok = yield* repo.writeBatch({
            projectId,
            created: [],
            updated: [d.message],
            facts: [{ ...a.facts[0]!, factId: `acc-${i}`, type: "accepted", status: "accepted", occurredAt: at(T0 + 10 + i) }],
            recordedAt: at(T0)
          })
          return ok ? "applied" : "raced"
        }))
      const outcomes = yield* Effect.all([0, 1, 2, 3].map(accept), { concurrency: "unbounded" })
      expect(outcomes.filter((o) => o === "applied")).toHaveLength(1)
      expect(outcomes.filter((o) => o === "ignored")).toHaveLength(3)
      const after = Option.getOrThrow(yield* repo.find(projectId, a.message.id))
      expect(after.status).toBe("accepted")
      // A failed transaction: neither the record change nor the fact stays.
      const failed = yield* Effect.result(tx.withTransaction(Effect.gen(function*() {
        const d = applyFact(projectId, after, fact(a.message.id, "dlv", "delivered", T0 + 100, {}), () => false)
        if (d.outcome !== "applied") throw new Error("not applied")
        yield* repo.writeBatch({
          projectId,
          created: [],
          updated: [d.message],
          facts: [{ ...a.facts[0]!, factId: "dlv", type: "delivered", status: "delivered", occurredAt: at(T0 + 100) }],
          recordedAt: at(T0)
        })
        return yield* Effect.fail("boom" as const)
      })))
      expect(Result.isFailure(failed)).toBe(true)
      expect(yield* repo.find(projectId, a.message.id)).toEqual(Option.some(after))
      expect((yield* repo.loadBatch({ projectId, messageIds: [], factIds: ["dlv"] })).applied.size).toBe(0)
    }))
}
