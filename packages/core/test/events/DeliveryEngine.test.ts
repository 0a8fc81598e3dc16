/**
 * The delivery engine on the memory store with `TestClock` and a recording sender: fan-out in the
 * change's transaction order, signed requests, retries on the backoff schedule, dead-lettering
 * after 6 attempts, the manual retry with its fencing, leases that let another engine take over a
 * crashed attempt, and shutdown giving claims back.
 */
import { describe, expect, it } from "@effect/vitest"
import { ProjectApiKeys } from "@switchboard/core/credentials"
import {
  EventOutbox,
  EventPublisher,
  ManagementWebhooks,
  parseWhsec,
  type SendOutcome,
  WebhookDeliveryEngine,
  WebhookDestinations,
  WebhookSender,
  WebhooksRepo
} from "@switchboard/core/events"
import { ProjectsService } from "@switchboard/core/projects"
import { Transactor } from "@switchboard/core/shared"
import { makeRecordingSender } from "@switchboard/testkit"
import { DateTime, Duration, Effect, Result, Fiber, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { createHmac } from "node:crypto"
import { at, setupProject, T0, webhooksEnv } from "./TestEnv.js"

const fail503: SendOutcome = { _tag: "Response", status: 503, body: "busy" }
const ok: SendOutcome = { _tag: "Response", status: 200, body: "" }

const destination = (ctx: Effect.Success<ReturnType<typeof setupProject>>, url: string, enabledEvents: ReadonlyArray<string> = ["*"]) =>
  Effect.flatMap(WebhookDestinations, (d) =>
    d.create(ctx.projectId, ctx.principal, { apiVersion: "2026-07-01", enabledEvents: enabledEvents as ["*"], name: "test", url }))

const rename = (ctx: Effect.Success<ReturnType<typeof setupProject>>, name: string) =>
  Effect.flatMap(ProjectsService, (p) => p.rename(ctx.projectId, ctx.principal, name))

const drain = (sender: Layer.Layer<WebhookSender>) =>
  Effect.flatMap(WebhookDeliveryEngine, (e) => e.drain()).pipe(Effect.provide(sender))

const deliveriesOf = (ctx: Effect.Success<ReturnType<typeof setupProject>>, destinationId: string) =>
  Effect.map(
    Effect.flatMap(WebhookDestinations, (d) => d.listDeliveries(ctx.projectId, ctx.principal, destinationId)),
    (p) => p.deliveries
  )

describe("WebhookDeliveryEngine", () => {
  it.effect("fans each committed event out to every matching endpoint once and sends it signed", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject()
      const all = yield* destination(ctx, "https://a.example.com/hook")
      const keysOnly = yield* destination(ctx, "https://b.example.com/hook", ["api_key.created"])
      const mgmt = yield* (yield* ManagementWebhooks).create({ projectId: ctx.projectId, webhookUrl: "https://m.example.com/hook" })
      const sender = makeRecordingSender()
      yield* drain(sender.layer) // project.created was published before the endpoints existed
      const before = sender.requests.length
      yield* TestClock.setTime(T0 + 5000)
      yield* rename(ctx, "Renamed")
      yield* rename(ctx, "Renamed") // no change: no event
      expect(yield* drain(sender.layer)).toBe(2)
      const sent = sender.requests.slice(before)
      expect(sent.map((r) => r.url).sort()).toEqual(["https://a.example.com/hook", "https://m.example.com/hook"])
      // v1: Standard Webhooks with the destination's key.
      const v1 = sent.find((r) => r.url.startsWith("https://a."))!
      const envelope = JSON.parse(v1.body)
      expect(envelope).toMatchObject({ type: "project.updated", apiVersion: "2026-07-01", timestamp: "2030-01-01T00:00:05.000Z", data: { name: "Renamed" } })
      const key = Buffer.from(parseWhsec(Redacted.value(all.signingSecret))!)
      const ts = v1.headers["webhook-timestamp"]!
      expect(ts).toBe(String((T0 + 5000) / 1000))
      expect(v1.headers["webhook-signature"]).toBe(`v1,${createHmac("sha256", key).update(`${envelope.id}.${ts}.${v1.body}`).digest("base64")}`)
      expect(v1.headers["webhook-id"]).toBe(envelope.id)
      expect(v1.timeoutMs).toBe(30_000)
      // Management: v0 with the 64-hex secret.
      const m = sent.find((r) => r.url.startsWith("https://m."))!
      const secret = Redacted.value(mgmt.signingSecret)
      expect(m.headers["x-spectrum-signature"]).toBe(`v0=${createHmac("sha256", secret).update(`v0:${ts}:${m.body}`).digest("hex")}`)
      expect(m.headers["x-spectrum-webhook-id"]).toBe(mgmt.webhook.id)
      expect(m.body).toBe(v1.body)
      // Nothing more to do; the filtered destination got nothing.
      expect(yield* drain(sender.layer)).toBe(0)
      expect(yield* deliveriesOf(ctx, keysOnly.destination.destinationId)).toEqual([])
    }).pipe(Effect.provide(webhooksEnv())))

  it.effect("an event whose transaction rolled back is never delivered", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject()
      yield* destination(ctx, "https://a.example.com/hook")
      const sender = makeRecordingSender()
      yield* drain(sender.layer)
      const before = sender.requests.length
      const tx = yield* Transactor
      const publisher = yield* EventPublisher
      const failed = yield* Effect.result(tx.withTransaction(Effect.andThen(
        publisher.publish(ctx.projectId, [{ type: "project.updated", source: "t", timestamp: at(T0), data: { rolled: "back" } }]),
        Effect.fail("boom" as const)
      )))
      expect(Result.isFailure(failed)).toBe(true)
      expect(yield* drain(sender.layer)).toBe(0)
      expect(sender.requests.length).toBe(before)
    }).pipe(Effect.provide(webhooksEnv())))

  it.effect("a new endpoint receives exactly the events committed after its creation, not the backlog; older ones receive all", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject()
      const old = yield* destination(ctx, "https://old.example.com/hook")
      const oldManagement = yield* (yield* ManagementWebhooks).create({ projectId: ctx.projectId, webhookUrl: "https://old-m.example.com/hook" })
      // A backlog: committed, not fanned out yet (the engine has not run).
      for (const name of ["Backlog 1", "Backlog 2", "Backlog 3"]) yield* rename(ctx, name)
      expect((yield* Effect.flatMap(WebhooksRepo, (r) => r.takeUndispatched(1000))).length).toBeGreaterThanOrEqual(3)
      const fresh = yield* destination(ctx, "https://fresh.example.com/hook")
      const freshManagement = yield* (yield* ManagementWebhooks).create({ projectId: ctx.projectId, webhookUrl: "https://fresh-m.example.com/hook" })
      for (const name of ["After 1", "After 2"]) yield* rename(ctx, name)
      const sender = makeRecordingSender()
      yield* drain(sender.layer)
      // Deliveries are attempted `concurrency` at a time, so their order is not part of the
      // claim: compare the sets (sorted), with duplicates kept.
      const namesTo = (url: string) =>
        sender.requests.filter((r) => r.url === url).map((r) => (JSON.parse(r.body) as { data: { name?: string } }).data.name).sort()
      expect(namesTo("https://fresh.example.com/hook")).toEqual(["After 1", "After 2"])
      expect(namesTo("https://fresh-m.example.com/hook")).toEqual(["After 1", "After 2"])
      const everything = ["After 1", "After 2", "Backlog 1", "Backlog 2", "Backlog 3"]
      expect(namesTo("https://old.example.com/hook")).toEqual(everything)
      expect(namesTo("https://old-m.example.com/hook")).toEqual(everything)
      expect((yield* deliveriesOf(ctx, fresh.destination.destinationId)).length).toBe(2)
      expect((yield* deliveriesOf(ctx, old.destination.destinationId)).length).toBe(5)
      const managementDeliveries = (webhookId: string) =>
        Effect.flatMap(ManagementWebhooks, (m) => m.listDeliveries({ projectId: ctx.projectId, webhookId }))
      expect((yield* managementDeliveries(freshManagement.webhook.id)).deliveries.length).toBe(2)
      expect((yield* managementDeliveries(oldManagement.webhook.id)).deliveries.length).toBe(5)
    }).pipe(Effect.provide(webhooksEnv())))

  it.effect("retries on the backoff schedule, dead-letters after 6 attempts, and a fenced retry redelivers", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject()
      const d = yield* destination(ctx, "https://down.example.com/hook", ["project.updated"])
      let answer: SendOutcome = fail503
      const sender = makeRecordingSender(() => answer)
      yield* rename(ctx, "Down")
      const engine = yield* WebhookDeliveryEngine
      const run = (e: Effect.Effect<number, never, WebhookSender>) => e.pipe(Effect.provide(sender.layer))
      expect(yield* run(engine.drain())).toBe(1)
      const times: Array<number> = []
      for (let attempt = 2; attempt <= 6; attempt++) {
        const [pending] = yield* deliveriesOf(ctx, d.destination.destinationId)
        expect(pending).toMatchObject({ status: "pending", attemptCount: attempt - 1, lastError: "HTTP 503: busy", lastResponseStatus: 503 })
        const wait = pending!.nextAttemptAt!.epochMilliseconds - (yield* DateTime.now).epochMilliseconds
        times.push(wait)
        // Not due yet: nothing happens a millisecond early.
        yield* TestClock.adjust(Duration.millis(Math.max(0, wait - 1)))
        expect(yield* run(engine.drain())).toBe(0)
        yield* TestClock.adjust(Duration.millis(1))
        expect(yield* run(engine.drain())).toBe(1)
      }
      // 200 ms, 1 s, 5 s, 10 s, 10 s, each ±50 %.
      const expected = [200, 1000, 5000, 10_000, 10_000]
      times.forEach((t, i) => {
        expect(t).toBeGreaterThanOrEqual(expected[i]! * 0.5)
        expect(t).toBeLessThanOrEqual(expected[i]! * 1.5)
      })
      const [dead] = yield* deliveriesOf(ctx, d.destination.destinationId)
      expect(dead).toMatchObject({ status: "dead_lettered", attemptCount: 6, nextAttemptAt: null })
      expect(sender.requests.filter((r) => r.url === "https://down.example.com/hook")).toHaveLength(6)
      yield* TestClock.adjust(Duration.hours(1))
      expect(yield* run(engine.drain())).toBe(0)

      const destinations = yield* WebhookDestinations
      const retry = (expectedAttemptCount: number, eventType = "project.updated") =>
        Effect.result(destinations.retryDelivery(ctx.projectId, ctx.principal, d.destination.destinationId, {
          eventId: dead!.eventId,
          eventType,
          expectedAttemptCount
        }))
      const stale = yield* retry(5)
      expect(Result.isFailure(stale) && stale.failure._tag).toBe("WebhookRetryRefused")
      expect(Result.isFailure(yield* retry(6, "project.created"))).toBe(true)
      answer = ok
      expect(Result.isSuccess(yield* retry(6))).toBe(true)
      expect(yield* run(engine.drain())).toBe(1)
      const [done] = yield* deliveriesOf(ctx, d.destination.destinationId)
      expect(done).toMatchObject({ status: "delivered", attemptCount: 7, lastError: null, lastResponseStatus: 200 })
      const again = yield* retry(7)
      expect(Result.isFailure(again) && again.failure._tag).toBe("WebhookRetryRefused")
    }).pipe(Effect.provide(webhooksEnv())))

  it.effect("a retry overrides a pending delivery's backoff once; fatal answers dead-letter at once", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject()
      const d = yield* destination(ctx, "https://slow.example.com/hook", ["project.updated"])
      let answer: SendOutcome = fail503
      const sender = makeRecordingSender(() => answer)
      const engine = yield* WebhookDeliveryEngine
      yield* rename(ctx, "Once")
      yield* engine.drain().pipe(Effect.provide(sender.layer))
      const [pending] = yield* deliveriesOf(ctx, d.destination.destinationId)
      expect(pending!.status).toBe("pending")
      yield* (yield* WebhookDestinations).retryDelivery(ctx.projectId, ctx.principal, d.destination.destinationId, {
        eventId: pending!.eventId,
        eventType: "project.updated",
        expectedAttemptCount: 1
      })
      answer = { _tag: "Response", status: 301, body: "" }
      expect(yield* engine.drain().pipe(Effect.provide(sender.layer))).toBe(1)
      const [dead] = yield* deliveriesOf(ctx, d.destination.destinationId)
      expect(dead).toMatchObject({ status: "dead_lettered", attemptCount: 2, lastResponseStatus: 301 })
      expect(dead!.lastError).toContain("redirects are not followed")
    }).pipe(Effect.provide(webhooksEnv())))

  it.effect("an attempt whose engine died is taken over once its lease runs out; the dead engine's late answer is ignored", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject()
      const d = yield* destination(ctx, "https://a.example.com/hook", ["project.updated"])
      const engine = yield* WebhookDeliveryEngine
      const repo = yield* WebhooksRepo
      yield* rename(ctx, "Crash")
      yield* engine.dispatchAll
      // Another process claims it and dies mid-attempt.
      const now = yield* DateTime.now
      const [claimed] = yield* repo.claimDue({ now, leaseUntil: at(DateTime.toEpochMillis(now) + 35_000), limit: 10, perEndpoint: 1000 })
      expect(claimed).toBeDefined()
      const sender = makeRecordingSender()
      expect(yield* engine.drain().pipe(Effect.provide(sender.layer))).toBe(0)
      const [inFlight] = yield* deliveriesOf(ctx, d.destination.destinationId)
      expect(inFlight).toMatchObject({ status: "pending", inFlight: true, attemptCount: 0 })
      const retry = yield* Effect.result((yield* WebhookDestinations).retryDelivery(ctx.projectId, ctx.principal, d.destination.destinationId, {
        eventId: inFlight!.eventId, eventType: "project.updated", expectedAttemptCount: 0
      }))
      expect(Result.isFailure(retry) && retry.failure._tag).toBe("WebhookRetryRefused")
      yield* TestClock.adjust(Duration.seconds(35))
      expect(yield* engine.drain().pipe(Effect.provide(sender.layer))).toBe(1)
      expect(sender.requests).toHaveLength(1)
      // The dead engine's answer arrives late: fenced off.
      expect(yield* repo.completeAttempts([{
        deliveryId: claimed!.delivery.deliveryId,
        claimSeq: claimed!.delivery.claimSeq,
        status: "dead_lettered",
        attemptCount: 1,
        nextAttemptAt: now,
        lastAttemptAt: now,
        lastError: "late",
        lastResponseStatus: 500,
        deliveredAt: null
      }])).toEqual([])
      const [delivered] = yield* deliveriesOf(ctx, d.destination.destinationId)
      expect(delivered).toMatchObject({ status: "delivered", attemptCount: 1 })
    }).pipe(Effect.provide(webhooksEnv())))

  it.effect("the running engine delivers on its own; interrupted mid-attempt, it gives the delivery back", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject()
      const d = yield* destination(ctx, "https://a.example.com/hook", ["project.updated"])
      const engine = yield* WebhookDeliveryEngine
      const sender = makeRecordingSender()
      const fiber = yield* Effect.forkChild(engine.run(Duration.millis(100)).pipe(Effect.provide(sender.layer)))
      yield* rename(ctx, "Live")
      yield* TestClock.adjust(Duration.millis(100))
      yield* Effect.yieldNow
      for (let i = 0; i < 20 && sender.requests.length === 0; i++) yield* TestClock.adjust(Duration.millis(100))
      expect(sender.requests.map((r) => JSON.parse(r.body).data.name)).toEqual(["Live"])
      yield* Fiber.interrupt(fiber)

      // A receiver that never answers: interrupting the engine releases the claim at once.
      const hanging = Layer.succeed(WebhookSender, { send: () => Effect.never })
      const stuck = yield* Effect.forkChild(engine.run(Duration.millis(100)).pipe(Effect.provide(hanging)))
      yield* rename(ctx, "Stuck")
      for (let i = 0; i < 20; i++) {
        yield* TestClock.adjust(Duration.millis(100))
        const ds = yield* deliveriesOf(ctx, d.destination.destinationId)
        if (ds.some((x) => x.inFlight)) break
      }
      expect((yield* deliveriesOf(ctx, d.destination.destinationId)).filter((x) => x.inFlight)).toHaveLength(1)
      yield* Fiber.interrupt(stuck)
      const after = yield* deliveriesOf(ctx, d.destination.destinationId)
      expect(after.filter((x) => x.inFlight)).toEqual([])
      const stuckOne = after.find((x) => x.status === "pending")!
      expect(stuckOne).toMatchObject({ attemptCount: 0, inFlight: false })
      expect(yield* engine.drain().pipe(Effect.provide(sender.layer))).toBe(1)
    }).pipe(Effect.provide(webhooksEnv())))

  it.effect("the claimer and the writer never hold more than 8 × concurrency between them, even while a write-and-claim is slow", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject()
      yield* destination(ctx, "https://a.example.com/hook", ["project.updated"])
      for (let i = 0; i < 60; i++) yield* rename(ctx, `Name ${i}`)
      // Claimed and not yet recorded or given back, as the store sees it (changes counted when a call returns).
      let held = 0
      let maxHeld = 0
      const count = (n: number) => {
        held += n
        maxHeld = Math.max(maxHeld, held)
      }
      const slowWrites = Layer.effect(WebhooksRepo, Effect.map(WebhooksRepo, (repo) => ({
        ...repo,
        claimDue: (args: Parameters<typeof repo.claimDue>[0]) => Effect.tap(repo.claimDue(args), (c) => Effect.sync(() => count(c.length))),
        // A slow statement: the fan-out's rounds wake the claimer meanwhile.
        completeAndClaim: (args: Parameters<typeof repo.completeAndClaim>[0]) =>
          Effect.tap(
            Effect.andThen(Effect.sleep(Duration.millis(250)), repo.completeAndClaim(args)),
            (c) => Effect.sync(() => count(c.length - args.attempts.length))
          ),
        completeAttempts: (attempts: Parameters<typeof repo.completeAttempts>[0]) =>
          Effect.tap(repo.completeAttempts(attempts), () => Effect.sync(() => count(-attempts.length))),
        releaseClaim: (args: Parameters<typeof repo.releaseClaim>[0]) => Effect.tap(repo.releaseClaim(args), () => Effect.sync(() => count(-1)))
      })))
      const engine = yield* Effect.provide(WebhookDeliveryEngine, WebhookDeliveryEngine.layer.pipe(Layer.provide(slowWrites)), { local: true })
      const sender = makeRecordingSender()
      const fiber = yield* Effect.forkChild(engine.run(Duration.millis(100)).pipe(Effect.provide(sender.layer)))
      // The writer waits a real turn of the event loop before each batch: let real time pass too.
      const tick = Effect.andThen(TestClock.adjust(Duration.millis(20)), Effect.promise(() => new Promise((r) => setTimeout(r, 1))))
      for (let i = 0; i < 300 && sender.requests.length < 60; i++) yield* tick
      const stopping = yield* Effect.forkChild(Fiber.interrupt(fiber))
      for (let i = 0; i < 50 && stopping.pollUnsafe() === undefined; i++) yield* tick
      yield* Fiber.join(stopping)
      expect(sender.requests.length).toBeGreaterThanOrEqual(60)
      expect(maxHeld).toBeGreaterThan(0)
      expect(maxHeld).toBeLessThanOrEqual(8 * 2)
    }).pipe(Effect.provide(webhooksEnv({ concurrency: 2, endpointConcurrency: 1_000 }))))

  it.effect("a rotation overlap signs with both keys until it ends, then with the new key only", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject()
      const created = yield* destination(ctx, "https://a.example.com/hook", ["project.updated"])
      const rotated = yield* (yield* WebhookDestinations).rotateSecret(ctx.projectId, ctx.principal, created.destination.destinationId, 60)
      expect(rotated.previousSecretExpiresAt).toEqual(at(T0 + 60_000))
      const sender = makeRecordingSender()
      yield* rename(ctx, "Overlap")
      yield* drain(sender.layer)
      yield* TestClock.adjust(Duration.seconds(60))
      yield* rename(ctx, "After")
      yield* drain(sender.layer)
      const sigs = sender.requests.map((r) => r.headers["webhook-signature"]!.split(" "))
      expect(sigs.map((s) => s.length)).toEqual([2, 1])
      const sign = (secret: Redacted.Redacted<string>, i: number) => {
        const r = sender.requests[i]!
        const key = Buffer.from(parseWhsec(Redacted.value(secret))!)
        return `v1,${createHmac("sha256", key).update(`${r.headers["webhook-id"]}.${r.headers["webhook-timestamp"]}.${r.body}`).digest("base64")}`
      }
      expect(sigs[0]).toEqual([sign(rotated.signingSecret, 0), sign(created.signingSecret, 0)])
      expect(sigs[1]).toEqual([sign(rotated.signingSecret, 1)])
    }).pipe(Effect.provide(webhooksEnv())))

  it.effect("events reach the outbox in their change's transaction: project and API key lifecycle", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject("life")
      const outbox = yield* EventOutbox
      const types = () => Effect.map(outbox.list({ projectId: ctx.projectId, after: 0, limit: 100 }), (es) => es.map((e) => e.event))
      const keys = yield* ProjectApiKeys
      const created = yield* keys.create({ projectId: ctx.projectId, principal: ctx.principal, accountId: ctx.accountId, name: "k", permissions: ["project:read"] })
      yield* keys.revoke(ctx.projectId, ctx.principal, created.apiKey.apiKeyId)
      yield* keys.revoke(ctx.projectId, ctx.principal, created.apiKey.apiKeyId) // repeat: no second event
      yield* rename(ctx, "Life")
      yield* (yield* ProjectsService).delete(ctx.projectId, ctx.principal)
      const events = yield* types()
      expect(events.map((e) => e.type)).toEqual(["project.created", "api_key.created", "api_key.revoked", "project.updated", "project.deleted"])
      const slug = ctx.project.slug
      expect(events.map((e) => e.source)).toEqual([
        `${slug}.projects.switchboard`, `${slug}.api-keys.switchboard`, `${slug}.api-keys.switchboard`,
        `${slug}.projects.switchboard`, `${slug}.projects.switchboard`
      ])
      expect(events[0]!.data).toEqual({
        projectId: ctx.projectId,
        organizationId: ctx.organizationId,
        name: "Hooks",
        slug,
        state: "active",
        createdAt: "2030-01-01T00:00:00.000Z",
        updatedAt: "2030-01-01T00:00:00.000Z",
        deletedAt: null
      })
      expect(events[1]!.data).toMatchObject({ apiKeyId: created.apiKey.apiKeyId, revokedAt: null, permissions: ["project:read"] })
      expect(events[1]!.data).not.toHaveProperty("secret")
      expect(events[2]!.data).toMatchObject({ apiKeyId: created.apiKey.apiKeyId, revokedAt: "2030-01-01T00:00:00.000Z" })
      expect(events[4]!.data).toMatchObject({ state: "closing", deletedAt: "2030-01-01T00:00:00.000Z", name: "Life" })
      // A failed create (slug taken) leaves no event behind.
      const dup = yield* Effect.result((yield* ProjectsService).create({
        accountId: ctx.accountId, organizationId: ctx.organizationId, name: "Dup", slug
      }))
      expect(Result.isFailure(dup)).toBe(true)
      const all = yield* Effect.flatMap(WebhooksRepo, (r) => r.takeUndispatched(1000))
      expect(all.filter((e) => (e.event.data as { name?: string }).name === "Dup")).toEqual([])
    }).pipe(Effect.provide(webhooksEnv())))
})
