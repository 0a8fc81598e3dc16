/**
 * The app installation feature's /v1 handlers (docs/app-installation.md): take the decoded body,
 * let core check the client assertion (accepted audiences: this endpoint's URL, the API's base URL
 * and the OAuth issuer) and answer. The delivered credential is sent with
 * `Cache-Control: no-store`.
 */
import { HttpApiBuilder } from "effect/http-api"
import { AppInstallations, RedeemAppInstallationDeliveryResponse } from "@switchboard/core/oauth"
import { Effect, Redacted } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { AppInstallationsGroup } from "./AppInstallationsApi.js"
import { v1Group } from "./V1Group.js"
import { domain, rendered, toResponse } from "./Pipeline.js"

export const AppInstallationsGroupLive = HttpApiBuilder.group(v1Group(AppInstallationsGroup), "appInstallations", (handlers) =>
  Effect.gen(function*() {
    const installations = yield* AppInstallations
    const config = yield* ServerConfig
    const audiences = (path: string) => [`${config.apiUrl}${path}`, config.apiUrl, `${config.dashboardUrl}/api/auth`]
    return handlers
      .handle("createAppInstallationRequest", ({ payload }) =>
        Effect.gen(function*() {
          const r = yield* domain(installations.createRequest({ ...payload, audiences: audiences("/v1/installation-requests") }))
          return {
            requestId: r.requestId,
            appId: r.appId,
            appVersion: r.appVersion,
            redirectUri: r.redirectUri,
            state: r.state,
            createdAt: r.createdAt
          }
        }))
      .handle("redeemAppInstallationDelivery", ({ payload }) =>
        Effect.gen(function*() {
          const r = yield* domain(installations.redeem({ ...payload, audiences: audiences("/v1/installation-requests/redeem") }))
          const value = r.status === "created" ? { ...r, clientSecret: Redacted.value(r.clientSecret) } : r
          return toResponse(yield* rendered(RedeemAppInstallationDeliveryResponse, value), { "cache-control": "no-store" })
        }))
  }))
