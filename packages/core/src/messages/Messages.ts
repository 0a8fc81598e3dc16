/**
 * Messages (docs/messages.md): message records from the messaging edge's lifecycle facts, and their
 * reads.
 *
 * - **Ingestion** is set-based, like call signals (voice/CallIngest.ts): a batch of 1–100 facts in
 *   one transaction — one read of the batch's messages (rows locked, in id order) and of which of
 *   its fact ids the project has applied; every fact decided in order by the pure reducer
 *   (`applyFact` over `MessageMachine.apply`) on the records in memory; one write of new and
 *   changed records and of the applied facts (the event log the SQL query operation reads); one
 *   append of the `message.*` events to the outbox. Ignored and rejected facts write nothing.
 * - **Filtered verification codes** (docs/provisioning.md): a `received` fact naming a resource the
 *   project holds (`data.resourceId`; one it does not hold is rejected `unknown-resource`; one
 *   whose type does not fit the platform, `messageResourceTypes`, refuses the batch) whose text
 *   carries a one-time code is held back — recorded through `VerificationCodes` in the same
 *   transaction (never the code, but for a WhatsApp ownership code), no message record, no event;
 *   the fact is `applied` with the `filteredCodeId`. Its fact id is applied once like any other
 *   (the filtered-code record keeps it). Should another transaction create one of the batch's new
 *   messages or apply one of its fact ids meanwhile, the batch is rolled back and decided again on
 *   what is then stored — the same results, records and events as one fact at a time
 *   (V1MessagesBatch.test.ts).
 * - **Inbound media**: a `received` fact whose attachment content names media the project has no
 *   attachment for records its attachment (`processing`, of the declared type and size; id
 *   `incomingAttachmentId`, so the same media is one attachment) in the batch's transaction, and
 *   the message names that attachment; the edge then delivers the bytes (`Attachments.deliver`).
 * - **Reads**: one message, and the project's messages newest first with filters (platform,
 *   status, creation time) and signed cursor tokens.
 */
import { Context, Data, DateTime, Effect, Layer, Option } from "effect"
import type { Principal } from "../credentials/Access.js"
import { EventPublisher } from "../events/EventsFeature.js"
import { fn } from "../internal/Traced.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { canonicalJson } from "../shared/Idempotency.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { createdAtPage } from "../shared/PageToken.js"
import { Transactor } from "../shared/Ports.js"
import { inboundTextOf, VerificationCodes } from "../platforms/VerificationCodes.js"
import type { FilteredCodeRecord } from "../platforms/WhatsappPorts.js"
import { incomingAttachmentId, incomingAttachmentRecord } from "../platforms/Attachments.js"
import { AttachmentsRepo } from "../platforms/AttachmentsPorts.js"
import type { AttachmentRecord } from "../platforms/AttachmentsSchema.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { InvalidMessageQuery, MessageNotFound, MessageResourceMismatch } from "./Errors.js"
import { applyFact, encodeMessage, messageEventSource, resultOf } from "./MessageRecords.js"
import { type Message, type MessageFact, type MessageFactResult, type MessageStatus, resourceTypesOf } from "./MessageSchema.js"
import { type AppliedMessageFact, MessagesRepo } from "./Ports.js"

/** The attachment an inbound message's content names (an `attachment` content), if any. */
const attachmentNamed = (content: unknown) => {
  if (typeof content !== "object" || content === null) return undefined
  const c = content as { readonly type?: unknown; readonly attachmentId?: unknown; readonly mimeType?: unknown; readonly size?: unknown }
  return c.type === "attachment" && typeof c.attachmentId === "string" && typeof c.mimeType === "string"
    ? { attachmentId: c.attachmentId, mimeType: c.mimeType, size: typeof c.size === "number" ? c.size : undefined }
    : undefined
}

/** A new message or a fact id of the batch was taken by another transaction between its read and write. */
class BatchRace extends Data.TaggedError("BatchRace")<{}> {}

const DEFAULT_PAGE_SIZE = 20
/** Each race means another batch committed one of ours first; a few rounds settle any realistic contention. */
const MAX_ROUNDS = 8

export class Messages extends Context.Service<Messages>()("core/Messages", {
  make: Effect.gen(function*() {
    const repo = yield* MessagesRepo
    const publisher = yield* EventPublisher
    const tx = yield* Transactor
    const serverSecret = yield* ServerSecret
    const gate = yield* makeProjectGate
    const codes = yield* VerificationCodes
    const attachmentsRepo = yield* AttachmentsRepo

    const applyBatch = (projectId: ProjectId, facts: ReadonlyArray<MessageFact>) =>
      Effect.gen(function*() {
        const loaded = yield* repo.loadBatch({
          projectId,
          messageIds: [...new Set(facts.map((f) => f.messageId))],
          factIds: [...new Set(facts.map((f) => f.id))]
        })
        const factIds = [...new Set(facts.map((f) => f.id))]
        const heldBack = yield* codes.factsHeldBack(projectId, factIds)
        const held = yield* codes.heldAmong(
          projectId,
          facts.flatMap((f) => f.type === "received" && f.data.resourceId !== undefined ? [f.data.resourceId] : [])
        )
        // A held resource of a type that does not fit the fact's platform refuses the whole batch,
        // before anything is written (an unheld one is the fact's own `unknown-resource`).
        for (const [index, fact] of facts.entries()) {
          if (fact.type !== "received" || fact.data.resourceId === undefined) continue
          const resourceType = held.get(fact.data.resourceId)
          const allowed = resourceTypesOf(fact.data.platform)
          if (resourceType === undefined || allowed === undefined || allowed.includes(resourceType)) continue
          return yield* new MessageResourceMismatch({
            index,
            resourceId: fact.data.resourceId,
            resourceType,
            platform: fact.data.platform,
            allowed
          })
        }
        const records = new Map(loaded.messages)
        const seen = new Set([...loaded.applied, ...heldBack])
        const filtered: Array<FilteredCodeRecord> = []
        const incoming = new Map<string, AttachmentRecord>()
        const created = new Set<string>()
        const changed = new Set<string>()
        const applied: Array<AppliedMessageFact> = []
        const results: Array<MessageFactResult> = []
        for (const fact of facts) {
          const current = records.get(fact.messageId)
          let d = applyFact(projectId, current, fact, (id) => seen.has(id))
          if (d.outcome === "applied" && fact.type === "received" && fact.data.resourceId !== undefined) {
            const resourceId = fact.data.resourceId
            if (!held.has(resourceId)) {
              results.push({ id: fact.id, outcome: "rejected", reason: "unknown-resource" })
              continue
            }
            const text = inboundTextOf(d.message.content)
            const code = text === null ? Option.none() : yield* codes.heldBackFrom({
              projectId,
              resourceId,
              platform: d.message.platform,
              body: text,
              receivedAt: fact.timestamp,
              factId: fact.id
            })
            if (Option.isSome(code)) {
              filtered.push(code.value)
              seen.add(fact.id)
              results.push({ id: fact.id, outcome: "applied", filteredCodeId: code.value.filteredCodeId })
              continue
            }
          }
          if (d.outcome === "applied" && fact.type === "received") {
            const named = attachmentNamed(d.message.content)
            if (named !== undefined && Option.isNone(yield* attachmentsRepo.find(projectId, named.attachmentId))) {
              // Inbound media the project has no attachment for: its attachment, `processing` until
              // the edge delivers the bytes, is what the message names.
              const attachmentId = incomingAttachmentId(projectId, named.attachmentId)
              if (!incoming.has(attachmentId) && Option.isNone(yield* attachmentsRepo.find(projectId, attachmentId))) {
                incoming.set(attachmentId, incomingAttachmentRecord({
                  attachmentId,
                  projectId,
                  contentType: named.mimeType,
                  size: named.size,
                  now: yield* DateTime.now
                }))
              }
              d = { ...d, message: { ...d.message, content: { ...d.message.content, attachmentId } } as Message }
            }
          }
          results.push(resultOf(fact, d))
          if (d.outcome !== "applied") continue
          records.set(fact.messageId, d.message)
          seen.add(fact.id)
          if (current === undefined) created.add(fact.messageId)
          else if (!created.has(fact.messageId)) changed.add(fact.messageId)
          applied.push({
            factId: fact.id,
            messageId: fact.messageId,
            platform: d.message.platform,
            direction: d.message.status === "received" ? "received" : "addressed",
            type: fact.type,
            status: d.message.status,
            occurredAt: fact.timestamp
          })
        }
        if (filtered.length > 0 && !(yield* codes.insertFromFacts(filtered))) return yield* new BatchRace()
        if (applied.length === 0) return results
        yield* Effect.forEach(incoming.values(), attachmentsRepo.insert, { discard: true })
        const written = yield* repo.writeBatch({
          projectId,
          created: [...created].map((id) => records.get(id)!),
          updated: [...changed].map((id) => records.get(id)!),
          facts: applied,
          recordedAt: yield* DateTime.now
        })
        if (!written) return yield* new BatchRace()
        // One event per applied fact, with the record as it was right after that fact.
        const events = results.flatMap((r, i) =>
          r.outcome === "applied" && r.message !== undefined
            ? [{
              type: `message.${facts[i]!.type}`,
              source: messageEventSource(projectId, r.message.id),
              timestamp: facts[i]!.timestamp,
              data: { message: encodeMessage(r.message) as unknown as Record<string, unknown> }
            }]
            : []
        )
        yield* publisher.publish(projectId, events)
        return results
      })

    /** A batch of 1–100 facts from the messaging edge, in one transaction, set-based (see the module comment). */
    const ingest = fn("Messages.ingest")(function*(projectId: ProjectId, principal: Principal, facts: ReadonlyArray<MessageFact>) {
      yield* gate.open(projectId, principal, "write")
      for (let round = 1; ; round++) {
        const results = yield* tx.withTransaction(applyBatch(projectId, facts)).pipe(
          Effect.catchTag("BatchRace", () => Effect.succeed(undefined))
        )
        if (results !== undefined) return results
        if (round >= MAX_ROUNDS) return yield* Effect.die(new Error("a message fact batch kept racing other batches"))
      }
    })

    const get = fn("Messages.get")(function*(projectId: ProjectId, principal: Principal, messageId: string) {
      yield* gate.open(projectId, principal, "read")
      const found = yield* repo.find(projectId, messageId)
      if (Option.isNone(found)) return yield* new MessageNotFound({ messageId })
      return found.value
    })

    const list = fn("Messages.list")(function*(
      projectId: ProjectId,
      principal: Principal,
      input: {
        readonly pageSize?: number | undefined
        readonly pageToken?: string | undefined
        readonly platform?: string | undefined
        readonly status?: MessageStatus | undefined
        readonly createdAfter?: DateTime.Utc | undefined
        readonly createdBefore?: DateTime.Utc | undefined
      }
    ) {
      yield* gate.open(projectId, principal, "read")
      // The token is bound to the project and the filters: reused with others, it is refused.
      const listName = `messages:${projectId}:${canonicalJson({
        platform: input.platform ?? null,
        status: input.status ?? null,
        createdAfter: input.createdAfter?.epochMilliseconds ?? null,
        createdBefore: input.createdBefore?.epochMilliseconds ?? null
      })}`
      const { nextPageToken, page } = yield* createdAtPage({
        list: listName,
        pageSize: input.pageSize ?? DEFAULT_PAGE_SIZE,
        pageToken: input.pageToken,
        fetch: (after, limit) =>
          repo.list({
            projectId,
            platform: input.platform,
            status: input.status,
            createdAfter: input.createdAfter,
            createdBefore: input.createdBefore,
            after: after && { createdAt: after.createdAt, messageId: after.id },
            limit
          }),
        positionOf: (m: Message) => ({ createdAt: m.createdAt, id: m.id }),
        invalidToken: (message) => new InvalidMessageQuery({ parameter: "pageToken", message })
      }).pipe(Effect.provideService(ServerSecret, serverSecret))
      return { messages: page, nextPageToken }
    })

    return { ingest, get, list } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([EventPublisher.layer, VerificationCodes.layer]))
}
