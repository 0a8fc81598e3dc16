/**
 * The Webhooks feature's /v1 routes (API.md §1.7; contract.md §1 8b, §3.9): webhook destinations
 * (create *Idem*, list, get, update *Idem*, delete, rotate secret *Idem*, retry delivery *Idem*),
 * their deliveries (ours: the issue asks for dead-lettered deliveries to be listed), and the
 * egress-address, API-version and event-type catalogs. Reads need `events:read`, writes
 * `events:write`. Handlers read bodies and queries themselves (`handleRaw`); the schemas here serve
 * routing and the OpenAPI document.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Events } from "@switchboard/core"
import {
  CreateWebhookDestinationRequest,
  CreateWebhookDestinationResponse,
  ListWebhookApiVersionsResponse,
  ListWebhookEgressAddressesResponse,
  ListWebhookEventTypesResponse,
  RetryWebhookDeliveryRequest,
  RetryWebhookDeliveryResponse,
  SendWebhookTestEventResponse,
  RotateWebhookSigningSecretRequest,
  RotateWebhookSigningSecretResponse,
  UpdateWebhookDestinationRequest,
  WebhookDeliveryPage,
  WebhookDestination,
  WebhookDestinationId,
  WebhookDestinationPage
} from "@switchboard/core/events"
import { type ProblemCode, ProjectId } from "@switchboard/core/shared"
import { Schema } from "effect"
import { Authn } from "./Authn.js"
import { idempotencyProblems as idempotency, projectProblems as project } from "./CommonProblems.js"

const ProjectPath = Schema.Struct({ projectId: ProjectId })
const DestinationPath = Schema.Struct({ projectId: ProjectId, destinationId: WebhookDestinationId })
const EventTypePath = Schema.Struct({ projectId: ProjectId, eventType: Events.EventType })

/** Query parameters reach the handler as strings; it decodes them strictly (422, location `query`). */
const queryParam = Schema.optional(Schema.String)

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
const WebhookEventSchema = Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
  HttpApiSchema.withEncoding({ kind: "Json", contentType: "application/schema+json" })
).annotations({ identifier: "WebhookEventSchema" })

const base = "/v1/projects/:projectId/webhooks"

export const WebhooksGroup = HttpApiGroup.make("webhooks")
  .add(HttpApiEndpoint.get("listWebhookApiVersions", `${base}/api-versions`).setPath(ProjectPath).addSuccess(ListWebhookApiVersionsResponse))
  .add(
    HttpApiEndpoint.post("createWebhookDestination", `${base}/destinations`)
      .setPath(ProjectPath)
      .setPayload(CreateWebhookDestinationRequest)
      .addSuccess(CreateWebhookDestinationResponse, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("listWebhookDestinations", `${base}/destinations`)
      .setPath(ProjectPath)
      .setUrlParams(Schema.Struct({ pageSize: queryParam, pageToken: queryParam }))
      .addSuccess(WebhookDestinationPage)
      .annotate(OpenApi.Transform, queryDocs(pageDocs))
  )
  .add(HttpApiEndpoint.get("getWebhookDestination", `${base}/destinations/:destinationId`).setPath(DestinationPath).addSuccess(WebhookDestination))
  .add(
    HttpApiEndpoint.patch("updateWebhookDestination", `${base}/destinations/:destinationId`)
      .setPath(DestinationPath)
      .setPayload(UpdateWebhookDestinationRequest)
      .addSuccess(WebhookDestination)
  )
  .add(HttpApiEndpoint.del("deleteWebhookDestination", `${base}/destinations/:destinationId`).setPath(DestinationPath).addSuccess(WebhookDestination))
  .add(
    HttpApiEndpoint.post("retryWebhookDelivery", `${base}/destinations/:destinationId/retries`)
      .setPath(DestinationPath)
      .setPayload(RetryWebhookDeliveryRequest)
      .addSuccess(RetryWebhookDeliveryResponse, { status: 202 })
  )
  .add(
    HttpApiEndpoint.post("sendWebhookTestEvent", `${base}/destinations/:destinationId/test-events`)
      .setPath(DestinationPath)
      .addSuccess(SendWebhookTestEventResponse, { status: 202 })
      .annotate(OpenApi.Description, "Queues a signed `webhook.test` event for this destination only (not the project's event log, not other destinations); it is delivered and retried like any event and listed among the destination's deliveries.")
  )
  .add(
    HttpApiEndpoint.post("rotateWebhookSigningSecret", `${base}/destinations/:destinationId/secret-rotations`)
      .setPath(DestinationPath)
      .setPayload(RotateWebhookSigningSecretRequest)
      .addSuccess(RotateWebhookSigningSecretResponse)
  )
  .add(
    HttpApiEndpoint.get("listWebhookDeliveries", `${base}/destinations/:destinationId/deliveries`)
      .setPath(DestinationPath)
      .setUrlParams(Schema.Struct({ status: queryParam, pageSize: queryParam, pageToken: queryParam }))
      .addSuccess(WebhookDeliveryPage)
      .annotate(OpenApi.Transform, queryDocs({
        status: {
          description: "only deliveries in this state",
          schema: { type: "string", enum: ["pending", "delivered", "dead_lettered", "cancelled"] }
        },
        ...pageDocs
      }))
  )
  .add(
    HttpApiEndpoint.get("listWebhookEgressAddresses", `${base}/egress-addresses`)
      .setPath(ProjectPath)
      .addSuccess(ListWebhookEgressAddressesResponse)
  )
  .add(
    HttpApiEndpoint.get("listWebhookEventTypes", `${base}/event-types`)
      .setPath(ProjectPath)
      .setUrlParams(Schema.Struct({ apiVersion: queryParam }))
      .addSuccess(ListWebhookEventTypesResponse)
      .annotate(OpenApi.Transform, queryDocs(apiVersionDoc))
  )
  .add(
    HttpApiEndpoint.get("getWebhookEventSchema", `${base}/event-types/:eventType/schema`)
      .setPath(EventTypePath)
      .setUrlParams(Schema.Struct({ apiVersion: queryParam }))
      .addSuccess(WebhookEventSchema)
      .annotate(OpenApi.Transform, queryDocs(apiVersionDoc))
  )
  .middleware(Authn)
  .annotateContext(OpenApi.annotations({
    title: "Webhooks",
    description: "Webhook destinations (Standard Webhooks signatures), their deliveries, and the event catalog."
  }))

// Kept here (not imported from Api.ts, which imports this module) to avoid an import cycle.
const write: ReadonlyArray<ProblemCode> = [...project, ...idempotency, "PROJECT_CLOSING"]
const destination: ReadonlyArray<ProblemCode> = ["WEBHOOK_DESTINATION_NOT_FOUND", "WEBHOOK_DESTINATION_DELETED"]

/** operationId → problem codes (OpenAPI). */
export const webhooksProblems: Record<string, ReadonlyArray<ProblemCode>> = {
  "webhooks.listWebhookApiVersions": project,
  "webhooks.createWebhookDestination": [...write, "FAILED_PRECONDITION", "PAYLOAD_TOO_LARGE"],
  "webhooks.listWebhookDestinations": project,
  "webhooks.getWebhookDestination": [...project, ...destination],
  "webhooks.updateWebhookDestination": [...write, ...destination, "PAYLOAD_TOO_LARGE"],
  "webhooks.deleteWebhookDestination": [...project, "WEBHOOK_DESTINATION_NOT_FOUND"],
  "webhooks.retryWebhookDelivery": [...write, ...destination, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION", "PAYLOAD_TOO_LARGE"],
  "webhooks.rotateWebhookSigningSecret": [...write, ...destination, "PAYLOAD_TOO_LARGE"],
  "webhooks.sendWebhookTestEvent": [...write, ...destination],
  "webhooks.listWebhookDeliveries": [...project, "WEBHOOK_DESTINATION_NOT_FOUND"],
  "webhooks.listWebhookEgressAddresses": project,
  "webhooks.listWebhookEventTypes": project,
  "webhooks.getWebhookEventSchema": [...project, "RESOURCE_NOT_FOUND"]
}

/** operationIds that need an Idempotency-Key. */
export const webhooksIdempotent: ReadonlyArray<string> = [
  "webhooks.createWebhookDestination",
  "webhooks.updateWebhookDestination",
  "webhooks.rotateWebhookSigningSecret",
  "webhooks.retryWebhookDelivery"
]
