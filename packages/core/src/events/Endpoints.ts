/**
 * What management webhooks and v1 destinations share: signing secrets (made here, sealed at rest
 * with `ServerSecret.seal`, unsealed to sign), creation under the per-project limit, lists in
 * signed cursor pages, deliveries as listed on the wire, and the fenced manual retry.
 */
import { DateTime, Effect, Option, Redacted } from "effect"
import { ProjectsRepo } from "../projects/Ports.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { createdAtPage, type CreatedPosition } from "../shared/PageToken.js"
import { Transactor } from "../shared/Ports.js"
import { Secrets } from "../shared/Secrets.js"
import { seal, ServerSecret, unseal } from "../shared/ServerSecret.js"
import { WebhookPolicy } from "./DeliveryPolicy.js"
import { formatWhsec } from "./Signing.js"
import {
  InvalidWebhookQuery,
  WebhookDeliveryNotFound,
  WebhookLimitReached,
  WebhookRetryRefused
} from "./WebhookErrors.js"
import {
  type DeliveryRecord,
  type DeliveryStatus,
  type NewWebhookEndpoint,
  type WebhookEndpoint,
  WebhooksRepo
} from "./WebhookPorts.js"
import type { WebhookDelivery, WebhookDeliveryId } from "./WebhookSchema.js"
import type { EventId } from "../shared/Identifiers.js"

/** The purpose (key derivation and AAD) under which signing secrets are sealed. */
export const SIGNING_SECRET_PURPOSE = "webhook-signing-secret"

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("")
const te = new TextEncoder()

/** A new signing secret: what is shown once, and the HMAC key to seal. */
export interface NewSecret {
  readonly shown: Redacted.Redacted<string>
  readonly key: Uint8Array
}

/** Management webhooks: 64 lower-case hex (32 random bytes); the key is the hex text itself (v0 scheme). */
export const newManagementSecret = Effect.map(
  Effect.flatMap(Secrets, (s) => s.randomBytes(32)),
  (bytes): NewSecret => {
    const shown = hex(bytes)
    return { shown: Redacted.make(shown), key: te.encode(shown) }
  }
)

/** v1 destinations: `whsec_` + base64 of 32 random bytes (Standard Webhooks); the key is the bytes. */
export const newDestinationSecret = Effect.map(
  Effect.flatMap(Secrets, (s) => s.randomBytes(32)),
  (key): NewSecret => ({ shown: Redacted.make(formatWhsec(key)), key })
)

export const sealSecret = (key: Uint8Array) => seal(SIGNING_SECRET_PURPOSE, key)

/** The keys that sign right now: the current one, then the previous one while its overlap lasts. */
export const signingKeys = (endpoint: WebhookEndpoint, now: DateTime.Utc) =>
  Effect.gen(function*() {
    const current = yield* unseal(SIGNING_SECRET_PURPOSE, endpoint.secret)
    if (current === undefined) return undefined
    const keys = [current]
    if (
      endpoint.previousSecret !== null && endpoint.previousSecretExpiresAt !== null &&
      DateTime.isGreaterThan(endpoint.previousSecretExpiresAt, now)
    ) {
      const previous = yield* unseal(SIGNING_SECRET_PURPOSE, endpoint.previousSecret)
      if (previous !== undefined) keys.push(previous)
    }
    return keys as ReadonlyArray<Uint8Array>
  })

/** A delivery as the wire shows it at `now`. */
export const toWireDelivery = (d: DeliveryRecord, now: DateTime.Utc): WebhookDelivery => {
  const inFlight = d.status === "pending" && d.leasedUntil !== null && DateTime.isGreaterThan(d.leasedUntil, now)
  return {
    deliveryId: d.deliveryId as WebhookDeliveryId,
    eventId: d.eventId as EventId,
    eventType: d.eventType,
    status: d.status,
    attemptCount: d.attemptCount,
    nextAttemptAt: d.status === "pending" ? d.nextAttemptAt : null,
    inFlight,
    lastAttemptAt: d.lastAttemptAt,
    lastError: d.lastError,
    lastResponseStatus: d.lastResponseStatus,
    deliveredAt: d.deliveredAt,
    createdAt: d.createdAt
  }
}

/** Where a row stands in its list: its creation time, then its id. */
export type PagePosition = CreatedPosition

/** Shared operations over one kind of endpoint. */
export const makeEndpointOps = Effect.gen(function*() {
  const repo = yield* WebhooksRepo
  const projects = yield* ProjectsRepo
  const tx = yield* Transactor
  const policy = yield* WebhookPolicy
  const secrets = yield* Secrets
  const serverSecret = yield* ServerSecret

  /** A new signing secret made by `make` (shown once), and its key sealed for storage. */
  const newSealedSecret = (make: Effect.Effect<NewSecret, never, Secrets>) =>
    Effect.gen(function*() {
      const secret = yield* make
      const sealed = yield* sealSecret(secret.key)
      return { secret, sealed }
    }).pipe(Effect.provideService(Secrets, secrets), Effect.provideService(ServerSecret, serverSecret))

  /**
   * One page of the list named `listName` (name its filters too): `pageSize` 1 to 100 (default
   * 20), `pageToken` a signed cursor of this list. `fetch` reads up to `limit` rows past the
   * cursor's position (none: from the start) in list order; `positionOf` places a row, for the
   * next page's token (absent on the last page).
   */
  const cursorPage = <Row, E, R>(
    listName: string,
    query: { readonly pageSize?: number | undefined; readonly pageToken?: string | undefined },
    fetch: (cursor: PagePosition | undefined, limit: number) => Effect.Effect<ReadonlyArray<Row>, E, R>,
    positionOf: (row: Row) => PagePosition
  ) =>
    Effect.gen(function*() {
      const pageSize = query.pageSize ?? 20
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
        return yield* new InvalidWebhookQuery({ parameter: "pageSize", message: "must be an integer from 1 to 100" })
      }
      return yield* createdAtPage({
        list: listName,
        pageSize,
        pageToken: query.pageToken,
        fetch,
        positionOf,
        invalidToken: (message) => new InvalidWebhookQuery({ parameter: "pageToken", message })
      }).pipe(Effect.provideService(ServerSecret, serverSecret))
    })

  /**
   * Inserts an endpoint unless the project already has the maximum of live ones of its kind. The
   * project row is locked, so concurrent creates never pass the limit. The endpoint starts after
   * the outbox's head, read in the same transaction (`WebhookEndpoint.startsAfterPosition`): it
   * receives only the events committed after it. Returns the endpoint as inserted.
   */
  const insertLimited = <E>(endpoint: NewWebhookEndpoint, insert: (endpoint: WebhookEndpoint) => Effect.Effect<void, E>) =>
    tx.withTransaction(Effect.gen(function*() {
      yield* projects.lock(endpoint.projectId as ProjectId)
      const live = yield* repo.countLiveEndpoints(endpoint.kind, endpoint.projectId)
      if (live >= policy.maxEndpointsPerProject) return yield* new WebhookLimitReached({ limit: policy.maxEndpointsPerProject })
      const inserted: WebhookEndpoint = { ...endpoint, startsAfterPosition: yield* repo.outboxHead }
      yield* insert(inserted)
      return inserted
    }))

  /** A page of an endpoint's deliveries, newest first. */
  const deliveriesPage = (endpoint: WebhookEndpoint, query: {
    readonly status?: DeliveryStatus | undefined
    readonly pageSize?: number | undefined
    readonly pageToken?: string | undefined
  }) =>
    Effect.gen(function*() {
      const { page, nextPageToken } = yield* cursorPage(
        `webhook-deliveries:${endpoint.endpointId}:${query.status ?? "*"}`,
        query,
        (before, limit) => repo.listDeliveries({ endpointId: endpoint.endpointId, status: query.status, before, limit }),
        (d) => ({ createdAt: d.createdAt, id: d.deliveryId })
      )
      const now = yield* DateTime.now
      return { deliveries: page.map((d) => toWireDelivery(d, now)), nextPageToken }
    })

  /**
   * A manual retry (docs/api-notes/events-and-webhooks.md `retryWebhookDelivery`): the delivery of
   * `eventId` becomes due now, once, overriding its backoff; a dead-lettered one gets one more
   * attempt. Refused when the attempt count moved on since the caller looked
   * (`expectedAttemptCount`), when the event type does not match, when it was delivered or
   * cancelled, while an attempt is in flight, or while the endpoint is disabled.
   */
  const retry = (endpoint: WebhookEndpoint, request: {
    readonly eventId: string
    readonly eventType?: string | undefined
    readonly expectedAttemptCount?: number | undefined
  }) =>
    tx.withTransaction(Effect.gen(function*() {
      const found = yield* repo.lockDelivery(endpoint.endpointId, request.eventId)
      if (Option.isNone(found)) return yield* new WebhookDeliveryNotFound({ eventId: request.eventId })
      const d = found.value
      const now = yield* DateTime.now
      const refuse = (reason: string) => Effect.fail(new WebhookRetryRefused({ reason }))
      if (request.eventType !== undefined && request.eventType !== d.eventType) {
        return yield* refuse(`event ${d.eventId} is a ${d.eventType} event, not ${request.eventType}`)
      }
      if (request.expectedAttemptCount !== undefined && request.expectedAttemptCount !== d.attemptCount) {
        return yield* refuse(`the delivery has ${d.attemptCount} attempts, not ${request.expectedAttemptCount}; look again`)
      }
      if (d.status === "delivered") return yield* refuse("the event was already delivered")
      if (d.status === "cancelled") return yield* refuse("the delivery was cancelled when its webhook was deleted")
      if (endpoint.status !== "enabled") return yield* refuse("the webhook is disabled")
      if (d.leasedUntil !== null && DateTime.isGreaterThan(d.leasedUntil, now)) return yield* refuse("an attempt is in flight")
      yield* repo.scheduleDelivery({ deliveryId: d.deliveryId, at: now })
      return toWireDelivery({ ...d, status: "pending", nextAttemptAt: now, leasedUntil: null }, now)
    }))

  return { newSealedSecret, insertLimited, cursorPage, deliveriesPage, retry } as const
})
