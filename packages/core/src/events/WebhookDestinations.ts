/**
 * v1 webhook destinations (docs/api-notes/events-and-webhooks.md): created on a project with a URL,
 * a payload API version (immutable) and an event selection (`["*"]` or types from the catalog);
 * listed (live only, oldest first, cursor pages), read, updated, deleted (a stable tombstone; a
 * repeated delete returns it again), their signing secret rotated with an overlap during which
 * deliveries carry both signatures; their deliveries listed and retried. Secrets are `whsec_…`,
 * shown only at creation and rotation, stored sealed.
 *
 * Access: reads need `events:read`, writes `events:write` (checked by the route); project
 * visibility and state through the project gate (a closing project refuses writes).
 */
import { Context, DateTime, Effect, Layer, Option, type Redacted, Result } from "effect"
import type { Principal } from "../credentials/Access.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { IdKinds, type ProjectId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import { isSelectableApiVersion, knownEventTypes } from "./Catalog.js"
import { EVENT_API_VERSION, type EventEnvelope } from "./Schema.js"
import { WebhookPolicy } from "./DeliveryPolicy.js"
import { makeEndpointOps, newDestinationSecret } from "./Endpoints.js"
import {
  InvalidWebhookRequest,
  UnsupportedWebhookApiVersion,
  WebhookDestinationDeleted,
  WebhookDestinationNotFound,
  WebhookUrlInvalid
} from "./WebhookErrors.js"
import { type DeliveryStatus, newDelivery, type NewWebhookEndpoint, type WebhookEndpoint, WebhooksRepo } from "./WebhookPorts.js"
import {
  type CreateWebhookDestinationRequest,
  DEFAULT_OVERLAP_SECONDS,
  type UpdateWebhookDestinationRequest,
  type WebhookDestination,
  type WebhookDestinationId,
  type WebhookEventSelection
} from "./WebhookSchema.js"
import { checkWebhookUrl } from "./WebhookUrl.js"
import { fn } from "../internal/Traced.js"

/** The wire form of a stored destination. */
export const toWebhookDestination = (e: WebhookEndpoint): WebhookDestination => ({
  apiVersion: e.apiVersion,
  createdAt: e.createdAt,
  deletedAt: e.deletedAt,
  description: e.description,
  destinationId: e.endpointId as WebhookDestinationId,
  enabledEvents: e.enabledEvents as WebhookEventSelection,
  name: e.name ?? "",
  projectId: e.projectId as ProjectId,
  status: e.status,
  updatedAt: e.updatedAt,
  url: e.url
})

/** The type of the event `sendTestEvent` delivers. */
export const TEST_EVENT_TYPE = "webhook.test" as const

export class WebhookDestinations extends Context.Service<WebhookDestinations>()("core/WebhookDestinations", {
  make: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const ids = yield* Ids
    const tx = yield* Transactor
    const policy = yield* WebhookPolicy
    const gate = yield* makeProjectGate
    const ops = yield* makeEndpointOps

    const checkUrl = (url: string) =>
      Result.match(checkWebhookUrl(url, policy.allowInsecureTargets), {
        onFailure: (reason) => Effect.fail(new WebhookUrlInvalid({ message: `url ${reason}` })),
        onSuccess: Effect.succeed
      })

    const checkEvents = (selection: ReadonlyArray<string>) => {
      if (selection.length === 1 && selection[0] === "*") return Effect.void
      const unknown = selection.filter((t) => !knownEventTypes.has(t))
      return unknown.length === 0
        ? Effect.void
        : Effect.fail(new InvalidWebhookRequest({
          field: "enabledEvents",
          message: `unknown event types: ${unknown.slice(0, 5).join(", ")} (see the event-types operation)`
        }))
    }

    /** The destination (deleted ones too), or not found. */
    const find = (projectId: ProjectId, destinationId: string, lock = false) =>
      Effect.flatMap(
        lock ? repo.lockEndpoint("destination", projectId, destinationId) : repo.findEndpoint("destination", projectId, destinationId),
        (found) => Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new WebhookDestinationNotFound({ destinationId }))
      )

    /** The destination unless deleted (410). */
    const live = (projectId: ProjectId, destinationId: string, lock = false) =>
      Effect.flatMap(find(projectId, destinationId, lock), (e) =>
        e.deletedAt === null ? Effect.succeed(e) : Effect.fail(new WebhookDestinationDeleted({ destinationId })))

    /** Checks the caller may see (or, for `write`, change) the project. */
    const openProject = fn("WebhookDestinations.openProject")(function*(
      projectId: ProjectId,
      principal: Principal,
      use: "read" | "write" = "read"
    ) {
      yield* gate.open(projectId, principal, use)
    })

    const create = fn("WebhookDestinations.create")(function*(
      projectId: ProjectId,
      principal: Principal,
      request: CreateWebhookDestinationRequest
    ) {
      if (!isSelectableApiVersion(request.apiVersion)) {
        return yield* new UnsupportedWebhookApiVersion({ apiVersion: request.apiVersion })
      }
      const url = yield* checkUrl(request.url)
      yield* checkEvents(request.enabledEvents)
      yield* gate.open(projectId, principal, "write")
      const { secret, sealed } = yield* ops.newSealedSecret(newDestinationSecret)
      const now = yield* DateTime.now
      const endpoint: NewWebhookEndpoint = {
        endpointId: yield* ids.typeId(IdKinds.webhookDestination),
        kind: "destination",
        projectId,
        url,
        name: request.name,
        description: request.description ?? null,
        status: request.status ?? "enabled",
        enabledEvents: request.enabledEvents,
        apiVersion: request.apiVersion,
        secret: sealed,
        previousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: now,
        updatedAt: now,
        deletedAt: null
      }
      const inserted = yield* ops.insertLimited(endpoint, (e) => Effect.orDie(repo.insertEndpoint(e)))
      return { destination: toWebhookDestination(inserted), signingSecret: secret.shown as Redacted.Redacted<string> }
    })

    /** Live destinations, oldest first, in signed cursor pages. */
    const list = fn("WebhookDestinations.list")(function*(
      projectId: ProjectId,
      principal: Principal,
      query: { readonly pageSize?: number | undefined; readonly pageToken?: string | undefined } = {}
    ) {
      yield* gate.open(projectId, principal, "read")
      const { page, nextPageToken } = yield* ops.cursorPage(
        `webhook-destinations:${projectId}`,
        query,
        (after, limit) => repo.listEndpoints({ kind: "destination", projectId, after, limit }),
        (e) => ({ createdAt: e.createdAt, id: e.endpointId })
      )
      return { destinations: page.map(toWebhookDestination), nextPageToken }
    })

    const get = fn("WebhookDestinations.get")(function*(projectId: ProjectId, principal: Principal, destinationId: string) {
      yield* gate.open(projectId, principal, "read")
      return toWebhookDestination(yield* live(projectId, destinationId))
    })

    const update = fn("WebhookDestinations.update")(function*(
      projectId: ProjectId,
      principal: Principal,
      destinationId: string,
      patch: UpdateWebhookDestinationRequest
    ) {
      const url = patch.url === undefined ? undefined : yield* checkUrl(patch.url)
      if (patch.enabledEvents !== undefined) yield* checkEvents(patch.enabledEvents)
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write")
        const current = yield* live(projectId, destinationId, true)
        const next: WebhookEndpoint = {
          ...current,
          url: url ?? current.url,
          name: patch.name ?? current.name,
          description: patch.description === undefined ? current.description : patch.description,
          status: patch.status ?? current.status,
          enabledEvents: patch.enabledEvents ?? current.enabledEvents
        }
        const changed = next.url !== current.url || next.name !== current.name || next.description !== current.description ||
          next.status !== current.status || next.enabledEvents.join("\n") !== current.enabledEvents.join("\n")
        if (!changed) return toWebhookDestination(current)
        const written = { ...next, updatedAt: yield* DateTime.now }
        yield* repo.updateEndpoint(written)
        return toWebhookDestination(written)
      }))
    })

    /** Deletes the destination; a repeat returns the same tombstone. Pending deliveries are cancelled. */
    const remove = fn("WebhookDestinations.delete")(function*(projectId: ProjectId, principal: Principal, destinationId: string) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "revoke")
        const current = yield* find(projectId, destinationId, true)
        if (current.deletedAt !== null) return toWebhookDestination(current)
        const now = yield* DateTime.now
        const deleted = { ...current, deletedAt: now, updatedAt: now }
        yield* repo.updateEndpoint(deleted)
        yield* repo.cancelPendingDeliveries(current.endpointId)
        return toWebhookDestination(deleted)
      }))
    })

    /**
     * A new signing secret, returned once. The previous one keeps signing for `overlapSeconds`
     * (default one day; 0 ends it at once): deliveries in between carry both signatures. A
     * rotation during an overlap drops the older secret.
     */
    const rotateSecret = fn("WebhookDestinations.rotateSecret")(function*(
      projectId: ProjectId,
      principal: Principal,
      destinationId: string,
      overlapSeconds: number = DEFAULT_OVERLAP_SECONDS
    ) {
      const { secret, sealed } = yield* ops.newSealedSecret(newDestinationSecret)
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write")
        const current = yield* live(projectId, destinationId, true)
        const now = yield* DateTime.now
        const previousSecretExpiresAt = overlapSeconds > 0
          ? DateTime.makeUnsafe(DateTime.toEpochMillis(now) + overlapSeconds * 1000) as DateTime.Utc
          : null
        yield* repo.updateEndpoint({
          ...current,
          secret: sealed,
          previousSecret: previousSecretExpiresAt === null ? null : current.secret,
          previousSecretExpiresAt,
          updatedAt: now
        })
        return { previousSecretExpiresAt, signingSecret: secret.shown as Redacted.Redacted<string> }
      }))
    })

    const retryDelivery = fn("WebhookDestinations.retryDelivery")(function*(
      projectId: ProjectId,
      principal: Principal,
      destinationId: string,
      request: { readonly eventId: string; readonly eventType: string; readonly expectedAttemptCount: number }
    ) {
      yield* gate.open(projectId, principal, "write")
      return yield* ops.retry(yield* live(projectId, destinationId), request)
    })

    const listDeliveries = fn("WebhookDestinations.listDeliveries")(function*(
      projectId: ProjectId,
      principal: Principal,
      destinationId: string,
      query: {
        readonly status?: DeliveryStatus | undefined
        readonly pageSize?: number | undefined
        readonly pageToken?: string | undefined
      } = {}
    ) {
      yield* gate.open(projectId, principal, "read")
      return yield* ops.deliveriesPage(yield* find(projectId, destinationId), query)
    })

    /**
     * Sends a `webhook.test` event to this destination only (not to the project's event log, not
     * to other destinations), signed and retried like any delivery. Returns its ids.
     */
    const sendTestEvent = fn("WebhookDestinations.sendTestEvent")(function*(
      projectId: ProjectId,
      principal: Principal,
      destinationId: string
    ) {
      yield* gate.open(projectId, principal, "write")
      const endpoint = yield* live(projectId, destinationId)
      const now = yield* DateTime.now
      const event: EventEnvelope = {
        id: (yield* ids.typeId(IdKinds.event)) as EventEnvelope["id"],
        type: TEST_EVENT_TYPE,
        apiVersion: EVENT_API_VERSION,
        source: `${destinationId}.webhooks.switchboard`,
        timestamp: now,
        data: { destinationId, message: "A test event from Switchboard: this destination receives and verifies deliveries." }
      }
      const deliveryId = yield* ids.typeId(IdKinds.delivery)
      yield* repo.insertTestDelivery({
        event,
        // The store gives the event its position.
        delivery: newDelivery({ deliveryId, endpoint, eventId: event.id, eventPosition: 0, eventType: event.type, now })
      })
      return { deliveryId, eventId: event.id, eventType: TEST_EVENT_TYPE }
    })

    return { openProject, create, list, get, update, delete: remove, rotateSecret, retryDelivery, listDeliveries, sendTestEvent } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}
