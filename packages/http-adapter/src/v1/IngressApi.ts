/**
 * The ingress endpoints' /v1 routes (issue 14): a project creates, lists and revokes the URLs third
 * parties post webhooks to (each request becomes an `external-webhook.received` event). The secret
 * of the URL is in the create response only.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { IngressPlatform, IngressSourceId } from "@switchboard/core/events"
import { ProjectId, Timestamp } from "@switchboard/core/shared"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import { Schema } from "effect"
import { Authn } from "./Authn.js"
import { projectProblems as common } from "./CommonProblems.js"

const IngressEndpointId = Schema.String.pipe(Schema.pattern(/^sb_ing_[0-7][0-9a-hjkmnp-tv-z]{25}$/))
const ProjectPath = Schema.Struct({ projectId: ProjectId })
const EndpointPath = Schema.Struct({ projectId: ProjectId, endpointId: IngressEndpointId })

export const IngressEndpoint = Schema.Struct({
  id: Schema.String,
  platform: Schema.String,
  sourceId: Schema.String,
  source: Schema.String,
  createdAt: Timestamp,
  revokedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "IngressEndpoint" })

export const CreateIngressEndpointRequest = Schema.Struct({ platform: IngressPlatform, sourceId: IngressSourceId })
  .annotations({ identifier: "CreateIngressEndpointRequest" })
export const CreateIngressEndpointResponse = Schema.Struct({ ingressEndpoint: IngressEndpoint, url: Schema.String })
  .annotations({ identifier: "CreateIngressEndpointResponse" })
export const ListIngressEndpointsResponse = Schema.Struct({ ingressEndpoints: Schema.Array(IngressEndpoint) })
  .annotations({ identifier: "ListIngressEndpointsResponse" })
export const IngressEndpointResponse = Schema.Struct({ ingressEndpoint: IngressEndpoint })
  .annotations({ identifier: "IngressEndpointResponse" })

export const IngressGroup = HttpApiGroup.make("ingress")
  .add(
    HttpApiEndpoint.get("listIngressEndpoints", "/v1/projects/:projectId/ingress-endpoints")
      .annotateContext(OpenApi.annotations({
        summary: "List ingress endpoints",
        description: "The project's ingress endpoints, revoked ones included, without their secrets. Needs `events:read`."
      }))
      .setPath(ProjectPath)
      .addSuccess(ListIngressEndpointsResponse)
  )
  .add(
    HttpApiEndpoint.post("createIngressEndpoint", "/v1/projects/:projectId/ingress-endpoints")
      .annotateContext(OpenApi.annotations({
        summary: "Create an ingress endpoint",
        description: "Creates a URL third parties post webhooks to for a platform and source; each request to it becomes an external-webhook.received event. The URL carries the secret and is in this answer only. Needs `events:write`; API_KEY_LIMIT_REACHED past 100 endpoints per project."
      }))
      .setPath(ProjectPath)
      .setPayload(CreateIngressEndpointRequest)
      .addSuccess(CreateIngressEndpointResponse, { status: 201 })
  )
  .add(
    HttpApiEndpoint.del("revokeIngressEndpoint", "/v1/projects/:projectId/ingress-endpoints/:endpointId")
      .annotateContext(OpenApi.annotations({
        summary: "Revoke an ingress endpoint",
        description: "Revokes the endpoint; its URL answers 404 from then on. Needs `events:write`; 404 RESOURCE_NOT_FOUND when the project has no such endpoint."
      }))
      .setPath(EndpointPath)
      .addSuccess(IngressEndpointResponse)
  )
  .middleware(Authn)
  .annotateContext(OpenApi.annotations({
    title: "Ingress endpoints",
    description: "URLs third parties post webhooks to; each request becomes an external-webhook.received event."
  }))

export const ingressProblems: Record<string, ReadonlyArray<ProblemCode>> = {
  "ingress.listIngressEndpoints": common,
  "ingress.createIngressEndpoint": [...common, "API_KEY_LIMIT_REACHED", "PAYLOAD_TOO_LARGE"],
  "ingress.revokeIngressEndpoint": [...common, "RESOURCE_NOT_FOUND"]
}

export const ingressIdempotent: ReadonlySet<string> = new Set()
