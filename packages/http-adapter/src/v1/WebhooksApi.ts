/**
 * The Webhooks feature's /v1 routes (docs/api-notes/events-and-webhooks.md): webhook destinations
 * (create *Idem*, list, get, update *Idem*, delete, rotate secret *Idem*, retry delivery *Idem*),
 * their deliveries (ours: the issue asks for dead-lettered deliveries to be listed), and the
 * egress-address, API-version and event-type catalogs. Reads need `events:read`, writes
 * `events:write`. Each endpoint declares the problems it can answer and whether it needs an
 * Idempotency-Key; the platform decodes paths, queries and payloads by these schemas.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Events } from "@switchboard/core"
import {
  CreateWebhookDestinationRequest,
  CreateWebhookDestinationResponse,
  ListWebhookApiVersionsResponse,
  ListWebhookDeliveriesQuery,
  ListWebhookDestinationsQuery,
  ListWebhookEgressAddressesResponse,
  ListWebhookEventTypesResponse,
  RetryWebhookDeliveryRequest,
  RetryWebhookDeliveryResponse,
  RotateWebhookSigningSecretRequest,
  RotateWebhookSigningSecretResponse,
  SendWebhookTestEventResponse,
  UpdateWebhookDestinationRequest,
  WebhookCatalogQuery,
  WebhookDeliveryPage,
  WebhookDestination,
  WebhookDestinationId,
  WebhookDestinationPage
} from "@switchboard/core/events"
import { ProjectId } from "@switchboard/core/shared"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import { Schema } from "effect"
import { idempotencyProblems as idempotency, projectProblems as project } from "./CommonProblems.js"
import { projectAccess } from "./Access.js"
import { Idempotent, Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

const ProjectPath = Schema.Struct({ projectId: ProjectId })
const DestinationPath = Schema.Struct({ projectId: ProjectId, destinationId: WebhookDestinationId })
const EventTypePath = Schema.Struct({ projectId: ProjectId, eventType: Events.EventType })

const queryDocs = (docs: Record<string, { description: string; schema: Record<string, unknown>; required?: boolean }>) =>
  (operation: Record<string, any>) => ({
    ...operation,
    parameters: (operation.parameters ?? []).map((p: Record<string, any>) => {
      const doc = p.in === "query" ? docs[p.name] : undefined
      return doc === undefined ? p : { ...p, required: doc.required === true, description: doc.description, schema: doc.schema }
    })
  })

const pageDocs = {
  pageSize: { description: "1-100, default 20", schema: { type: "integer", minimum: 1, maximum: 100, default: 20 } },
  pageToken: { description: "nextPageToken of the previous page", schema: { type: "string", minLength: 1, maxLength: 2048 } }
}
const apiVersionDoc = {
  apiVersion: { description: "payload API version, a date (e.g. 2026-07-01)", schema: { type: "string", format: "date" }, required: true }
}

/** The JSON Schema document of one event type (`application/schema+json`). */
const WebhookEventSchema = Schema.Record(Schema.String, Schema.Unknown).pipe(
  HttpApiSchema.asJson({ contentType: "application/schema+json" })
).annotate({ identifier: "WebhookEventSchema" })

const base = "/v1/projects/:projectId/webhooks"

const write: ReadonlyArray<ProblemCode> = [...project, ...idempotency, "PROJECT_CLOSING"]
const destination: ReadonlyArray<ProblemCode> = ["WEBHOOK_DESTINATION_NOT_FOUND", "WEBHOOK_DESTINATION_DELETED"]

export const WebhooksGroup = HttpApiGroup.make("webhooks")
  .add(HttpApiEndpoint.get("listWebhookApiVersions", `${base}/api-versions`, {
    params: ProjectPath,
    success: ListWebhookApiVersionsResponse,
    error: problems(project)
  }).annotate(Requires, projectAccess("events:read")).annotateMerge(OpenApi.annotations({ summary: "List webhook API versions", description: "The payload versions a destination can choose, with their status and successors." })))
  .add(
    HttpApiEndpoint.post("createWebhookDestination", `${base}/destinations`, {
      params: ProjectPath,
      payload: CreateWebhookDestinationRequest,
      success: CreateWebhookDestinationResponse.pipe(HttpApiSchema.status(201)),
      error: problems(write, "FAILED_PRECONDITION", "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, projectAccess("events:write")).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Create a webhook destination", description: "Registers a URL that receives the project's events; its signing secret is in this answer only." }))
  )
  .add(
    HttpApiEndpoint.get("listWebhookDestinations", `${base}/destinations`, {
      params: ProjectPath,
      query: ListWebhookDestinationsQuery,
      success: WebhookDestinationPage,
      error: problems(project)
    }).annotate(Requires, projectAccess("events:read")).annotateMerge(OpenApi.annotations({ summary: "List webhook destinations", description: "The project's webhook destinations, without secrets." })).annotate(OpenApi.Transform, queryDocs(pageDocs))
  )
  .add(HttpApiEndpoint.get("getWebhookDestination", `${base}/destinations/:destinationId`, {
    params: DestinationPath,
    success: WebhookDestination,
    error: problems(project, destination)
  }).annotate(Requires, projectAccess("events:read")).annotateMerge(OpenApi.annotations({ summary: "Get a webhook destination", description: "One destination with its settings and health." })))
  .add(
    HttpApiEndpoint.patch("updateWebhookDestination", `${base}/destinations/:destinationId`, {
      params: DestinationPath,
      payload: UpdateWebhookDestinationRequest,
      success: WebhookDestination,
      error: problems(write, destination, "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, projectAccess("events:write")).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Update a webhook destination", description: "Changes a destination's URL, event types, API version or state." }))
  )
  .add(HttpApiEndpoint.delete("deleteWebhookDestination", `${base}/destinations/:destinationId`, {
    params: DestinationPath,
    success: WebhookDestination,
    error: problems(project, "WEBHOOK_DESTINATION_NOT_FOUND")
  }).annotate(Requires, projectAccess("events:write")).annotateMerge(OpenApi.annotations({ summary: "Delete a webhook destination", description: "Deletes the destination; its pending deliveries are cancelled." })))
  .add(
    HttpApiEndpoint.post("retryWebhookDelivery", `${base}/destinations/:destinationId/retries`, {
      params: DestinationPath,
      payload: RetryWebhookDeliveryRequest,
      success: RetryWebhookDeliveryResponse.pipe(HttpApiSchema.status(202)),
      error: problems(write, destination, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION", "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, projectAccess("events:write")).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Retry deliveries", description: "Makes failed or dead-lettered deliveries of the destination due again." }))
  )
  .add(
    HttpApiEndpoint.post("sendWebhookTestEvent", `${base}/destinations/:destinationId/test-events`, {
      params: DestinationPath,
      success: SendWebhookTestEventResponse.pipe(HttpApiSchema.status(202)),
      error: problems(write, destination)
    }).annotate(Requires, projectAccess("events:write")).annotateMerge(OpenApi.annotations({ summary: "Send a test event", description: "Queues a signed test event for the destination." })).annotate(OpenApi.Description, "Queues a signed `webhook.test` event for this destination only (not the project's event log, not other destinations); it is delivered and retried like any event and listed among the destination's deliveries.")
  )
  .add(
    HttpApiEndpoint.post("rotateWebhookSigningSecret", `${base}/destinations/:destinationId/secret-rotations`, {
      params: DestinationPath,
      payload: RotateWebhookSigningSecretRequest,
      success: RotateWebhookSigningSecretResponse,
      error: problems(write, destination, "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, projectAccess("events:write")).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Rotate the signing secret", description: "Issues a new signing secret, shown once; the previous one keeps signing for a while." }))
  )
  .add(
    HttpApiEndpoint.get("listWebhookDeliveries", `${base}/destinations/:destinationId/deliveries`, {
      params: DestinationPath,
      query: ListWebhookDeliveriesQuery,
      success: WebhookDeliveryPage,
      error: problems(project, "WEBHOOK_DESTINATION_NOT_FOUND")
    }).annotate(Requires, projectAccess("events:read")).annotateMerge(OpenApi.annotations({ summary: "List deliveries", description: "The destination's delivery log, newest first: status, attempts, last response." })).annotate(OpenApi.Transform, queryDocs({
      status: {
        description: "only deliveries in this state",
        schema: { type: "string", enum: ["pending", "delivered", "dead_lettered", "cancelled"] }
      },
      ...pageDocs
    }))
  )
  .add(
    HttpApiEndpoint.get("listWebhookEgressAddresses", `${base}/egress-addresses`, {
      params: ProjectPath,
      success: ListWebhookEgressAddressesResponse,
      error: problems(project)
    }).annotate(Requires, projectAccess("events:read")).annotateMerge(OpenApi.annotations({ summary: "Webhook egress addresses", description: "The IP addresses deliveries come from, for a receiver's allow list." }))
  )
  .add(
    HttpApiEndpoint.get("listWebhookEventTypes", `${base}/event-types`, {
      params: ProjectPath,
      query: WebhookCatalogQuery,
      success: ListWebhookEventTypesResponse,
      error: problems(project)
    }).annotate(Requires, projectAccess("events:read")).annotateMerge(OpenApi.annotations({ summary: "List event types", description: "The event types a destination can subscribe to." })).annotate(OpenApi.Transform, queryDocs(apiVersionDoc))
  )
  .add(
    HttpApiEndpoint.get("getWebhookEventSchema", `${base}/event-types/:eventType/schema`, {
      params: EventTypePath,
      query: WebhookCatalogQuery,
      success: WebhookEventSchema,
      error: problems(project, "RESOURCE_NOT_FOUND")
    }).annotate(Requires, projectAccess("events:read")).annotateMerge(OpenApi.annotations({ summary: "Get an event's schema", description: "The JSON Schema of an event type's payload." })).annotate(OpenApi.Transform, queryDocs(apiVersionDoc))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Webhooks",
    description: "Webhook destinations (Standard Webhooks signatures), their deliveries, and the event catalog."
  }))
