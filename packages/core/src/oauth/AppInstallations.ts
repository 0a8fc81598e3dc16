/**
 * App installation (docs/app-installation.md). An OAuth app's backend asks to be installed with a
 * client assertion (`createRequest`); the customer opens the request in the Dashboard (the first
 * account to open it owns it: `view`, `listPending`), approves it into one of its projects with
 * chosen permissions (`approve`: a single-use 43-character code, 10 minutes, sent to the app's
 * redirect URI with its `state`) or denies it (`deny`); the app redeems the code with a new
 * assertion (`redeem`) and gets a project API key of that project, made then and shown in that
 * answer only. A later redemption of the same code answers the installation's status without the
 * credential.
 *
 * Assertions: `ClientAssertion.ts`; each `jti` is accepted once per app
 * (`APP_INSTALLATION_ASSERTION_REPLAYED`). The request carries the app's settings version; an app
 * whose settings changed since cannot be approved or redeemed (`APP_INSTALLATION_CONFIG_CHANGED`).
 */
import { Context, DateTime, Duration, Effect, Layer, Option } from "effect"
import { Principal } from "../credentials/Access.js"
import { ProjectApiKeyPermissions } from "../credentials/ProjectApiKeySchema.js"
import { ProjectApiKeys } from "../credentials/ProjectApiKeys.js"
import { ProjectApiKeysRepo } from "../credentials/ProjectApiKeyPorts.js"
import { base64url, sha256Hex } from "../internal/Crypto.js"
import { fn } from "../internal/Traced.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { type AccountId, type ApiKeyId, IdKinds, type ProjectId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import { Secrets } from "../shared/Secrets.js"
import { Schema } from "effect"
import {
  AppInstallationAssertionInvalid,
  AppInstallationAssertionReplayed,
  AppInstallationConfigChanged,
  AppInstallationDeliveryUnavailable,
  InstallationRequestDecided,
  InstallationRequestNotFound,
  InvalidAppInstallationRequest
} from "./AppInstallationErrors.js"
import { AppInstallationsRepo } from "./AppInstallationPorts.js"
import type { InstallationRequestRecord } from "./AppInstallationSchema.js"
import { keySetIssue, verifyClientAssertion } from "./ClientAssertion.js"
import { InvalidOAuthApp, OAuthAppNotFound } from "./OAuthErrors.js"
import { OAuthAppsRepo } from "./OAuthProviderPorts.js"
import type { OAuthApp } from "./OAuthSchema.js"

/** How long a request waits for the customer's decision. */
export const REQUEST_TTL = Duration.hours(1)
/** How long an approved request's code can be redeemed. */
export const CODE_TTL = Duration.minutes(10)
/** How many pending requests the Dashboard lists. */
export const PENDING_LIST_MAX = 50

/** The app's settings version: the millisecond of its last settings change (any change moves it). */
export const appVersionOf = (app: OAuthApp): string => String(Math.max(1, DateTime.toEpochMillis(app.updatedAt)))

/** The Dashboard's status of a request: a pending one past its expiry is `expired`. */
export const viewStatus = (r: InstallationRequestRecord, now: DateTime.Utc) =>
  r.status === "pending" && DateTime.toEpochMillis(r.expiresAt) <= DateTime.toEpochMillis(now) ? "expired" as const : r.status

/** A request as the Dashboard shows it (`InstallationRequestView`). */
export const installationView = (r: InstallationRequestRecord, app: OAuthApp, now: DateTime.Utc) => ({
  requestId: r.requestId,
  appId: r.appId,
  appName: app.name,
  appHomepageUri: app.homepageUri,
  appVersion: r.appVersion,
  redirectUri: r.redirectUri,
  status: viewStatus(r, now),
  projectId: r.projectId,
  permissions: r.permissions,
  createdAt: r.createdAt,
  expiresAt: r.expiresAt
})

/** `uri` with query parameters added (the app's redirect URI keeps its own query). */
const withQuery = (uri: string, params: Record<string, string>): string => {
  const url = new URL(uri)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url.toString()
}

const isPermissions = Schema.is(ProjectApiKeyPermissions)

export class AppInstallations extends Context.Service<AppInstallations>()("core/AppInstallations", {
  make: Effect.gen(function*() {
    const repo = yield* AppInstallationsRepo
    const apps = yield* OAuthAppsRepo
    const apiKeys = yield* ProjectApiKeys
    const apiKeysRepo = yield* ProjectApiKeysRepo
    const ids = yield* Ids
    const secrets = yield* Secrets
    const tx = yield* Transactor
    const gate = yield* makeProjectGate

    const ownedApp = (ownerAccountId: AccountId, appId: string) =>
      Effect.flatMap(apps.find(appId), (found) =>
        Option.isSome(found) && found.value.app.ownerAccountId === ownerAccountId
          ? Effect.succeed(found.value.app)
          : Effect.fail(new OAuthAppNotFound({ clientId: appId })))

    /** Registers the app's public keys (its owner only); replaces the earlier set. */
    const setKeySet = fn("AppInstallations.setKeySet")(function*(ownerAccountId: AccountId, appId: string, keys: ReadonlyArray<Record<string, unknown>>) {
      yield* ownedApp(ownerAccountId, appId)
      const issue = yield* keySetIssue(keys)
      if (issue !== undefined) return yield* new InvalidOAuthApp(issue)
      const record = { appId, keys, updatedAt: yield* DateTime.now }
      yield* repo.saveKeySet(record)
      return record
    })

    const getKeySet = fn("AppInstallations.getKeySet")(function*(ownerAccountId: AccountId, appId: string) {
      yield* ownedApp(ownerAccountId, appId)
      return yield* repo.findKeySet(appId)
    })

    /** The app, if the assertion authenticates it and its jti is new. */
    const authenticate = (appId: string, assertion: string, audiences: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const found = yield* apps.find(appId)
        if (Option.isNone(found)) return yield* new AppInstallationAssertionInvalid({ reason: "no such app" })
        const keySet = yield* repo.findKeySet(appId)
        if (Option.isNone(keySet)) return yield* new AppInstallationAssertionInvalid({ reason: "the app has registered no keys" })
        const now = yield* DateTime.now
        const claims = yield* verifyClientAssertion({ assertion, appId, keys: keySet.value.keys, audiences, nowMillis: DateTime.toEpochMillis(now) })
        const fresh = yield* repo.claimAssertion({ appId, jti: claims.jti, expiresAt: DateTime.makeUnsafe(claims.expiresAtMillis), now })
        if (!fresh) return yield* new AppInstallationAssertionReplayed({ appId })
        return { app: found.value.app, now }
      })

    const createRequest = fn("AppInstallations.createRequest")(function*(input: {
      readonly appId: string
      readonly clientAssertion: string
      readonly redirectUri: string
      readonly state: string
      readonly audiences: ReadonlyArray<string>
    }) {
      const { app, now } = yield* authenticate(input.appId, input.clientAssertion, input.audiences)
      if (!app.redirectUris.includes(input.redirectUri)) {
        return yield* new InvalidAppInstallationRequest({ field: "redirectUri", message: "must be one of the app's registered redirect URIs" })
      }
      const record: InstallationRequestRecord = {
        requestId: yield* ids.typeId(IdKinds.installationRequest),
        appId: app.clientId,
        appVersion: appVersionOf(app),
        redirectUri: input.redirectUri,
        state: input.state,
        createdAt: now,
        expiresAt: DateTime.addDuration(now, REQUEST_TTL),
        accountId: null,
        status: "pending",
        projectId: null,
        permissions: [],
        decidedAt: null,
        codeHash: null,
        codeExpiresAt: null,
        installationId: null,
        apiKeyId: null,
        deliveredAt: null
      }
      yield* repo.insertRequest(record)
      return record
    })

    /** The request, locked, owned by `accountId` (the first account to open it takes it). */
    const claimed = (accountId: AccountId, requestId: string) =>
      Effect.gen(function*() {
        const found = yield* repo.lockRequest(requestId)
        if (Option.isNone(found) || (found.value.accountId !== null && found.value.accountId !== accountId)) {
          return yield* new InstallationRequestNotFound({ requestId })
        }
        const record = found.value
        if (record.accountId !== null) return record
        const mine = { ...record, accountId }
        yield* repo.updateRequest(mine)
        return mine
      })

    const withApp = (record: InstallationRequestRecord) =>
      Effect.flatMap(apps.find(record.appId), (found) =>
        Option.isSome(found)
          ? Effect.succeed({ record, app: found.value.app })
          : Effect.fail(new InstallationRequestNotFound({ requestId: record.requestId })))

    /** Opens a request for the signed-in account (claiming it if nobody has). */
    const view = fn("AppInstallations.view")(function*(accountId: AccountId, requestId: string) {
      return yield* tx.withTransaction(Effect.flatMap(claimed(accountId, requestId), withApp))
    })

    /** The account's requests still awaiting a decision. */
    const listPending = fn("AppInstallations.listPending")(function*(accountId: AccountId) {
      const records = yield* repo.listPending({ accountId, now: yield* DateTime.now, limit: PENDING_LIST_MAX })
      const out: Array<{ record: InstallationRequestRecord; app: OAuthApp }> = []
      for (const record of records) {
        const found = yield* apps.find(record.appId)
        if (Option.isSome(found)) out.push({ record, app: found.value.app })
      }
      return out
    })

    /** A pending, unexpired request of the account whose app has not changed since. */
    const decidable = (accountId: AccountId, requestId: string) =>
      Effect.gen(function*() {
        const { app, record } = yield* Effect.flatMap(claimed(accountId, requestId), withApp)
        const now = yield* DateTime.now
        const status = viewStatus(record, now)
        if (status !== "pending") return yield* new InstallationRequestDecided({ requestId, status })
        return { app, record, now }
      })

    /** Approves the request into `projectId` (the account must be able to write it): a single-use code for the app. */
    const approve = fn("AppInstallations.approve")(function*(
      accountId: AccountId,
      requestId: string,
      choice: { readonly projectId: ProjectId; readonly permissions: ReadonlyArray<string> }
    ) {
      if (!isPermissions(choice.permissions)) {
        return yield* new InvalidAppInstallationRequest({ field: "permissions", message: "must list 1 to 32 permissions such as project:read" })
      }
      return yield* tx.withTransaction(Effect.gen(function*() {
        const { app, now, record } = yield* decidable(accountId, requestId)
        if (appVersionOf(app) !== record.appVersion) {
          return yield* new AppInstallationConfigChanged({ requestId, requestVersion: record.appVersion, currentVersion: appVersionOf(app) })
        }
        yield* gate.open(choice.projectId, principalOfApprover(accountId, requestId), "write")
        const code = base64url(yield* secrets.randomBytes(32))
        yield* repo.updateRequest({
          ...record,
          status: "approved",
          projectId: choice.projectId,
          permissions: [...new Set(choice.permissions)],
          decidedAt: now,
          codeHash: yield* sha256Hex(code),
          codeExpiresAt: DateTime.addDuration(now, CODE_TTL),
          installationId: yield* ids.typeId(IdKinds.installation)
        })
        return { requestId, status: "approved" as const, redirectTo: withQuery(record.redirectUri, { code, state: record.state }) }
      }))
    })

    /** Denies the request: the app is told `access_denied`. */
    const deny = fn("AppInstallations.deny")(function*(accountId: AccountId, requestId: string) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        const { now, record } = yield* decidable(accountId, requestId)
        yield* repo.updateRequest({ ...record, status: "denied", decidedAt: now })
        return {
          requestId,
          status: "denied" as const,
          redirectTo: withQuery(record.redirectUri, { error: "access_denied", state: record.state })
        }
      }))
    })

    /** Redeems the code: the credential the first time, the installation's status after. */
    const redeem = fn("AppInstallations.redeem")(function*(input: {
      readonly appId: string
      readonly clientAssertion: string
      readonly code: string
      readonly audiences: ReadonlyArray<string>
    }) {
      const { app, now } = yield* authenticate(input.appId, input.clientAssertion, input.audiences)
      const codeHash = yield* sha256Hex(input.code)
      return yield* tx.withTransaction(Effect.gen(function*() {
        const found = yield* repo.lockRequestByCode(codeHash)
        if (Option.isNone(found) || found.value.appId !== app.clientId) {
          return yield* new AppInstallationDeliveryUnavailable({ reason: "no delivery of this app has this code" })
        }
        const record = found.value
        const installationId = record.installationId!
        if (record.status === "delivered") {
          const key = record.apiKeyId === null ? Option.none() : yield* apiKeysRepo.findForVerification(record.apiKeyId)
          const revoked = Option.isNone(key) || key.value.stored.apiKey.revokedAt !== null
          return { installationId, status: revoked ? "revoked" as const : "delivery_consumed" as const }
        }
        if (record.status !== "approved" || record.projectId === null || record.accountId === null) {
          return yield* new AppInstallationDeliveryUnavailable({ reason: "the request was not approved" })
        }
        if (record.codeExpiresAt === null || DateTime.toEpochMillis(record.codeExpiresAt) <= DateTime.toEpochMillis(now)) {
          return yield* new AppInstallationDeliveryUnavailable({ reason: "the code has expired; ask the customer to approve a new request" })
        }
        if (appVersionOf(app) !== record.appVersion) {
          return yield* new AppInstallationConfigChanged({ requestId: record.requestId, requestVersion: record.appVersion, currentVersion: appVersionOf(app) })
        }
        const created = yield* apiKeys.create({
          projectId: record.projectId,
          principal: principalOfApprover(record.accountId, record.requestId),
          accountId: record.accountId,
          name: `${app.name.slice(0, 100)} (app installation)`,
          permissions: record.permissions
        }).pipe(Effect.catch((e) =>
          Effect.fail(new AppInstallationDeliveryUnavailable({ reason: `the credential could not be made (${e._tag})` }))))
        yield* repo.updateRequest({ ...record, status: "delivered", apiKeyId: created.apiKey.apiKeyId as ApiKeyId, deliveredAt: now })
        return {
          installationId,
          status: "created" as const,
          clientId: `client_${installationId.slice(-26)}`,
          clientSecret: created.secret
        }
      }))
    })

    return { setKeySet, getKeySet, createRequest, view, listPending, approve, deny, redeem } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer]))
}

/** The approver as the principal the project gate and the key's creation check. */
const principalOfApprover = (accountId: AccountId, requestId: string) =>
  Principal.AccessToken({ accountId, scopes: [], tokenId: requestId, origin: "session" })
