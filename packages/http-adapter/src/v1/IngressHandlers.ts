/**
 * The ingress endpoints' /v1 handlers: listing needs `events:read`, creating and revoking
 * `events:write`; core's `Ingress` then lets through only a caller who may see the project. The URL
 * is `{API_URL}/ingress/{secret}`; the secret is stored hashed.
 */
import { HttpApiBuilder } from "effect/http-api"
import { EXTERNAL_WEBHOOK_SERVICE_SEGMENT, Ingress, type IngressEndpointRecord } from "@switchboard/core/events"
import { DateTime, Effect, Option } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { onProject } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { CreateIngressEndpointResponse, IngressGroup } from "./IngressApi.js"
import { domain, rendered, toResponse } from "./Pipeline.js"
import { problem } from "./ProblemFailure.js"

const view = (r: IngressEndpointRecord) => ({
  id: r.endpointId,
  platform: r.platform,
  sourceId: r.sourceId,
  source: `${r.sourceId}.external-webhook.${EXTERNAL_WEBHOOK_SERVICE_SEGMENT}`,
  createdAt: r.createdAt,
  revokedAt: r.revokedAt
})

export const IngressGroupLive = HttpApiBuilder.group(v1Group(IngressGroup), "ingress", (handlers) =>
  Effect.gen(function*() {
    const ingress = yield* Ingress
    const config = yield* ServerConfig
    return handlers
      .handle("listIngressEndpoints", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:read")
          const list = yield* domain(ingress.list(path.projectId, principal))
          return { ingressEndpoints: list.map(view) }
        }))
      .handle("createIngressEndpoint", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          const created = yield* domain(ingress.create(path.projectId, principal, payload.platform, payload.sourceId))
          // The URL carries the secret, in this answer only: no cache may keep it.
          return toResponse(yield* rendered(
            CreateIngressEndpointResponse,
            { ingressEndpoint: view(created.endpoint), url: `${config.apiUrl}/ingress/${created.secret}` },
            201,
            { "cache-control": "no-store" }
          ))
        }))
      .handle("revokeIngressEndpoint", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          const revoked = yield* domain(ingress.revoke(path.projectId, principal, path.endpointId, yield* DateTime.now))
          if (Option.isNone(revoked)) return yield* problem("RESOURCE_NOT_FOUND", `No ingress endpoint ${path.endpointId} in this project.`)
          return { ingressEndpoint: view(revoked.value) }
        }))
  }))
