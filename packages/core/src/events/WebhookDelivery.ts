/**
 * Why this file is long: the engine's fan-out, claimer, attempts and batched writer share one
 * piece of bookkeeping (held, sending, finished, the latches); split apart, each would need the
 * others' private state.
 *
 * The delivery engine (docs/api-notes/events-and-webhooks.md), a job queue that
 * every server process drains:
 *
 * 1. **Fan-out** (`dispatch`): in one transaction, take outbox events not yet fanned out (`FOR
 *    UPDATE SKIP LOCKED`, so several processes share the work), create one delivery per event and
 *    matching endpoint (same project, enabled, live, created before the event: `subscribes`,
 *    selection `"*"` or the type), and mark the
 *    events `dispatched_at`. An event is thus fanned out exactly once, and only once committed.
 * 2. **Attempts** (`deliverDue`, `run`): claim due deliveries with a lease (`FOR UPDATE SKIP
 *    LOCKED`), send each signed request through the `WebhookSender` port *outside* any
 *    transaction, and record the outcome under the claim: delivered, retried later (backoff with
 *    jitter, `DeliveryPolicy`), or dead-lettered. A process that dies mid-attempt leaves its lease
 *    to run out; the delivery is then claimed again — at least once, never dropped.
 *
 * Time comes from `Clock` (tests drive it with `TestClock`); jitter from `Secrets`.
 */
import { Cause, Clock, Context, DateTime, Duration, Effect, FiberSet, Latch, Layer } from "effect"
import { IdKinds } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import { Secrets } from "../shared/Secrets.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { type SendOutcome, WebhookPolicy } from "./DeliveryPolicy.js"
import type { StoredOutboxEvent } from "./EventsFeature.js"
import { WebhookHmac } from "./Signing.js"
import { type AttemptResult, makeWebhookAttempts } from "./WebhookAttempt.js"
import { type ClaimedDelivery, type DeliveryRecord, newDelivery, type WebhookEndpoint, WebhookSender, WebhooksRepo } from "./WebhookPorts.js"
import { fn } from "../internal/Traced.js"
import { logCauseWarning } from "../internal/CauseSummary.js"

/**
 * Resumes after one turn of the event loop (a real 0 ms timer, whatever the `Clock`: I/O that is
 * ready runs first).
 */
const nextMacrotask: Effect.Effect<void> = Effect.callback<void>((resume) => {
  const timer = setTimeout(() => resume(Effect.void), 0)
  return Effect.sync(() => clearTimeout(timer))
})

/**
 * Whether `endpoint` receives `event` (pure): same project, enabled, live, created before the
 * event was committed (the event's position is after the endpoint's `startsAfterPosition`),
 * selected type and version.
 */
export const subscribes = (endpoint: WebhookEndpoint, event: StoredOutboxEvent): boolean =>
  event.projectId !== null &&
  event.position > endpoint.startsAfterPosition &&
  endpoint.projectId === event.projectId &&
  endpoint.status === "enabled" &&
  endpoint.deletedAt === null &&
  (endpoint.kind === "management" || endpoint.apiVersion === event.event.apiVersion) &&
  (endpoint.enabledEvents.includes("*") || endpoint.enabledEvents.includes(event.event.type))

export class WebhookDeliveryEngine extends Context.Service<WebhookDeliveryEngine>()("core/WebhookDeliveryEngine", {
  make: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const tx = yield* Transactor
    const ids = yield* Ids
    const secrets = yield* Secrets
    const serverSecret = yield* ServerSecret
    const policy = yield* WebhookPolicy
    const hmac = yield* WebhookHmac
    const leaseMs = policy.timeoutMs + policy.leaseMarginMs

    // Planner statistics are refreshed once the first deliveries exist, then after every further
    // 5 000 at most every 10 minutes (see `WebhooksRepo.refreshStatistics`).
    let insertedSinceRefresh = 0
    let refreshedAt: number | undefined
    const maybeRefreshStatistics = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const due = refreshedAt === undefined
        ? insertedSinceRefresh >= 50
        : insertedSinceRefresh >= 5_000 && now - refreshedAt >= 600_000
      if (!due) return
      insertedSinceRefresh = 0
      refreshedAt = now
      yield* repo.refreshStatistics
    })

    /** Fans out one batch of undispatched events; returns how many events it took. */
    const dispatch = fn("WebhookDeliveryEngine.dispatch")(function*() {
      const taken = yield* tx.withTransaction(Effect.gen(function*() {
        const events = yield* repo.takeUndispatched(policy.batchSize)
        if (events.length === 0) return 0
        const now = yield* DateTime.now
        const projectIds = [...new Set(events.flatMap((e) => (e.projectId === null ? [] : [e.projectId])))]
        const endpoints = projectIds.length === 0 ? [] : yield* repo.subscribers(projectIds)
        const deliveries: Array<DeliveryRecord> = []
        for (const event of events) {
          for (const endpoint of endpoints) {
            if (!subscribes(endpoint, event)) continue
            deliveries.push(newDelivery({
              deliveryId: yield* ids.typeId(IdKinds.delivery),
              endpoint,
              eventId: event.event.id,
              eventPosition: event.position,
              eventType: event.event.type,
              now
            }))
          }
        }
        if (deliveries.length > 0) yield* repo.insertDeliveries(deliveries)
        yield* repo.markDispatched(events.map((e) => e.position), now)
        insertedSinceRefresh += deliveries.length
        return events.length
      }))
      yield* maybeRefreshStatistics
      return taken
    })

    /** Fans out until the outbox has nothing left; returns how many events. */
    const dispatchAll = Effect.gen(function*() {
      let total = 0
      for (;;) {
        const n = yield* dispatch()
        total += n
        if (n < policy.batchSize) return total
      }
    })

    const { attemptWith, prepareSync, recordOf, recordSync } = makeWebhookAttempts({ policy, secrets, serverSecret, hmac })

    /** Gives a claimed delivery back unattempted, due at once (shutdown, or a lease too short to send under). */
    const release = (claimed: ClaimedDelivery) =>
      Effect.flatMap(DateTime.now, (now) =>
        repo.releaseClaim({ deliveryId: claimed.delivery.deliveryId, claimSeq: claimed.delivery.claimSeq, now }))

    /**
     * Sends one claimed delivery and says what to record: delivered, pending until the next
     * attempt, or dead-lettered. Interrupted (shutdown) before it has an answer, it gives the
     * delivery back unattempted so another process can take it at once.
     */
    const outcomeOf = (claimed: ClaimedDelivery) =>
      Effect.flatMap(WebhookSender, (sender) => Effect.clockWith((clock) => attemptWith(sender, clock, claimed))).pipe(
        Effect.onInterrupt(() => release(claimed))
      )

    type Result = AttemptResult
    /** A finished send of the batch path, its record not yet made. */
    interface Outcome {
      readonly claimed: ClaimedDelivery
      readonly started: number
      readonly outcome: SendOutcome
      readonly ended: number
    }

    /** Logs the dead-lettered ones of written attempts. */
    const logDead = (results: ReadonlyArray<Result>) =>
      Effect.gen(function*() {
        for (const { claimed, record } of results) {
          if (record.status !== "dead_lettered") continue
          yield* Effect.logWarning("webhook delivery dead-lettered").pipe(Effect.annotateLogs({
            deliveryId: claimed.delivery.deliveryId,
            eventId: claimed.event.id,
            endpointId: claimed.endpoint.endpointId,
            attempts: record.attemptCount,
            lastError: record.lastError
          }))
        }
      })

    /** Writes finished attempts (one statement for all); logs the dead-lettered ones. */
    const recordAll = (results: ReadonlyArray<Result>) =>
      results.length === 0 ? Effect.void : Effect.andThen(
        Effect.uninterruptible(repo.completeAttempts(results.map((r) => r.record))),
        logDead(results)
      )

    /** One attempt of a claimed delivery, recorded under its claim; returns where the delivery stands. */
    const attempt = (claimed: ClaimedDelivery) =>
      Effect.flatMap(outcomeOf(claimed), (result) => Effect.as(recordAll([result]), result.record.status))

    const claimArgs = (now: DateTime.Utc, limit: number) => ({
      now,
      leaseUntil: DateTime.makeUnsafe(DateTime.toEpochMillis(now) + leaseMs) as DateTime.Utc,
      limit,
      perEndpoint: policy.endpointConcurrency
    })
    const claim = (limit: number) => Effect.flatMap(DateTime.now, (now) => repo.claimDue(claimArgs(now, limit)))

    /**
     * Claims up to `concurrency` due deliveries and attempts them all, `concurrency` at a time;
     * returns how many it attempted. (Claiming no more than run at once keeps every lease valid.)
     */
    const deliverDue = fn("WebhookDeliveryEngine.deliverDue")(function*() {
      const claimed = yield* claim(policy.concurrency)
      const results = yield* Effect.forEach(claimed, outcomeOf, { concurrency: policy.concurrency })
      yield* recordAll(results)
      return claimed.length
    })

    /** Fans out everything, then attempts what is due until nothing is; for tests and tools. */
    const drain = fn("WebhookDeliveryEngine.drain")(function*() {
      let attempted = 0
      yield* dispatchAll
      for (;;) {
        const n = yield* deliverDue()
        attempted += n
        if (n === 0) return attempted
        yield* dispatchAll
      }
    })

    /**
     * The engine of a server process, for ever. Three fibers, and the attempts:
     *
     * - **fan-out**: fans out new events at least every `pollInterval` (at once again while
     *   batches come back full), then wakes the claimer;
     * - **claimer**: keeps up to 8 × `concurrency` deliveries *held* — claimed and not yet
     *   recorded — claiming for the free places as they free up (many at a time, so one claim
     *   statement serves many deliveries); at most `concurrency` of them are being sent at once,
     *   the others wait their turn in a queue, so sending never waits for a claim statement;
     * - **attempts**: started from plain code as a place to send frees up (no semaphore, no queue
     *   of effects). Once the endpoint's keys are unsealed an attempt is signed synchronously and
     *   handed to `WebhookSender.start` with a callback — no fiber per delivery; its record is made
     *   by the writer. An endpoint's first attempt (keys to unseal) or a sender without `start`
     *   gets a fiber;
     * - **writer**: finished attempts are written in batches by one writer (one statement per
     *   batch: while a write is under way the next results gather); a place is free again only
     *   once its result is written, since until then its lease still counts against the
     *   endpoint's in-flight cap in the store. The same statement claims for the places it
     *   frees (`completeAndClaim`: one round trip records a batch and claims the next); the
     *   writer then wakes the claimer for what is left.
     *
     * A held delivery is sent only while its lease outlasts the attempt's timeout (else it is
     * given back unattempted), so no other engine can take it over while its request may still
     * be under way. Idle, the claimer looks again after each fan-out round (every `pollInterval`)
     * or as soon as a write frees places.
     * A failed round is logged and retried, never fatal. Interrupting the engine interrupts the
     * attempts in flight, which give their deliveries back, and gives back those still waiting;
     * what they finished is still written.
     */
    const run = (pollInterval: Duration.Input) =>
      Effect.scoped(Effect.gen(function*() {
        const sender = yield* WebhookSender
        const clock = yield* Clock.Clock
        const wake = yield* Latch.make(false)
        // Held beyond the sending places: enough that sending goes on while the writer's statement
        // (record and claim) is under way, several milliseconds against a sub-millisecond POST —
        // and the more each statement records and claims, the less each delivery pays of its
        // fixed cost (8 ×: ≈ 40 per statement on PostgreSQL instead of ≈ 30 at 4 ×).
        const depth = policy.concurrency * 8
        const minBatch = Math.max(1, Math.floor(depth / 4))
        // Claimed and not yet recorded (or given back): at most `depth`.
        let held = 0
        const free = (n: number) =>
          Effect.suspend(() => {
            held -= n
            return wake.open
          })
        /**
         * Runs a claim for `room` places (and takes on what it claimed) with those places counted
         * as held meanwhile, so a claim started while it runs (the claimer's while the writer's is
         * under way, or the other way round) leaves them out: at most `depth` held, always.
         */
        const reserving = <A, E, R>(room: number, claim: Effect.Effect<A, E, R>) =>
          Effect.suspend(() => {
            held += room
            return Effect.ensuring(claim, Effect.sync(() => { held -= room }))
          })
        const logged = <A>(what: string, fallback: A) => <E, R>(self: Effect.Effect<A, E, R>) =>
          Effect.catchCause(self, (cause) => Effect.as(logCauseWarning(what, cause), fallback))

        // Finished attempts waiting for the writer. Its finalizer is added before the attempts'
        // fiber set, so at shutdown the attempts stop first and whatever they finished is still written.
        let finished: Array<Result> = []
        // Outcomes of attempts sent on the batch path (`sender.start`), their records not yet made.
        let outcomes: Array<Outcome> = []
        const written = yield* Latch.make(false)
        const writeSome = (results: ReadonlyArray<Result>) =>
          recordAll(results).pipe(logged<void>("webhook attempts not recorded", undefined))
        /** Everything finished so far, as results (records made here for the batch path's outcomes). */
        const takeFinished = Effect.suspend(() => {
          const done = finished
          const raw = outcomes
          finished = []
          outcomes = []
          if (raw.length === 0) return Effect.succeed(done)
          // Made synchronously unless a retry's jitter is to be drawn.
          const made = done
          let retries: Array<Outcome> | undefined
          for (const o of raw) {
            const result = recordSync(o.claimed, o.started, o.outcome, o.ended)
            if (result !== undefined) made.push(result)
            else (retries ??= []).push(o)
          }
          if (retries === undefined) return Effect.succeed(made)
          return Effect.map(
            Effect.forEach(retries, (o) => recordOf(o.claimed, o.started, o.outcome, o.ended)),
            (rest) => [...made, ...rest]
          )
        })
        yield* Effect.addFinalizer(() => Effect.flatMap(takeFinished, writeSome))
        const writer = Effect.forever(Effect.gen(function*() {
          yield* written.await
          yield* written.close
          // One turn of the event loop first: answers already on their sockets (all of them, when
          // the database runs on this thread and held it) join this batch.
          yield* nextMacrotask
          const batch = yield* takeFinished
          const last = Math.max(0, batch.length - 500)
          for (let i = 0; i < last; i += 500) yield* writeSome(batch.slice(i, i + 500))
          // The last part is written with the claim for the places it frees, in one statement
          // (uninterruptible, with what it claimed taken on — or given back when stopping).
          held -= batch.length
          const room = depth - held
          if (!stopping && room >= (held === 0 ? 1 : minBatch)) {
            const rest = batch.slice(last)
            yield* Effect.uninterruptible(reserving(room, Effect.flatMap(
              DateTime.now,
              (now) => Effect.flatMap(repo.completeAndClaim({ attempts: rest.map((r) => r.record), ...claimArgs(now, room) }), adopt)
            )).pipe(
              Effect.tap(logDead(rest)),
              logged<void>("webhook attempts not recorded", undefined)
            ))
          } else {
            yield* writeSome(batch.slice(last))
          }
          yield* wake.open
        }))
        yield* Effect.forkScoped(writer)

        // Fan-out: at least every `pollInterval`; a full batch means more are waiting. Each round
        // wakes the claimer and waits for its next round to end before sleeping: the idle claimer
        // looks for due deliveries (retries, other processes' fan-out) only then, so an idle
        // engine runs one fan-out and one claim, one after the other, per poll interval.
        const roundDone = yield* Latch.make(false)
        yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
          const n = yield* dispatch().pipe(logged("webhook fan-out failed", 0))
          yield* roundDone.close
          yield* wake.open
          yield* roundDone.await
          if (n < policy.batchSize) yield* Effect.sleep(pollInterval)
        })))

        // Held deliveries not yet being sent, oldest claim first; given back at shutdown.
        const waiting: Array<ClaimedDelivery> = []
        let sending = 0
        yield* Effect.addFinalizer(() =>
          Effect.suspend(() => Effect.forEach(waiting.splice(0), release, { discard: true, concurrency: 8 }))
        )
        const runFork = yield* FiberSet.makeRuntime<never, void, never>()
        // Runs before the fiber set closes: interrupted attempts start no others.
        let stopping = false
        yield* Effect.addFinalizer(() => Effect.sync(() => { stopping = true }))

        /** A held delivery's attempt: sent if its lease still covers the attempt, else given back. */
        const attemptHeld = (c: ClaimedDelivery): Effect.Effect<void> =>
          Effect.suspend((): Effect.Effect<void> => {
            const now = clock.currentTimeMillisUnsafe()
            const leasedUntil = c.delivery.leasedUntil?.epochMilliseconds ?? 0
            if (now + policy.timeoutMs + 1_000 > leasedUntil) {
              return Effect.andThen(
                repo.releaseClaim({ deliveryId: c.delivery.deliveryId, claimSeq: c.delivery.claimSeq, now: DateTime.makeUnsafe(now) as DateTime.Utc }),
                free(1)
              )
            }
            return Effect.map(attemptWith(sender, clock, c), (result) => {
              finished.push(result)
              written.openUnsafe()
            })
          }).pipe(
            Effect.onInterrupt(() => release(c)),
            Effect.catchCause((cause) =>
              Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.andThen(logCauseWarning("webhook attempt failed", cause), free(1))
            ),
            Effect.ensuring(Effect.sync(() => {
              sending--
              sendMore()
            }))
          )
        // The batch path: attempts whose request is signed synchronously (the endpoint's keys
        // cached) go out through `sender.start` with plain callbacks, no fiber per delivery; their
        // outcomes join the writer's next batch. The others (an endpoint's first delivery, a
        // sender without `start`) take `attemptHeld`.
        const start = sender.start
        const inFlight = new Map<ClaimedDelivery, () => void>()
        yield* Effect.addFinalizer(() =>
          Effect.suspend(() => {
            stopping = true
            const cancelled = [...inFlight]
            inFlight.clear()
            for (const [, cancel] of cancelled) cancel()
            return Effect.forEach(cancelled, ([c]) => release(c), { discard: true, concurrency: 8 })
          })
        )
        /** Sends a held delivery on the batch path; false when it needs `attemptHeld`. */
        const startHeld = (c: ClaimedDelivery): boolean => {
          if (start === undefined) return false
          const now = clock.currentTimeMillisUnsafe()
          if (now + policy.timeoutMs + 1_000 > (c.delivery.leasedUntil?.epochMilliseconds ?? 0)) return false
          const prepared = prepareSync(c, now)
          if (prepared === undefined) return false
          let settled = false
          const onOutcome = (outcome: SendOutcome) => {
            if (settled) return
            settled = true
            inFlight.delete(c)
            outcomes.push({ claimed: c, started: now, outcome, ended: clock.currentTimeMillisUnsafe() })
            written.openUnsafe()
            sending--
            sendMore()
          }
          if (prepared._tag === "Refused") {
            onOutcome(prepared)
            return true
          }
          const cancel = start(prepared.request, onOutcome)
          if (!settled) inFlight.set(c, cancel)
          return true
        }
        /** Starts held deliveries while places to send are free. */
        const sendMore = (): void => {
          while (!stopping && sending < policy.concurrency && waiting.length > 0) {
            sending++
            const c = waiting.shift()!
            if (!startHeld(c)) runFork(attemptHeld(c))
          }
        }

        /** Takes on claimed deliveries (gives them back when stopping). */
        const adopt = (claimed: ReadonlyArray<ClaimedDelivery>) =>
          Effect.suspend(() => {
            if (stopping) return Effect.forEach(claimed, release, { discard: true, concurrency: 8 })
            held += claimed.length
            for (const c of claimed) waiting.push(c)
            sendMore()
            return Effect.void
          })

        /** One round: claim for the free places; whether to go again at once. */
        const round = Effect.gen(function*() {
          const room = depth - held
          if (room < (held === 0 ? 1 : minBatch)) return false
          const claimed = yield* reserving(
            room,
            claim(room).pipe(logged("webhook claim failed", [] as ReadonlyArray<ClaimedDelivery>), Effect.tap(adopt))
          )
          return claimed.length === room
        })
        for (;;) {
          // Closed before the round looks at the free places: a write or fan-out ending after
          // that opens it again, so the wait below cannot miss it.
          yield* wake.close
          const again = yield* round
          yield* roundDone.open
          if (again) continue
          yield* wake.await
        }
      }))

    return { dispatch, dispatchAll, deliverDue, drain, run, attempt, outcomeOf, policy } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}
