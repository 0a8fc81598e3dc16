/**
 * Management webhooks (docs/api-notes/management-api.md), v1 destination rules
 * (docs/api-notes/events-and-webhooks.md) and the event catalog
 * (docs/api-notes/events-and-webhooks.md), on the memory store.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  checkWebhookUrl,
  eventCatalog,
  eventJsonSchema,
  ManagementWebhooks,
  WebhookDestinations,
  WebhooksRepo
} from "@switchboard/core/events"
import { ProjectsService } from "@switchboard/core/projects"
import { Effect, Result, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { setupProject, webhooksEnv } from "./TestEnv.js"

describe("ManagementWebhooks", () => {
  it.effect("create: 64-hex secret shown once, stored sealed; list oldest first; same live URL is taken; remove is soft", () =>
    Effect.gen(function*() {
      const { projectId } = yield* setupProject()
      const hooks = yield* ManagementWebhooks
      const a = yield* hooks.create({ projectId, webhookUrl: "https://a.example.com/hook" })
      yield* TestClock.adjust("1 millis")
      const b = yield* hooks.create({ projectId, webhookUrl: "https://b.example.com/hook" })
      expect(Redacted.value(a.signingSecret)).toMatch(/^[0-9a-f]{64}$/)
      expect(a.webhook.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(a.webhook).toMatchObject({ projectId, webhookUrl: "https://a.example.com/hook" })
      // Stored sealed: the secret's text is nowhere in the row.
      const row = Option.getOrThrow(yield* (yield* WebhooksRepo).findEndpoint("management", projectId, a.webhook.id))
      expect(Buffer.from(row.secret).toString("latin1")).not.toContain(Redacted.value(a.signingSecret))
      expect(row.secret.length).toBeGreaterThan(64)
      expect((yield* hooks.list(projectId)).map((w) => w.id)).toEqual([a.webhook.id, b.webhook.id])
      const dup = yield* Effect.result(hooks.create({ projectId, webhookUrl: "https://a.example.com/hook" }))
      expect(Result.isFailure(dup) && dup.failure).toMatchObject({ _tag: "WebhookUrlTaken", webhookUrl: "https://a.example.com/hook" })
      const removed = yield* hooks.remove({ projectId, webhookId: a.webhook.id })
      expect(removed.id).toBe(a.webhook.id)
      expect((yield* hooks.list(projectId)).map((w) => w.id)).toEqual([b.webhook.id])
      const again = yield* Effect.result(hooks.remove({ projectId, webhookId: a.webhook.id }))
      expect(Result.isFailure(again) && again.failure._tag).toBe("ManagementWebhookNotFound")
      // Re-registering a deleted URL gives a new id and secret.
      const c = yield* hooks.create({ projectId, webhookUrl: "https://a.example.com/hook" })
      expect(c.webhook.id).not.toBe(a.webhook.id)
      expect(Redacted.value(c.signingSecret)).not.toBe(Redacted.value(a.signingSecret))
      // Other projects see none of these.
      const other = yield* setupProject()
      expect(yield* hooks.list(other.projectId)).toEqual([])
      const foreign = yield* Effect.result(hooks.remove({ projectId: other.projectId, webhookId: b.webhook.id }))
      expect(Result.isFailure(foreign) && foreign.failure._tag).toBe("ManagementWebhookNotFound")
    }).pipe(Effect.provide(webhooksEnv())))

  it.effect("an invalid URL is WebhookUrlInvalid; at most maxEndpointsPerProject live webhooks", () =>
    Effect.gen(function*() {
      const { projectId } = yield* setupProject()
      const hooks = yield* ManagementWebhooks
      for (const webhookUrl of ["not a url", "ftp://x.example.com/", "https://u:p@x.example.com/", "http://x.example.com/"]) {
        const r = yield* Effect.result(hooks.create({ projectId, webhookUrl }))
        expect(Result.isFailure(r) && r.failure._tag, webhookUrl).toBe("WebhookUrlInvalid")
      }
      yield* hooks.create({ projectId, webhookUrl: "https://1.example.com/" })
      yield* hooks.create({ projectId, webhookUrl: "https://2.example.com/" })
      const over = yield* Effect.result(hooks.create({ projectId, webhookUrl: "https://3.example.com/" }))
      expect(Result.isFailure(over) && over.failure).toMatchObject({ _tag: "WebhookLimitReached", limit: 2 })
    }).pipe(Effect.provide(webhooksEnv({ allowInsecureTargets: false, maxEndpointsPerProject: 2 }))))
})

describe("WebhookDestinations", () => {
  it.effect("with the default policy only https to public hosts is accepted", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject()
      const destinations = yield* WebhookDestinations
      const create = (url: string) =>
        Effect.result(destinations.create(ctx.projectId, ctx.principal, { apiVersion: "2026-07-01", enabledEvents: ["*"], name: "n", url }))
      for (const url of ["http://example.com/h", "https://127.0.0.1/h", "https://10.0.0.8/h", "https://[::1]/h", "https://localhost/h", "https://169.254.169.254/latest"]) {
        const r = yield* create(url)
        expect(Result.isFailure(r) && r.failure._tag, url).toBe("WebhookUrlInvalid")
      }
      expect(Result.isSuccess(yield* create("https://hooks.example.com/h"))).toBe(true)
      expect(Result.isSuccess(yield* create("https://8.8.8.8/h"))).toBe(true)
    }).pipe(Effect.provide(webhooksEnv({ allowInsecureTargets: false }))))

  it.effect("a closing project refuses new destinations; a deleted destination is 410 until deleted again returns its tombstone", () =>
    Effect.gen(function*() {
      const ctx = yield* setupProject()
      const destinations = yield* WebhookDestinations
      const d = yield* destinations.create(ctx.projectId, ctx.principal, { apiVersion: "2026-07-01", enabledEvents: ["*"], name: "n", url: "https://a.example.com" })
      const gone = yield* destinations.delete(ctx.projectId, ctx.principal, d.destination.destinationId)
      expect(gone.deletedAt).not.toBeNull()
      const get = yield* Effect.result(destinations.get(ctx.projectId, ctx.principal, d.destination.destinationId))
      expect(Result.isFailure(get) && get.failure._tag).toBe("WebhookDestinationDeleted")
      const rotate = yield* Effect.result(destinations.rotateSecret(ctx.projectId, ctx.principal, d.destination.destinationId))
      expect(Result.isFailure(rotate) && rotate.failure._tag).toBe("WebhookDestinationDeleted")
      expect(yield* destinations.delete(ctx.projectId, ctx.principal, d.destination.destinationId)).toEqual(gone)
      yield* (yield* ProjectsService).delete(ctx.projectId, ctx.principal)
      const closing = yield* Effect.result(destinations.create(ctx.projectId, ctx.principal, { apiVersion: "2026-07-01", enabledEvents: ["*"], name: "n", url: "https://a.example.com" }))
      expect(Result.isFailure(closing) && closing.failure._tag).toBe("ProjectClosing")
    }).pipe(Effect.provide(webhooksEnv())))
})

describe("checkWebhookUrl", () => {
  it.each([
    ["https://hooks.example.com/a?b=c", false, true],
    ["https://hooks.example.com:8443/a", false, true],
    ["http://hooks.example.com/a", false, false],
    ["http://127.0.0.1:9/a", true, true],
    ["https://127.0.0.1/a", false, false],
    ["https://[fd00::1]/a", false, false],
    ["https://x.localhost/a", false, false],
    ["https://a@b.example.com/", false, false],
    ["https://b.example.com/#x", false, false],
    [" https://b.example.com/", false, false],
    ["mailto:a@b.example.com", true, false],
    ["/relative", true, false]
  ])("%s (insecure allowed: %s) accepted: %s", (url, insecure, ok) => {
    expect(Result.isSuccess(checkWebhookUrl(url, insecure))).toBe(ok)
  })
})

describe("event catalog", () => {
  const apiMd5 = [
    "call.started", "call.ringing", "call.answered", "call.connected", "call.dtmf.received", "call.ended",
    "external-webhook.received", "project.created", "project.updated", "project.deleted", "api_key.created",
    "api_key.revoked", "billing.operation.succeeded", "billing.operation.failed", "billing.plan.changed"
  ]
  /** Platform provisioning (docs/provisioning.md): operation and resource changes. */
  const platforms = ["operation.updated", "resource.updated", "imessage.assignment.updated"]
  /** Messages (docs/messages.md): one per applied lifecycle fact. */
  const messages = ["message.dispatched", "message.accepted", "message.delivered", "message.failed", "message.received"]
  it("has every documented event type (docs/api-notes/events-and-webhooks.md), each with a JSON Schema of its whole envelope", () => {
    expect([...eventCatalog.keys()].sort()).toEqual([...apiMd5, ...platforms, ...messages].sort())
    for (const type of [...apiMd5, ...platforms, ...messages]) {
      const schema = eventJsonSchema(type) as Record<string, any>
      expect(schema.type, type).toBe("object")
      expect(schema.properties.type).toEqual({ type: "string", enum: [type] })
      expect(schema.required).toEqual(expect.arrayContaining(["id", "type", "apiVersion", "source", "timestamp", "data"]))
    }
    expect(eventJsonSchema("no.such")).toBeUndefined()
  })

  it("project.created's data schema names the project's fields", () => {
    const schema = eventJsonSchema("project.created") as Record<string, any>
    const data = schema.properties.data.$ref !== undefined
      ? schema.$defs[schema.properties.data.$ref.split("/").pop()]
      : schema.properties.data
    expect(data.required).toEqual(expect.arrayContaining(["projectId", "organizationId", "name", "slug", "state", "createdAt", "updatedAt", "deletedAt"]))
  })
})
