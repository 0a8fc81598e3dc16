/** The Account and Installations groups' handlers (dashboard/AccountApi.ts). */
import { HttpApiBuilder } from "effect/http-api"
import { AccountServiceKeys } from "@switchboard/core/credentials"
import { AppInstallations, AppKeySetView, InstallationDecision, installationView, InstallationRequestView, OAuthApps, OAuthGrants } from "@switchboard/core/oauth"
import { ServiceKeyId } from "@switchboard/core/shared"
import { DateTime, Effect, Option, Redacted, Schema } from "effect"
import { envelopeFailure } from "../http/Surfaces.js"
import * as S from "../routes/DashboardSchemas.js"
import { AccountGroup, InstallationsGroup } from "./AccountApi.js"
import { dashboardGroup } from "./DashboardApi.js"
import { currentCaller } from "./Middleware.js"
import { answer, ok, okList, toApp } from "./Render.js"

const isServiceKeyId = Schema.is(ServiceKeyId)

/** The caller's account. */
const accountId = Effect.map(currentCaller, (c) => c.accountId)

export const AccountGroupLive = HttpApiBuilder.group(dashboardGroup(AccountGroup), "dashboard-account", (handlers) =>
  Effect.gen(function*() {
    const serviceKeys = yield* AccountServiceKeys
    const apps = yield* OAuthApps
    const grants = yield* OAuthGrants
    const installations = yield* AppInstallations
    return handlers
      .handle("listServiceKeys", () => answer(Effect.flatMap(accountId, (a) => Effect.flatMap(serviceKeys.list(a), (keys) => ok(S.ServiceKeys, keys)))))
      .handle("createServiceKey", ({ payload }) =>
        answer(Effect.gen(function*() {
          const created = yield* serviceKeys.create({ accountId: yield* accountId, name: payload.name, expiresAt: payload.expiresAt })
          return yield* ok(S.CreatedServiceKey, { serviceKey: created.serviceKey, secret: Redacted.value(created.secret) })
        })))
      .handle("revokeServiceKey", ({ params }) =>
        answer(Effect.gen(function*() {
          const id = params.serviceKeyId
          if (!isServiceKeyId(id)) return yield* envelopeFailure(404, "ACCOUNT_SERVICE_KEY_NOT_FOUND", `No service key ${id.slice(0, 100)}.`)
          return yield* ok(S.CreatedServiceKey.fields.serviceKey, yield* serviceKeys.revoke(yield* accountId, id))
        })))
      .handle("listOAuthApps", () => answer(Effect.flatMap(accountId, (a) => Effect.flatMap(apps.list(a), (list) => okList(S.OAuthAppView, list.map(toApp))))))
      .handle("createOAuthApp", ({ payload }) =>
        answer(Effect.gen(function*() {
          const created = yield* apps.create({ ownerAccountId: yield* accountId, ...payload })
          return yield* ok(S.OAuthAppWithSecret, {
            app: toApp(created.app),
            clientSecret: Option.match(created.clientSecret, { onNone: () => null, onSome: Redacted.value })
          })
        })))
      .handle("getOAuthApp", ({ params }) =>
        answer(Effect.gen(function*() {
          return yield* ok(S.OAuthAppView, toApp(yield* apps.get(yield* accountId, params.clientId)))
        })))
      .handle("updateOAuthApp", ({ params, payload }) =>
        answer(Effect.gen(function*() {
          return yield* ok(S.OAuthAppView, toApp(yield* apps.update(yield* accountId, params.clientId, payload)))
        })))
      .handle("deleteOAuthApp", ({ params }) =>
        answer(Effect.gen(function*() {
          yield* apps.remove(yield* accountId, params.clientId)
          return yield* ok(S.Deleted, { clientId: params.clientId, deleted: true as const })
        })))
      .handle("rotateOAuthAppSecret", ({ params }) =>
        answer(Effect.gen(function*() {
          const rotated = yield* apps.rotateSecret(yield* accountId, params.clientId)
          return yield* ok(S.OAuthAppWithSecret, { app: toApp(rotated.app), clientSecret: Redacted.value(rotated.clientSecret) })
        })))
      .handle("getOAuthAppKeys", ({ params }) =>
        answer(Effect.gen(function*() {
          const appId = params.clientId
          const found = yield* installations.getKeySet(yield* accountId, appId)
          return yield* ok(AppKeySetView, Option.match(found, {
            onNone: () => ({ appId, keys: [], updatedAt: null }),
            onSome: (k) => ({ appId, keys: k.keys, updatedAt: k.updatedAt })
          }))
        })))
      .handle("setOAuthAppKeys", ({ params, payload }) =>
        answer(Effect.gen(function*() {
          const k = yield* installations.setKeySet(yield* accountId, params.clientId, payload.keys)
          return yield* ok(AppKeySetView, { appId: k.appId, keys: k.keys, updatedAt: k.updatedAt })
        })))
      .handle("listOAuthConsents", () =>
        answer(Effect.gen(function*() {
          const list = yield* grants.listForAccount(yield* accountId)
          return yield* okList(S.OAuthConsent, list.map((g) => ({
            clientId: g.clientId,
            name: g.name,
            logoUri: g.logoUri,
            homepageUri: g.homepageUri,
            scopes: g.scopes,
            grantedAt: g.grantedAt
          })))
        })))
      .handle("withdrawOAuthConsent", ({ params }) =>
        answer(Effect.gen(function*() {
          yield* grants.withdraw(yield* accountId, params.clientId)
          return yield* ok(S.Withdrawn, { clientId: params.clientId, withdrawn: true as const })
        })))
  }))

export const InstallationsGroupLive = HttpApiBuilder.group(dashboardGroup(InstallationsGroup), "dashboard-installations", (handlers) =>
  Effect.gen(function*() {
    const installations = yield* AppInstallations
    return handlers
      .handle("listInstallationRequests", () =>
        answer(Effect.gen(function*() {
          const now = yield* DateTime.now
          const list = yield* installations.listPending(yield* accountId)
          return yield* okList(InstallationRequestView, list.map(({ app, record }) => installationView(record, app, now)))
        })))
      .handle("getInstallationRequest", ({ params }) =>
        answer(Effect.gen(function*() {
          const { app, record } = yield* installations.view(yield* accountId, params.requestId)
          return yield* ok(InstallationRequestView, installationView(record, app, yield* DateTime.now))
        })))
      .handle("approveInstallationRequest", ({ params, payload }) =>
        answer(Effect.gen(function*() {
          return yield* ok(InstallationDecision, yield* installations.approve(yield* accountId, params.requestId, payload))
        })))
      .handle("denyInstallationRequest", ({ params }) =>
        answer(Effect.gen(function*() {
          return yield* ok(InstallationDecision, yield* installations.deny(yield* accountId, params.requestId))
        })))
  }))
