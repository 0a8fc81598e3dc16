/**
 * The durable operation worker (docs/provisioning.md), on the webhook engine's pattern: it leases
 * due operations (`claimDue`: `FOR UPDATE SKIP LOCKED` and a lease in SQL, so any number of
 * processes share the work), calls the provider **outside** any transaction, then records the
 * outcome in one transaction with the operation row locked and its claim checked:
 *
 * - the provider's result (a number, a bot, a verified domain) becomes a resource and the operation
 *   `succeeded` (committed) — unless a cancel won the race meanwhile, in which case the result is
 *   given back to the provider and nothing is stored;
 * - an empty inventory or an unverified domain keeps the operation `running`, tried again later;
 * - a transient provider failure is retried with backoff; a permanent one fails the operation.
 *
 * A process killed mid-call leaves its lease to run out; the operation is then claimed again (the
 * provider may be asked twice, never stored twice).
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Result } from "effect"
import { EventPublisher } from "../events/EventsFeature.js"
import { IdKinds } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import { fn } from "../internal/Traced.js"
import { logCauseWarning } from "../internal/CauseSummary.js"
import { makeImessageLineStep } from "./ImessageProvisioning.js"
import { ImessagePool } from "./ImessagePorts.js"
import { apply, type OperationEvent, retryDelayMs } from "./OperationMachine.js"
import {
  EmailDomainProvider,
  NumberProvider,
  OperationsRepo,
  type ProviderFailure,
  ResourcesRepo,
  TelegramProvider
} from "./PlatformPorts.js"
import type { OperationRecord } from "./PlatformSchema.js"
import { publishChanges } from "./PlatformViews.js"
import { makePricedResources } from "./PricedResources.js"
import type { ProvisioningOutcome } from "./ProvisioningOutcome.js"
import { makeWhatsappSteps } from "./WhatsappSteps.js"
import { Setting } from "../internal/Settings.js"

/** The worker's timing (the server sets them from its configuration). */
export class ProvisioningSettings extends Setting<ProvisioningSettings>()("core/ProvisioningSettings", {
  defaultValue: () => ({
    /** How long a claim holds an operation. */
    leaseMs: 60_000,
    /** How long an operation waits for inventory or DNS before the next try. */
    waitMs: 30_000,
    /** The first retry delay after a transient failure (doubling, at most `retryMaxMs`). */
    retryBaseMs: 1_000,
    retryMaxMs: 300_000,
    /** Operations claimed at once, and worked on concurrently. */
    batch: 16,
    /** Whether a server process runs the worker, and how long it sleeps when there is no work. */
    enabled: true,
    pollIntervalMs: 500
  })
}) {}

type Outcome = ProvisioningOutcome

export class ProvisioningWorker extends Context.Service<ProvisioningWorker>()("core/ProvisioningWorker", {
  make: Effect.gen(function*() {
    const ops = yield* OperationsRepo
    const resources = yield* ResourcesRepo
    const tx = yield* Transactor
    const ids = yield* Ids
    const publisher = yield* EventPublisher
    const numbers = yield* NumberProvider
    const telegram = yield* TelegramProvider
    const email = yield* EmailDomainProvider
    const whatsapp = yield* makeWhatsappSteps
    const imessagePool = yield* ImessagePool
    const imessageLine = yield* makeImessageLineStep
    const priced = yield* makePricedResources

    const failedBy = (e: ProviderFailure): Outcome =>
      e.retryable ? { _tag: "Retry", message: e.message } : { _tag: "Fail", code: "provider_failed", detail: e.message }

    /** What the provider says about one claimed operation (outside any transaction). */
    const step = (op: OperationRecord, now: DateTime.Utc): Effect.Effect<Outcome> => {
      const base = { projectId: op.projectId, state: "active" as const, createdAt: now, updatedAt: now, retiredAt: null }
      if (op.type !== "resource.provision") {
        return Effect.succeed({ _tag: "Fail", code: "unsupported", detail: `${op.type} is not run by the worker` })
      }
      switch (op.resourceType) {
        case "sms_number": {
          const areaCode = typeof op.params["areaCode"] === "string" ? op.params["areaCode"] : undefined
          return numbers.purchase({ countryCode: "US", areaCode }).pipe(
            Effect.flatMap(Option.match({
              onNone: () => Effect.succeed<Outcome>({ _tag: "Wait", detail: { waitingFor: "inventory" } }),
              onSome: ({ phoneNumber }) =>
                Effect.map(ids.typeId(IdKinds.line), (resourceId): Outcome => ({
                  _tag: "Done",
                  resource: {
                    ...base,
                    resourceId,
                    type: "sms_number",
                    abilities: ["sms", "pstn_voice"],
                    phoneNumber,
                    detail: { phoneNumber, countryCode: "US", areaCode: phoneNumber.slice(2, 5) }
                  },
                  detail: { waitingFor: null },
                  undo: numbers.release(phoneNumber)
                }))
            })),
            Effect.catchTag("ProviderFailure", (e) => Effect.succeed(failedBy(e)))
          )
        }
        case "telegram_bot":
          return telegram.createBot({ projectId: op.projectId, operationId: op.operationId }).pipe(
            Effect.flatMap((bot) =>
              Effect.map(ids.typeId(IdKinds.resource), (resourceId): Outcome => ({
                _tag: "Done",
                resource: {
                  ...base,
                  resourceId,
                  type: "telegram_bot",
                  abilities: ["telegram"],
                  phoneNumber: null,
                  detail: { botId: bot.botId, username: bot.username }
                },
                detail: { setupUrl: bot.setupUrl },
                undo: telegram.deleteBot(bot.botId)
              }))
            ),
            Effect.catchTag("ProviderFailure", (e) => Effect.succeed(failedBy(e)))
          )
        case "email_domain": {
          const domain = String(op.params["domain"])
          const known = op.detail?.["dnsRecords"]
          const records: Effect.Effect<ReadonlyArray<unknown>, ProviderFailure> = Array.isArray(known)
            ? Effect.succeed(known as ReadonlyArray<unknown>)
            : email.register(domain)
          return records.pipe(
            Effect.flatMap((dnsRecords) =>
              Effect.flatMap(email.verify(domain), (verified) =>
                verified
                  ? Effect.map(ids.typeId(IdKinds.resource), (resourceId): Outcome => ({
                    _tag: "Done",
                    resource: {
                      ...base,
                      resourceId,
                      type: "email_domain",
                      abilities: ["email"],
                      phoneNumber: null,
                      subject: domain,
                      detail: { domain, dnsRecords }
                    },
                    detail: { dnsRecords, verified: true },
                    undo: email.remove(domain)
                  }))
                  : Effect.succeed<Outcome>({ _tag: "Wait", detail: { dnsRecords, verified: false } }))
            ),
            Effect.catchTag("ProviderFailure", (e) => Effect.succeed(failedBy(e)))
          )
        }
        case "imessage_line":
          return imessageLine(op).pipe(
            Effect.flatMap((next): Effect.Effect<Outcome> => {
              switch (next._tag) {
                case "Wait":
                  return Effect.succeed({ _tag: "Wait", detail: next.detail })
                case "Cancel":
                  return Effect.succeed({ _tag: "Cancel", reason: next.reason })
                case "Line":
                  return Effect.map(ids.typeId(IdKinds.line), (resourceId): Outcome => ({
                    _tag: "Done",
                    resource: {
                      ...base,
                      resourceId,
                      type: "imessage_line",
                      abilities: ["imessage", "pstn_voice"],
                      phoneNumber: next.phoneNumber,
                      detail: { phoneNumber: next.phoneNumber, imessageHealth: { overallStatus: "available" } }
                    },
                    detail: { waitingFor: null },
                    undo: imessagePool.releaseDedicated(next.phoneNumber)
                  }))
              }
            }),
            Effect.catchTag("ProviderFailure", (e) => Effect.succeed(failedBy(e)))
          )
        case "whatsapp_sender":
        case "whatsapp_line":
          return whatsapp.step(op, now)
        default:
          return Effect.succeed({ _tag: "Fail", code: "unsupported", detail: `no provider provisions ${op.resourceType}` })
      }
    }

    /**
     * Records `outcome` for the claim `claimed`, in one transaction with the operation locked.
     * Returns the result to give back when the claim was lost (cancelled meanwhile, or re-claimed).
     */
    const record = (claimed: OperationRecord, outcome: Outcome) =>
      Effect.gen(function*() {
        const settings = yield* ProvisioningSettings
        const now = yield* DateTime.now
        const current = yield* ops.lock(claimed.operationId)
        if (Option.isNone(current) || current.value.claimSeq !== claimed.claimSeq || current.value.state !== "running") {
          return "lost" as const
        }
        const op = current.value
        const event = (e: OperationEvent) => {
          const t = apply(op, e)
          return t._tag === "Applied" ? t.operation : op
        }
        switch (outcome._tag) {
          case "Done": {
            // A savepoint: a refused insert must not abort the transaction.
            const stored = yield* Effect.result(tx.withTransaction(resources.insert(outcome.resource)))
            if (Result.isFailure(stored)) {
              // The number is held elsewhere (another process's provider, a voice line): drop it and
              // try again at once.
              yield* ops.update({ ...op, leasedUntil: null, nextAttemptAt: now })
              return "taken" as const
            }
            const next = event({
              _tag: "Succeeded",
              at: now,
              resourceId: outcome.resource.resourceId,
              ...(outcome.detail === undefined ? {} : { detail: outcome.detail })
            })
            if (outcome.commit !== undefined) yield* outcome.commit
            // A priced resource is charged from the moment it is stored (PricedResources.ts).
            yield* priced.adjust(op.projectId, outcome.resource.type, 1)
            yield* ops.update(next)
            yield* publishChanges(publisher, op.projectId, { operations: [next], resources: [outcome.resource] }, now)
            return "stored" as const
          }
          case "Wait": {
            const retryAt = DateTime.addDuration(now, Duration.millis(settings.waitMs))
            yield* ops.update(event({ _tag: "Waiting", at: now, retryAt, ...(outcome.detail === undefined ? {} : { detail: outcome.detail }) }))
            return "stored" as const
          }
          case "Fail": {
            const next = event({ _tag: "Failed", at: now, error: { code: outcome.code, detail: outcome.detail } })
            yield* ops.update(next)
            yield* publishChanges(publisher, op.projectId, { operations: [next] }, now)
            return "stored" as const
          }
          case "Cancel": {
            const next = event({ _tag: "CancelRequested", at: now, reason: outcome.reason })
            yield* ops.update(next)
            yield* publishChanges(publisher, op.projectId, { operations: [next] }, now)
            return "stored" as const
          }
          case "Retry": {
            const attempts = op.attempts + 1
            const delay = retryDelayMs(attempts, settings.retryBaseMs, settings.retryMaxMs)
            yield* ops.update({
              ...op,
              attempts,
              leasedUntil: null,
              nextAttemptAt: DateTime.addDuration(now, Duration.millis(delay)),
              detail: { ...op.detail, lastError: outcome.message },
              updatedAt: now
            })
            return "stored" as const
          }
        }
      })

    /** Marks a freshly claimed pending operation running (its own small transaction, with its event). */
    const start = (claimed: OperationRecord) =>
      claimed.state !== "pending"
        ? Effect.succeed(Option.some(claimed))
        : tx.withTransaction(Effect.gen(function*() {
          const now = yield* DateTime.now
          const current = yield* ops.lock(claimed.operationId)
          if (Option.isNone(current) || current.value.claimSeq !== claimed.claimSeq || current.value.state !== "pending") {
            return Option.none<OperationRecord>()
          }
          const t = apply(current.value, { _tag: "Claimed", at: now })
          if (t._tag === "Rejected") return Option.none<OperationRecord>()
          yield* ops.update(t.operation)
          yield* publishChanges(publisher, claimed.projectId, { operations: [t.operation] }, now)
          return Option.some(t.operation)
        }))

    /** Works one claimed operation to its next recorded outcome. */
    const work = (claimed: OperationRecord) =>
      Effect.gen(function*() {
        const started = yield* start(claimed)
        if (Option.isNone(started)) return
        const outcome = yield* step(started.value, yield* DateTime.now)
        const result = yield* tx.withTransaction(record(started.value, outcome))
        if (result === "lost" && outcome._tag === "Done") yield* outcome.undo
      })

    /** Claims due operations once and works them; returns how many were claimed. */
    const runDue = fn("ProvisioningWorker.runDue")(function*() {
      const settings = yield* ProvisioningSettings
      const now = yield* DateTime.now
      const claimed = yield* tx.withTransaction(ops.claimDue({
        now,
        leaseUntil: DateTime.addDuration(now, Duration.millis(settings.leaseMs)),
        limit: settings.batch
      }))
      yield* Effect.forEach(claimed, work, { concurrency: settings.batch, discard: true })
      return claimed.length
    })

    /** Runs until interrupted: claims while there is work, sleeps `pollInterval` when there is none. */
    const run = (pollInterval: Duration.Input) =>
      Effect.forever(
        Effect.flatMap(
          runDue().pipe(Effect.catchCause((cause) => Effect.as(logCauseWarning("provisioning worker", cause), 0))),
          (n) => (n > 0 ? Effect.yieldNow : Effect.sleep(pollInterval))
        )
      )

    return { runDue, run } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer, EventPublisher.layer]))
}
