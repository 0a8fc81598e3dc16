/**
 * The Webhooks feature's /v1 handlers (API.md §1.7). Reads need `events:read`, writes
 * `events:write` (a project API key with those permissions may use them); core checks the project
 * (404 unknown or not a member, 410 deleted, 409 closing on writes). The catalog operations
 * (API versions, event types, event schemas, egress addresses) answer conditional GETs: an ETag,
 * and 304 when `If-None-Match` matches.
 */
import { HttpApiBuilder } from "effect/http-api"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import {
  CreateWebhookDestinationRequest,
  CreateWebhookDestinationResponse,
  eventCatalog,
  eventJsonSchema,
  ListWebhookApiVersionsResponse,
  ListWebhookDeliveriesQuery,
  ListWebhookDestinationsQuery,
  ListWebhookEgressAddressesResponse,
  ListWebhookEventTypesResponse,
  RetryWebhookDeliveryRequest,
  RetryWebhookDeliveryResponse,
  SendWebhookTestEventResponse,
  RotateWebhookSigningSecretRequest,
  RotateWebhookSigningSecretResponse,
  UpdateWebhookDestinationRequest,
  webhookApiVersions,
  WebhookCatalogQuery,
  WebhookDeliveryPage,
  WebhookDestination,
  WebhookDestinationPage,
  WebhookDestinations
} from "@switchboard/core/events"
import { sha256Hex } from "@switchboard/core/internal"
import { type ProjectId } from "@switchboard/core/shared"
import { Effect, Redacted } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { v1Group } from "./V1Group.js"
import { WebhooksGroup } from "./WebhooksApi.js"
import { idempotent } from "./Idempotency.js"
import { decodeJsonBody, domain, type Rendered, rendered, toResponse } from "./Pipeline.js"
import { problem, validationFailed } from "./Problems.js"
import { decodeQuery, onProject } from "./ProjectsHandlers.js"

/** The contract's namespace of the API-version catalog is the package that defines the events. */
const CONTRACT_NAMESPACE = "@switchboard/core"
const PACKAGE_VERSION = "0.1.0"

/**
 * A cacheable catalog answer: a strong ETag over the body; `If-None-Match` naming it (or `*`)
 * gets 304 with no body.
 */
const conditional = (r: Rendered) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const etag = `"${(yield* sha256Hex(r.body)).slice(0, 32)}"`
    const ifNoneMatch = request.headers["if-none-match"]
    const matches = ifNoneMatch !== undefined &&
      ifNoneMatch.split(",").map((t) => t.trim().replace(/^W\//, "")).some((t) => t === etag || t === "*")
    if (matches) return HttpServerResponse.empty({ status: 304, headers: { etag, "cache-control": "private, max-age=300" } })
    return toResponse(r, { etag, "cache-control": "private, max-age=300" })
  })

/** The `apiVersion` query of the catalog operations: required, a date, and a version we publish. */
const catalogVersion = Effect.gen(function*() {
  const { apiVersion } = yield* decodeQuery(WebhookCatalogQuery)
  const entry = webhookApiVersions.find((v) => v.version === apiVersion)
  if (entry === undefined) {
    return yield* validationFailed([{
      code: "invalid_value",
      location: "query",
      message: `unknown payload API version ${apiVersion} (see the api-versions operation)`,
      path: "/apiVersion"
    }], `apiVersion ${apiVersion} is not published.`)
  }
  return entry
})

export const WebhooksGroupLive = HttpApiBuilder.group(v1Group(WebhooksGroup), "webhooks", (handlers) =>
  Effect.gen(function*() {
    const destinations = yield* WebhookDestinations
    const config = yield* ServerConfig
    const route = "/v1/projects/:projectId/webhooks/destinations"

    /** The caller may read the project (catalog operations are per project too). */
    const readable = (projectId: ProjectId) =>
      Effect.gen(function*() {
        const principal = yield* onProject(projectId, "events:read")
        yield* domain(destinations.openProject(projectId, principal))
      })

    return handlers
      .handleRaw("listWebhookApiVersions", ({ params: path }) =>
        Effect.gen(function*() {
          yield* readable(path.projectId)
          return yield* conditional(yield* rendered(ListWebhookApiVersionsResponse, {
            apiVersions: webhookApiVersions,
            contractNamespace: CONTRACT_NAMESPACE,
            packageVersion: PACKAGE_VERSION
          }))
        }))
      .handleRaw("listWebhookEgressAddresses", ({ params: path }) =>
        Effect.gen(function*() {
          yield* readable(path.projectId)
          return yield* conditional(yield* rendered(ListWebhookEgressAddressesResponse, { ipAddresses: config.egressIps }))
        }))
      .handleRaw("listWebhookEventTypes", ({ params: path }) =>
        Effect.gen(function*() {
          yield* readable(path.projectId)
          const version = yield* catalogVersion
          const events = [...eventCatalog].map(([type, spec]) => ({
            type,
            description: spec.description,
            audience: spec.audience,
            schemaProfile: "reader" as const,
            schemaUrl: `/v1/projects/${path.projectId}/webhooks/event-types/${type}/schema?apiVersion=${version.version}`
          }))
          return yield* conditional(yield* rendered(ListWebhookEventTypesResponse, {
            apiVersion: version.version,
            status: version.status,
            selectable: version.selectable,
            successor: version.successor,
            retirement: version.retirement,
            events
          }))
        }))
      .handleRaw("getWebhookEventSchema", ({ params: path }) =>
        Effect.gen(function*() {
          yield* readable(path.projectId)
          yield* catalogVersion
          const schema = eventJsonSchema(path.eventType)
          if (schema === undefined) {
            return yield* problem("RESOURCE_NOT_FOUND", `No event type ${path.eventType} in this API version.`)
          }
          return yield* conditional({
            status: 200,
            headers: { "content-type": "application/schema+json" },
            body: JSON.stringify(schema)
          })
        }))
      .handleRaw("createWebhookDestination", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          const body = yield* decodeJsonBody(CreateWebhookDestinationRequest)
          return yield* idempotent(
            { route, path: { projectId: path.projectId }, body: body.json },
            Effect.gen(function*() {
              const created = yield* domain(destinations.create(path.projectId, principal, body.value))
              return yield* rendered(
                CreateWebhookDestinationResponse,
                { destination: created.destination, signingSecret: Redacted.value(created.signingSecret) },
                201,
                { "cache-control": "no-store" }
              )
            })
          )
        }))
      .handleRaw("listWebhookDestinations", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:read")
          const query = yield* decodeQuery(ListWebhookDestinationsQuery)
          const page = yield* domain(destinations.list(path.projectId, principal, query))
          return toResponse(yield* rendered(WebhookDestinationPage, {
            destinations: page.destinations,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }))
        }))
      .handleRaw("getWebhookDestination", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:read")
          const destination = yield* domain(destinations.get(path.projectId, principal, path.destinationId))
          return toResponse(yield* rendered(WebhookDestination, destination))
        }))
      .handleRaw("updateWebhookDestination", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          const body = yield* decodeJsonBody(UpdateWebhookDestinationRequest)
          return yield* idempotent(
            { route: `${route}/:destinationId`, path: { projectId: path.projectId, destinationId: path.destinationId }, body: body.json },
            Effect.gen(function*() {
              const destination = yield* domain(destinations.update(path.projectId, principal, path.destinationId, body.value))
              return yield* rendered(WebhookDestination, destination)
            })
          )
        }))
      .handleRaw("deleteWebhookDestination", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          const destination = yield* domain(destinations.delete(path.projectId, principal, path.destinationId))
          return toResponse(yield* rendered(WebhookDestination, destination))
        }))
      .handleRaw("rotateWebhookSigningSecret", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          const body = yield* decodeJsonBody(RotateWebhookSigningSecretRequest)
          return yield* idempotent(
            {
              route: `${route}/:destinationId/secret-rotations`,
              path: { projectId: path.projectId, destinationId: path.destinationId },
              body: body.json
            },
            Effect.gen(function*() {
              const rotated = yield* domain(
                destinations.rotateSecret(path.projectId, principal, path.destinationId, body.value.overlapSeconds)
              )
              return yield* rendered(
                RotateWebhookSigningSecretResponse,
                { previousSecretExpiresAt: rotated.previousSecretExpiresAt, signingSecret: Redacted.value(rotated.signingSecret) },
                200,
                { "cache-control": "no-store" }
              )
            })
          )
        }))
      .handleRaw("sendWebhookTestEvent", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          const queued = yield* domain(destinations.sendTestEvent(path.projectId, principal, path.destinationId))
          return toResponse(yield* rendered(SendWebhookTestEventResponse, queued, 202))
        }))
      .handleRaw("retryWebhookDelivery", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          const body = yield* decodeJsonBody(RetryWebhookDeliveryRequest)
          return yield* idempotent(
            {
              route: `${route}/:destinationId/retries`,
              path: { projectId: path.projectId, destinationId: path.destinationId },
              body: body.json
            },
            Effect.gen(function*() {
              yield* domain(destinations.retryDelivery(path.projectId, principal, path.destinationId, body.value))
              return yield* rendered(RetryWebhookDeliveryResponse, { status: "accepted" as const }, 202)
            })
          )
        }))
      .handleRaw("listWebhookDeliveries", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:read")
          const query = yield* decodeQuery(ListWebhookDeliveriesQuery)
          const page = yield* domain(destinations.listDeliveries(path.projectId, principal, path.destinationId, query))
          return toResponse(yield* rendered(WebhookDeliveryPage, {
            deliveries: page.deliveries,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }))
        }))
  }))
