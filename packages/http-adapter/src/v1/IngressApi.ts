/**
 * The ingress endpoints' /v1 routes (docs/event-channel.md): a project creates, lists and revokes
 * the URLs third parties post webhooks to (each request becomes an `external-webhook.received`
 * event). The secret of the URL is in the create response only.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { IngressPlatform, IngressSourceId } from "@switchboard/core/events"
import { ProjectId, Timestamp } from "@switchboard/core/shared"
import { Schema } from "effect"
import { projectProblems as common } from "./CommonProblems.js"
import { projectAccess } from "./Access.js"
import { Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

// The `u` flag: Effect 4 writes a `pattern` into the JSON Schema only for a Unicode RegExp.
const IngressEndpointId = Schema.String.pipe(Schema.check(Schema.isPattern(/^sb_ing_[0-7][0-9a-hjkmnp-tv-z]{25}$/u)))
const ProjectPath = Schema.Struct({ projectId: ProjectId })
const EndpointPath = Schema.Struct({ projectId: ProjectId, endpointId: IngressEndpointId })

export const IngressEndpoint = Schema.Struct({
  id: Schema.String,
  platform: Schema.String,
  sourceId: Schema.String,
  source: Schema.String,
  createdAt: Timestamp,
  revokedAt: Schema.NullOr(Timestamp)
}).annotate({ identifier: "IngressEndpoint" })

export const CreateIngressEndpointRequest = Schema.Struct({ platform: IngressPlatform, sourceId: IngressSourceId })
  .annotate({ identifier: "CreateIngressEndpointRequest" })
export const CreateIngressEndpointResponse = Schema.Struct({ ingressEndpoint: IngressEndpoint, url: Schema.String })
  .annotate({ identifier: "CreateIngressEndpointResponse" })
export const ListIngressEndpointsResponse = Schema.Struct({ ingressEndpoints: Schema.Array(IngressEndpoint) })
  .annotate({ identifier: "ListIngressEndpointsResponse" })
export const IngressEndpointResponse = Schema.Struct({ ingressEndpoint: IngressEndpoint })
  .annotate({ identifier: "IngressEndpointResponse" })

export const IngressGroup = HttpApiGroup.make("ingress")
  .add(
    HttpApiEndpoint.get("listIngressEndpoints", "/v1/projects/:projectId/ingress-endpoints", {
      params: ProjectPath,
      success: ListIngressEndpointsResponse,
      error: problems(common)
    }).annotate(Requires, projectAccess("events:read")).annotateMerge(OpenApi.annotations({
      summary: "List ingress endpoints",
      description: "The project's ingress endpoints, revoked ones included, without their secrets. Needs `events:read`."
    }))
  )
  .add(
    HttpApiEndpoint.post("createIngressEndpoint", "/v1/projects/:projectId/ingress-endpoints", {
      params: ProjectPath,
      payload: CreateIngressEndpointRequest,
      success: CreateIngressEndpointResponse.pipe(HttpApiSchema.status(201)),
      error: problems(common, "API_KEY_LIMIT_REACHED", "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, projectAccess("events:write")).annotateMerge(OpenApi.annotations({
      summary: "Create an ingress endpoint",
      description: "Creates a URL third parties post webhooks to for a platform and source; each request to it becomes an external-webhook.received event. The URL carries the secret and is in this answer only. Needs `events:write`; API_KEY_LIMIT_REACHED past 100 endpoints per project."
    }))
  )
  .add(
    HttpApiEndpoint.delete("revokeIngressEndpoint", "/v1/projects/:projectId/ingress-endpoints/:endpointId", {
      params: EndpointPath,
      success: IngressEndpointResponse,
      error: problems(common, "RESOURCE_NOT_FOUND")
    }).annotate(Requires, projectAccess("events:write")).annotateMerge(OpenApi.annotations({
      summary: "Revoke an ingress endpoint",
      description: "Revokes the endpoint; its URL answers 404 from then on. Needs `events:write`; 404 RESOURCE_NOT_FOUND when the project has no such endpoint."
    }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Ingress endpoints",
    description: "URLs third parties post webhooks to; each request becomes an external-webhook.received event."
  }))
