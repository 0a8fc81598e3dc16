/**
 * The Webhooks feature's /v1 handlers (docs/api-notes/events-and-webhooks.md). Reads need
 * `events:read`, writes `events:write` (a project API key with those permissions may use them);
 * core checks the project (404 unknown or not a member, 410 deleted, 409 closing on writes). The
 * catalog operations (API versions, event types, event schemas, egress addresses) answer
 * conditional GETs: an ETag, and 304 when `If-None-Match` matches.
 */
import { HttpApiBuilder } from "effect/http-api"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import {
  CreateWebhookDestinationResponse,
  eventCatalog,
  eventJsonSchema,
  ListWebhookApiVersionsResponse,
  ListWebhookEgressAddressesResponse,
  ListWebhookEventTypesResponse,
  RotateWebhookSigningSecretResponse,
  webhookApiVersions,
  WebhookCatalogQuery,
  WebhookDestinations
} from "@switchboard/core/events"
import { sha256Hex } from "@switchboard/core/internal"
import { type ProjectId } from "@switchboard/core/shared"
import { Effect, Redacted } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { onProject } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { WebhooksGroup } from "./WebhooksApi.js"
import { packageVersion } from "../docs/PackageVersion.js"
import { domain, type Rendered, rendered, toResponse } from "./Pipeline.js"
import { problem, validationFailed } from "./Problems.js"

/** The contract's namespace of the API-version catalog is the package that defines the events. */
const CONTRACT_NAMESPACE = "@switchboard/core"

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
const catalogVersion = ({ apiVersion }: typeof WebhookCatalogQuery.Type) => Effect.gen(function*() {
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

    /** The caller may read the project (catalog operations are per project too). */
    const readable = (projectId: ProjectId) =>
      Effect.gen(function*() {
        const principal = yield* onProject(projectId, "events:read")
        yield* domain(destinations.openProject(projectId, principal))
      })

    return handlers
      .handle("listWebhookApiVersions", ({ params: path }) =>
        Effect.gen(function*() {
          yield* readable(path.projectId)
          return yield* conditional(yield* rendered(ListWebhookApiVersionsResponse, {
            apiVersions: webhookApiVersions,
            contractNamespace: CONTRACT_NAMESPACE,
            packageVersion
          }))
        }))
      .handle("listWebhookEgressAddresses", ({ params: path }) =>
        Effect.gen(function*() {
          yield* readable(path.projectId)
          return yield* conditional(yield* rendered(ListWebhookEgressAddressesResponse, { ipAddresses: config.egressIps }))
        }))
      .handle("listWebhookEventTypes", ({ params: path, query }) =>
        Effect.gen(function*() {
          yield* readable(path.projectId)
          const version = yield* catalogVersion(query)
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
      .handle("getWebhookEventSchema", ({ params: path, query }) =>
        Effect.gen(function*() {
          yield* readable(path.projectId)
          yield* catalogVersion(query)
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
      .handle("createWebhookDestination", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          const created = yield* domain(destinations.create(path.projectId, principal, payload))
          // The signing secret is in this answer only: no cache may keep it.
          return toResponse(yield* rendered(
            CreateWebhookDestinationResponse,
            { destination: created.destination, signingSecret: Redacted.value(created.signingSecret) },
            201,
            { "cache-control": "no-store" }
          ))
        }))
      .handle("listWebhookDestinations", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:read")
          const page = yield* domain(destinations.list(path.projectId, principal, query))
          return {
            destinations: page.destinations,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }
        }))
      .handle("getWebhookDestination", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:read")
          return yield* domain(destinations.get(path.projectId, principal, path.destinationId))
        }))
      .handle("updateWebhookDestination", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          return yield* domain(destinations.update(path.projectId, principal, path.destinationId, payload))
        }))
      .handle("deleteWebhookDestination", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          return yield* domain(destinations.delete(path.projectId, principal, path.destinationId))
        }))
      .handle("rotateWebhookSigningSecret", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          const rotated = yield* domain(destinations.rotateSecret(path.projectId, principal, path.destinationId, payload.overlapSeconds))
          // The new signing secret is in this answer only: no cache may keep it.
          return toResponse(yield* rendered(
            RotateWebhookSigningSecretResponse,
            { previousSecretExpiresAt: rotated.previousSecretExpiresAt, signingSecret: Redacted.value(rotated.signingSecret) },
            200,
            { "cache-control": "no-store" }
          ))
        }))
      .handle("sendWebhookTestEvent", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          return yield* domain(destinations.sendTestEvent(path.projectId, principal, path.destinationId))
        }))
      .handle("retryWebhookDelivery", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          yield* domain(destinations.retryDelivery(path.projectId, principal, path.destinationId, payload))
          return { status: "accepted" as const }
        }))
      .handle("listWebhookDeliveries", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:read")
          const page = yield* domain(destinations.listDeliveries(path.projectId, principal, path.destinationId, query))
          return {
            deliveries: page.deliveries,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }
        }))
  }))
