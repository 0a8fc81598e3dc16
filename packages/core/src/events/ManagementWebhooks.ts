/**
 * Management webhooks (docs/api-notes/management-api.md): per project, a list of URLs that receive
 * every event of the project, signed with the `X-Spectrum-*` v0 scheme. Created with a 64-hex
 * signing secret shown once (stored sealed: signing needs it back); one live webhook per URL;
 * deleted softly (a URL registered again gets a new id and secret). Deleting a webhook cancels
 * its pending deliveries. The management routes authenticate the project first, so methods take
 * its id as given.
 */
import { Context, DateTime, Effect, Layer, Option, type Redacted, Result } from "effect"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import { WebhookPolicy } from "./DeliveryPolicy.js"
import { makeEndpointOps, newManagementSecret } from "./Endpoints.js"
import { EVENT_API_VERSION } from "./Schema.js"
import { ManagementWebhookNotFound, WebhookUrlInvalid } from "./WebhookErrors.js"
import { type DeliveryStatus, type NewWebhookEndpoint, type WebhookEndpoint, WebhooksRepo } from "./WebhookPorts.js"
import { checkWebhookUrl } from "./WebhookUrl.js"
import { fn } from "../internal/Traced.js"

export interface ManagementWebhook {
  /** A UUID. */
  readonly id: string
  readonly projectId: string
  readonly webhookUrl: string
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

const toManagementWebhook = (e: WebhookEndpoint): ManagementWebhook => ({
  id: e.endpointId,
  projectId: e.projectId,
  webhookUrl: e.url,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt
})

export class ManagementWebhooks extends Context.Service<ManagementWebhooks>()("core/ManagementWebhooks", {
  make: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const ids = yield* Ids
    const tx = yield* Transactor
    const policy = yield* WebhookPolicy
    const ops = yield* makeEndpointOps

    /** The live webhook, or ManagementWebhookNotFound. */
    const live = (projectId: string, webhookId: string, lock = false) =>
      Effect.flatMap(
        lock ? repo.lockEndpoint("management", projectId, webhookId) : repo.findEndpoint("management", projectId, webhookId),
        (found) =>
          Option.isSome(found) && found.value.deletedAt === null
            ? Effect.succeed(found.value)
            : Effect.fail(new ManagementWebhookNotFound({ webhookId }))
      )

    /** Live webhooks of the project, oldest first. */
    const list = fn("ManagementWebhooks.list")(function*(projectId: string) {
      const out: Array<ManagementWebhook> = []
      let after: { createdAt: DateTime.Utc; id: string } | undefined
      for (;;) {
        const page = yield* repo.listEndpoints({ kind: "management", projectId, after, limit: 100 })
        out.push(...page.map(toManagementWebhook))
        const last = page[page.length - 1]
        if (page.length < 100 || last === undefined) return out as ReadonlyArray<ManagementWebhook>
        after = { createdAt: last.createdAt, id: last.endpointId }
      }
    })

    /** Registers a URL; the signing secret (64 hex) is returned here only. */
    const create = fn("ManagementWebhooks.create")(function*(input: { readonly projectId: string; readonly webhookUrl: string }) {
      const checked = checkWebhookUrl(input.webhookUrl, policy.allowInsecureTargets)
      if (Result.isFailure(checked)) return yield* new WebhookUrlInvalid({ message: `webhookUrl ${checked.failure}` })
      const { secret, sealed } = yield* ops.newSealedSecret(newManagementSecret)
      const now = yield* DateTime.now
      const endpoint: NewWebhookEndpoint = {
        endpointId: yield* ids.uuidv7(),
        kind: "management",
        projectId: input.projectId,
        url: checked.success,
        name: null,
        description: null,
        status: "enabled",
        enabledEvents: ["*"],
        apiVersion: EVENT_API_VERSION,
        secret: sealed,
        previousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: now,
        updatedAt: now,
        deletedAt: null
      }
      const inserted = yield* ops.insertLimited(endpoint, (e) => repo.insertEndpoint(e))
      return { webhook: toManagementWebhook(inserted), signingSecret: secret.shown as Redacted.Redacted<string> }
    })

    /** Deletes a live webhook (soft); its pending deliveries are cancelled. */
    const remove = fn("ManagementWebhooks.remove")(function*(input: { readonly projectId: string; readonly webhookId: string }) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        const current = yield* live(input.projectId, input.webhookId, true)
        const now = yield* DateTime.now
        const deleted = { ...current, deletedAt: now, updatedAt: now }
        yield* repo.updateEndpoint(deleted)
        yield* repo.cancelPendingDeliveries(current.endpointId)
        return toManagementWebhook(deleted)
      }))
    })

    /** A live webhook's deliveries, newest first (dead-lettered ones stay here, retryable). */
    const listDeliveries = fn("ManagementWebhooks.listDeliveries")(function*(input: {
      readonly projectId: string
      readonly webhookId: string
      readonly status?: DeliveryStatus | undefined
      readonly pageSize?: number | undefined
      readonly pageToken?: string | undefined
    }) {
      return yield* ops.deliveriesPage(yield* live(input.projectId, input.webhookId), input)
    })

    /** Attempts the delivery of an event again now (see `makeEndpointOps.retry`). */
    const retryDelivery = fn("ManagementWebhooks.retryDelivery")(function*(input: {
      readonly projectId: string
      readonly webhookId: string
      readonly eventId: string
      readonly expectedAttemptCount?: number | undefined
    }) {
      return yield* ops.retry(yield* live(input.projectId, input.webhookId), input)
    })

    return { list, create, remove, listDeliveries, retryDelivery } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}
