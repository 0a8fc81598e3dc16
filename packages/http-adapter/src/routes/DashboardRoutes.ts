/**
 * Why this file is long: one `handle(id, …)` registration per Dashboard API operation (API.md §2),
 * all sharing the services captured once at its top; it splits by surface once the dashboard's
 * domain logic has moved to its contexts (issue 13 item 5).
 *
 * The Dashboard API (API.md §2) and the sign-in component, as raw routes beside the HttpApi. Each
 * operation of `DashboardOperations` is registered from its row — method, path, who may call it,
 * its body schema — so the routes, the 405 table and `/api/openapi.json` cannot disagree. Every
 * handler answers the envelope: `{succeed:true, data}` (200), or fails with an `EnvelopeFailure`
 * through the one error table (`DashboardErrors`).
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Accounts, PhoneVerifications } from "@switchboard/core/accounts"
import { BillingService, PaymentMethods } from "@switchboard/core/billing"
import { AccountServiceKeys } from "@switchboard/core/credentials"
import {
  DashboardProjects,
  DeliveryStats,
  StoreHealth,
  Diagnostics,
  Onboarding,
  Sessions
} from "@switchboard/core/dashboard"
import { ManagementWebhooks } from "@switchboard/core/events"
import {
  AppInstallations,
  AppKeySetView,
  type ApproveInstallationBody,
  type AppKeySetBody,
  InstallationDecision,
  installationView,
  InstallationRequestView,
  OAuthApps,
  type OAuthApp,
  OAuthGrants,
  SigningKeys
} from "@switchboard/core/oauth"
import { Organizations, toInvitation } from "@switchboard/core/organizations"
import { PrivacyRequests } from "@switchboard/core/privacy"
import { Platforms, ProjectIntegrations, type ProjectRecord, ProjectsService } from "@switchboard/core/projects"
import { type AccountId, OrganizationId, ProjectId, Secrets, ServerSecret, ServiceKeyId } from "@switchboard/core/shared"
import { Context, DateTime, Effect, Fiber, Option, Redacted, Schema } from "effect"
import { InFlight } from "../http/pipeline/InFlight.js"
import { readFileSync } from "node:fs"
import { ServerConfig } from "../http/ServerConfig.js"
import { envelopeFailure } from "../http/Surfaces.js"
import { defaultPictureUrl } from "../v1/DefaultPicture.js"
import { authorize, checkCsrf, type DashboardCaller, hasScope, principalOf, withAuthentication } from "./DashboardAccess.js"
import { decodeBodyAs, readDashboardBody } from "./DashboardBody.js"
import { type DashboardFailure, envelopeOfError } from "./DashboardErrors.js"
import { dashboardOpenApi, type DashboardOperationId, dashboardOperations, operation } from "./DashboardOperations.js"
import * as S from "./DashboardSchemas.js"
import { signInRoutes, signInRouteTable } from "./DashboardSignIn.js"

/** The server's version (its package's). */
export const serverVersion: string = (() => {
  try {
    return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version
  } catch {
    return "0.0.0"
  }
})()

/** What a handler gets: the caller (always present but for public operations), the decoded body, the path parameters. */
interface Ctx<B> {
  readonly caller: DashboardCaller
  readonly body: B
  readonly params: Readonly<Record<string, string | undefined>>
}

const ok = <A, I>(schema: Schema.Codec<A, I>, value: A) =>
  Effect.map(Effect.orDie(Schema.encodeEffect(schema)(value)), (data) => HttpServerResponse.jsonUnsafe({ succeed: true, data }))

const okList = <A, I>(schema: Schema.Codec<A, I>, values: ReadonlyArray<A>) => ok(Schema.Array(schema), values)

const toProject = (p: ProjectRecord) => ({
  id: p.projectId,
  name: p.name,
  slug: p.slug,
  organizationId: p.organizationId,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt
})

const toApp = (a: OAuthApp) => ({
  clientId: a.clientId,
  name: a.name,
  logoUri: a.logoUri,
  homepageUri: a.homepageUri,
  redirectUris: a.redirectUris,
  clientType: a.clientType,
  scopes: a.scopes,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt
})

const isProjectId = Schema.is(ProjectId)
const isOrganizationId = Schema.is(OrganizationId)
const isServiceKeyId = Schema.is(ServiceKeyId)

/**
 * `check`'s answer, or `onTimeout()` after 2 s: the check is then abandoned — interrupted in the
 * background, not awaited (a frozen database may never let it go).
 */
const abandonedAfter2s = <A, E, R>(check: Effect.Effect<A, E, R>, onTimeout: () => A): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.forkDetach(check), (fiber) =>
    Fiber.join(fiber).pipe(
      Effect.timeoutOrElse({ duration: "2 seconds", orElse: () => Effect.sync(onTimeout) }),
      Effect.onExit(() => Effect.sync(() => fiber.interruptUnsafe()))
    ))

/** The `id` path parameter as a project id; a malformed one is a project that does not exist. */
const projectIdOf = (params: Ctx<unknown>["params"]) => {
  const id = params.id ?? ""
  return isProjectId(id) ? Effect.succeed(id) : Effect.fail(envelopeFailure(404, "PROJECT_NOT_FOUND", `No project ${id.slice(0, 100)}.`))
}

export const DashboardRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    // What handlers read per request beyond the request itself, captured once: these services only
    // (provided on every request, so not the whole application context).
    const services = Context.pick(Sessions, OAuthGrants, ServerConfig, ServerSecret, SigningKeys, Secrets)(
      yield* Effect.context<Sessions | OAuthGrants | ServerConfig | ServerSecret | SigningKeys | Secrets>()
    )
    const startedAt = Date.now()
    // Made on its first request, not at start, then kept.
    let openApi: string | undefined
    const projects = yield* DashboardProjects
    const projectsService = yield* ProjectsService
    const integrations = yield* ProjectIntegrations
    const accounts = yield* Accounts
    const serviceKeys = yield* AccountServiceKeys
    const onboarding = yield* Onboarding
    const phones = yield* PhoneVerifications
    const privacy = yield* PrivacyRequests
    const diagnostics = yield* Diagnostics
    const organizations = yield* Organizations
    const platforms = yield* Platforms
    const webhooks = yield* ManagementWebhooks
    const billing = yield* BillingService
    const payments = yield* PaymentMethods
    const apps = yield* OAuthApps
    const grants = yield* OAuthGrants
    const installations = yield* AppInstallations
    // Provided by the webhooks feature when it counts its deliveries (optional).
    const deliveryStats = yield* Effect.serviceOption(DeliveryStats)
    const storeHealth = yield* StoreHealth
    const inFlight = yield* InFlight

    /** Registers one operation of the table with its handler. */
    const handle = <B = never>(id: DashboardOperationId, run: (ctx: Ctx<B>) => Effect.Effect<HttpServerResponse.HttpServerResponse, DashboardFailure, Secrets>) => {
      const o = operation(id)
      const handler = Effect.gen(function*() {
        const caller = yield* authorize(o.access)
        const raw = o.body === undefined ? undefined : yield* readDashboardBody
        yield* checkCsrf(caller, raw)
        const body = o.body === undefined || raw === undefined ? undefined : yield* decodeBodyAs(o.body, raw)
        const params = yield* HttpRouter.params
        // The caller is absent only for public operations, which do not read it.
        const work = run({ caller: Option.getOrUndefined(caller)!, body: body as B, params })
        return yield* Option.isSome(caller) ? withAuthentication(caller.value, work) : work
      }).pipe(
        Effect.mapError(envelopeOfError),
        Effect.tapError((f) => (f.status >= 500 ? Effect.logError("dashboard operation failed", { operation: id, message: f.message }) : Effect.void)),
        Effect.provideContext(services)
      )
      return router.add(o.method, o.path as HttpRouter.PathInput, handler)
    }

    // --- System -----------------------------------------------------------------------------
    yield* handle("getHealth", () => ok(S.Health, { status: "ok" as const, version: serverVersion, releaseLine: config.releaseLine }))
    yield* handle("getReadiness", () =>
      Effect.gen(function*() {
        // Bounded even on a frozen database: the check is abandoned (not awaited) after 2 s.
        const database = yield* abandonedAfter2s(storeHealth.check, () => ({ ok: false, latencyMs: 2000 }))
        const deliveries = database.ok && Option.isSome(deliveryStats)
          ? yield* abandonedAfter2s(
            Effect.map(
              Effect.all([deliveryStats.value.counts, deliveryStats.value.oldestPendingDueMillis]),
              ([counts, due]) => ({ ...counts, backlogAgeSeconds: due === null ? 0 : Math.max(0, Math.floor((Date.now() - due) / 1000)) })
            ),
            () => ({ pending: 0, deadLettered: 0, backlogAgeSeconds: 0 })
          ).pipe(Effect.catchCause(() => Effect.succeed({ pending: 0, deadLettered: 0, backlogAgeSeconds: 0 })))
          : { pending: 0, deadLettered: 0, backlogAgeSeconds: 0 }
        const report = {
          status: database.ok ? "ready" as const : "not_ready" as const,
          database: { ok: database.ok, latencyMs: database.latencyMs },
          deliveries,
          requestsInFlight: inFlight.current()
        }
        if (database.ok) return yield* ok(S.Readiness, report)
        const data = yield* Effect.orDie(Schema.encodeEffect(S.Readiness)(report))
        return HttpServerResponse.jsonUnsafe(
          { succeed: false, code: "UPSTREAM_UNAVAILABLE", message: "The database does not answer; this instance is not ready.", data },
          { status: 503, headers: { "retry-after": "5", "cache-control": "no-store" } }
        )
      }))
    yield* handle("getOpenApi", () =>
      Effect.sync(() => {
        openApi ??= JSON.stringify(dashboardOpenApi(config.dashboardUrl))
        return HttpServerResponse.text(openApi, { contentType: "application/json" })
      }))
    yield* handle("getSystemDiagnostics", ({ caller }) =>
      Effect.gen(function*() {
        const database = yield* diagnostics.database(caller.accountId)
        return yield* ok(S.Diagnostics, {
          version: serverVersion,
          releaseLine: config.releaseLine,
          uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
          database,
          deliveries: Option.isSome(deliveryStats) ? yield* deliveryStats.value.counts : { pending: 0, deadLettered: 0 }
        })
      }))

    // --- Profile and analytics ------------------------------------------------------------------
    yield* handle("getProfile", ({ caller }) =>
      Effect.gen(function*() {
        const account = yield* accounts.get(caller.accountId)
        const name = [account.firstName, account.lastName].filter((p): p is string => p !== null && p !== "").join(" ")
        return yield* ok(S.Profile, {
          id: account.accountId,
          ...(hasScope(caller, "email") ? { email: account.email } : {}),
          name: name === "" ? (account.email.split("@")[0] ?? "") : name,
          picture: account.pictureUrl ?? defaultPictureUrl(config.apiUrl)
        })
      }))
    yield* handle("getIdentitySnapshot", ({ caller }) =>
      Effect.gen(function*() {
        const snapshot = yield* projects.identity(caller.accountId)
        const { email, ...rest } = snapshot
        return yield* ok(S.IdentitySnapshot, hasScope(caller, "email") ? { ...rest, email } : rest)
      }))

    // --- Projects -----------------------------------------------------------------------------
    yield* handle("listProjects", ({ caller }) =>
      Effect.flatMap(projects.list(caller.accountId), (list) => okList(S.DashboardProject, list.map(toProject))))
    yield* handle<typeof S.CreateProjectBody.Type>("createProject", ({ body, caller }) =>
      Effect.flatMap(
        projects.create({ accountId: caller.accountId, name: body.name, organizationId: body.organizationId }),
        (p) => ok(S.DashboardProject, toProject(p))
      ))
    yield* handle("getProject", ({ caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        return yield* ok(S.DashboardProject, toProject(yield* projects.get(projectId, principalOf(caller))))
      }))
    yield* handle("getIMessageAutoScale", ({ caller, params }) =>
      Effect.flatMap(projectIdOf(params), (projectId) =>
        Effect.flatMap(integrations.getAutoScale(projectId, principalOf(caller)), (v) => ok(S.AutoScale, v)))
    )
    yield* handle<typeof S.AutoScaleBody.Type>("setIMessageAutoScale", ({ body, caller, params }) =>
      Effect.flatMap(projectIdOf(params), (projectId) =>
        Effect.flatMap(integrations.setAutoScale(projectId, principalOf(caller), body.autoScale), (v) => ok(S.AutoScale, v)))
    )
    yield* handle("getSlackIntegration", ({ caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        const found = yield* integrations.getSlack(projectId, principalOf(caller))
        if (Option.isNone(found)) return yield* envelopeFailure(404, "SLACK_NOT_CONFIGURED", "This project has no Slack integration.")
        return yield* ok(S.SlackIntegration, found.value)
      }))
    yield* handle<typeof S.SlackBody.Type>("putSlackIntegration", ({ body, caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        return yield* ok(S.SlackIntegration, yield* integrations.putSlack(projectId, principalOf(caller), body))
      }))
    yield* handle("getPlatforms", ({ caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        yield* projects.open(projectId, principalOf(caller), "read")
        return yield* ok(S.PlatformStates, yield* platforms.get(projectId))
      }))
    yield* handle<typeof S.TogglePlatformBody.Type>("togglePlatform", ({ body, caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        yield* projects.open(projectId, principalOf(caller), "write")
        return yield* ok(S.PlatformStates, yield* platforms.set({ projectId, platform: body.platformId, enabled: body.enabled }))
      }))
    yield* handle("regenerateProjectSecret", ({ caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        const secret = yield* projectsService.rotateSecret(projectId, principalOf(caller))
        return yield* ok(S.ProjectSecret, { projectSecret: Redacted.value(secret) })
      }))

    // --- Project webhooks (the management API's webhooks) ---------------------------------------
    yield* handle("listProjectWebhooks", ({ caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        yield* projects.open(projectId, principalOf(caller), "read")
        const list = yield* webhooks.list(projectId)
        return yield* okList(S.ProjectWebhook, list.map((w) => ({ id: w.id, webhookUrl: w.webhookUrl, createdAt: w.createdAt, updatedAt: w.updatedAt })))
      }))
    yield* handle<typeof S.CreateWebhookBody.Type>("createProjectWebhook", ({ body, caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        yield* projects.open(projectId, principalOf(caller), "write")
        const { signingSecret, webhook } = yield* webhooks.create({ projectId, webhookUrl: body.webhookUrl })
        return yield* ok(S.CreatedProjectWebhook, {
          id: webhook.id,
          webhookUrl: webhook.webhookUrl,
          createdAt: webhook.createdAt,
          updatedAt: webhook.updatedAt,
          signingSecret: Redacted.value(signingSecret)
        })
      }))
    yield* handle("deleteProjectWebhook", ({ caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        yield* projects.open(projectId, principalOf(caller), "revoke")
        const removed = yield* webhooks.remove({ projectId, webhookId: params.webhookId ?? "" })
        return yield* ok(S.DeletedProjectWebhook, { id: removed.id })
      }))

    // --- Members ------------------------------------------------------------------------------
    yield* handle("listProjectMembers", ({ caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        const members = yield* projects.members(projectId, principalOf(caller))
        return yield* okList(S.ProjectMember, members.map((m) => ({ accountId: m.accountId, email: m.email, role: m.role, joinedAt: m.joinedAt })))
      }))
    yield* handle<typeof S.InvitationBody.Type>("inviteProjectMember", ({ body, caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        const created = yield* projects.invite(projectId, principalOf(caller), { email: body.email, role: body.role ?? "member" })
        return yield* ok(S.CreatedInvitation, { invitation: toInvitation(created.invitation), token: Redacted.value(created.token) })
      }))

    // --- Billing and payments -----------------------------------------------------------------
    yield* handle("getProjectSubscription", ({ caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        yield* projects.open(projectId, principalOf(caller), "read")
        return yield* ok(S.Subscription, yield* billing.overview(projectId))
      }))
    /** An organization whose own billing the caller may change: owners and admins (a non-member gets not found). */
    const billingManagerOf = (params: Ctx<unknown>["params"], caller: { readonly accountId: AccountId }) =>
      Effect.gen(function*() {
        const id = params.organizationId ?? ""
        if (!isOrganizationId(id)) return yield* envelopeFailure(404, "ORGANIZATION_NOT_FOUND", `No organization ${id.slice(0, 100)}.`)
        const role = yield* organizations.roleIn(id, caller.accountId)
        if (role !== "owner" && role !== "admin") return yield* envelopeFailure(403, "FORBIDDEN", "Only owners and admins manage the organization's billing.")
        return id
      })
    yield* handle<typeof S.OrganizationSubscribeBody.Type>("subscribeOrganization", ({ body, caller, params }) =>
      Effect.gen(function*() {
        const organizationId = yield* billingManagerOf(params, caller)
        return yield* ok(S.OrganizationBilling, yield* billing.subscribeOrganization(organizationId, body.planCode, body.fixedCharges ?? []))
      }))
    yield* handle<typeof S.OrganizationFixedChargeBody.Type>("setOrganizationFixedCharge", ({ body, caller, params }) =>
      Effect.gen(function*() {
        const organizationId = yield* billingManagerOf(params, caller)
        const fixedChargeCode = params.fixedChargeCode ?? ""
        if (fixedChargeCode.length === 0 || fixedChargeCode.length > 64) {
          return yield* envelopeFailure(422, "VALIDATION_FAILED", "fixedChargeCode: must be 1 to 64 characters.")
        }
        return yield* ok(S.OrganizationBilling, yield* billing.adjustOrganizationFixedCharge(organizationId, { fixedChargeCode, quantity: body.quantity }))
      }))
    yield* handle<typeof S.CheckoutBody.Type>("startCheckout", ({ body, caller }) =>
      Effect.gen(function*() {
        let organizationId = body.organizationId
        if (body.projectId !== undefined) {
          const project = yield* projects.open(body.projectId, principalOf(caller), "read")
          if (organizationId !== undefined && organizationId !== project.organizationId) {
            return yield* envelopeFailure(422, "VALIDATION_FAILED", "projectId: the project is not in organizationId.")
          }
          organizationId = project.organizationId
        } else if (organizationId !== undefined) {
          yield* organizations.roleIn(organizationId, caller.accountId)
        } else {
          const first = (yield* projects.organizationsOf(caller.accountId))[0]
          if (first === undefined) return yield* envelopeFailure(422, "VALIDATION_FAILED", "projectId: send the project (or organizationId) to pay for.")
          organizationId = first.organizationId
        }
        return yield* ok(S.Checkout, yield* payments.checkout(organizationId))
      }))
    yield* handle("getProjectPayments", ({ caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        const project = yield* projects.open(projectId, principalOf(caller), "read")
        return yield* ok(S.PaymentMethod, yield* payments.get(project.organizationId))
      }))
    yield* handle("setUpProjectPayments", ({ caller, params }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(params)
        const project = yield* projects.open(projectId, principalOf(caller), "write")
        return yield* ok(S.PaymentSetup, yield* payments.setupIntent(project.organizationId))
      }))

    // --- Onboarding, OTP, service keys (session only) -------------------------------------------
    const onboardingView = (r: Option.Option<{ companyName: string | null; role: string | null; useCase: string | null; teamSize: number | null; updatedAt: any }>) =>
      Option.match(r, {
        onNone: () => ({ companyName: null, role: null, useCase: null, teamSize: null, updatedAt: null }),
        onSome: (a) => ({ companyName: a.companyName, role: a.role, useCase: a.useCase, teamSize: a.teamSize, updatedAt: a.updatedAt })
      })
    yield* handle("getOnboardingDetails", ({ caller }) =>
      Effect.flatMap(onboarding.get(caller.accountId), (r) => ok(S.OnboardingDetails, onboardingView(r))))
    yield* handle<typeof S.OnboardingBody.Type>("saveOnboardingDetails", ({ body, caller }) =>
      Effect.flatMap(onboarding.save(caller.accountId, body), (r) => ok(S.OnboardingDetails, onboardingView(Option.some(r)))))
    yield* handle<typeof S.OtpSendBody.Type>("sendOtp", ({ body, caller }) =>
      Effect.flatMap(phones.start(caller.accountId, body.phoneNumber), (sent) => ok(S.OtpSent, sent)))
    yield* handle<typeof S.OtpVerifyBody.Type>("verifyOtp", ({ body, caller }) =>
      Effect.gen(function*() {
        const account = yield* phones.confirm(caller.accountId, body.phoneNumber, body.code)
        if (account.phoneNumber === null || account.phoneVerifiedAt === null) return yield* Effect.die(new Error("a confirmed phone is not bound"))
        return yield* ok(S.OtpVerified, { phoneNumber: account.phoneNumber, phoneVerifiedAt: account.phoneVerifiedAt })
      }))
    yield* handle("listServiceKeys", ({ caller }) =>
      Effect.flatMap(serviceKeys.list(caller.accountId), (keys) => ok(S.ServiceKeys, keys)))
    yield* handle<typeof S.CreateServiceKeyBody.Type>("createServiceKey", ({ body, caller }) =>
      Effect.flatMap(
        serviceKeys.create({ accountId: caller.accountId, name: body.name, expiresAt: body.expiresAt }),
        (created) => ok(S.CreatedServiceKey, { serviceKey: created.serviceKey, secret: Redacted.value(created.secret) })
      ))
    yield* handle("revokeServiceKey", ({ caller, params }) =>
      Effect.gen(function*() {
        const id = params.serviceKeyId ?? ""
        if (!isServiceKeyId(id)) return yield* envelopeFailure(404, "ACCOUNT_SERVICE_KEY_NOT_FOUND", `No service key ${id.slice(0, 100)}.`)
        return yield* ok(S.CreatedServiceKey.fields.serviceKey, yield* serviceKeys.revoke(caller.accountId, id))
      }))

    // --- OAuth apps and consents (session only) -------------------------------------------------
    yield* handle("listOAuthApps", ({ caller }) =>
      Effect.flatMap(apps.list(caller.accountId), (list) => okList(S.OAuthAppView, list.map(toApp))))
    yield* handle<typeof S.CreateOAuthAppBody.Type>("createOAuthApp", ({ body, caller }) =>
      Effect.gen(function*() {
        const created = yield* apps.create({ ownerAccountId: caller.accountId, ...body })
        return yield* ok(S.OAuthAppWithSecret, {
          app: toApp(created.app),
          clientSecret: Option.match(created.clientSecret, { onNone: () => null, onSome: Redacted.value })
        })
      }))
    yield* handle("getOAuthApp", ({ caller, params }) =>
      Effect.flatMap(apps.get(caller.accountId, params.clientId ?? ""), (app) => ok(S.OAuthAppView, toApp(app))))
    yield* handle<typeof S.UpdateOAuthAppBody.Type>("updateOAuthApp", ({ body, caller, params }) =>
      Effect.flatMap(apps.update(caller.accountId, params.clientId ?? "", body), (app) => ok(S.OAuthAppView, toApp(app))))
    yield* handle("deleteOAuthApp", ({ caller, params }) =>
      Effect.gen(function*() {
        const clientId = params.clientId ?? ""
        yield* apps.remove(caller.accountId, clientId)
        return yield* ok(S.Deleted, { clientId, deleted: true as const })
      }))
    yield* handle("rotateOAuthAppSecret", ({ caller, params }) =>
      Effect.gen(function*() {
        const rotated = yield* apps.rotateSecret(caller.accountId, params.clientId ?? "")
        return yield* ok(S.OAuthAppWithSecret, { app: toApp(rotated.app), clientSecret: Redacted.value(rotated.clientSecret) })
      }))
    yield* handle("listOAuthConsents", ({ caller }) =>
      Effect.flatMap(grants.listForAccount(caller.accountId), (list) =>
        okList(S.OAuthConsent, list.map((g) => ({
          clientId: g.clientId,
          name: g.name,
          logoUri: g.logoUri,
          homepageUri: g.homepageUri,
          scopes: g.scopes,
          grantedAt: g.grantedAt
        })))))
    yield* handle("withdrawOAuthConsent", ({ caller, params }) =>
      Effect.gen(function*() {
        const clientId = params.clientId ?? ""
        yield* grants.withdraw(caller.accountId, clientId)
        return yield* ok(S.Withdrawn, { clientId, withdrawn: true as const })
      }))

    // --- App installation (session only) --------------------------------------------------------
    yield* handle("getOAuthAppKeys", ({ caller, params }) =>
      Effect.gen(function*() {
        const appId = params.clientId ?? ""
        const found = yield* installations.getKeySet(caller.accountId, appId)
        return yield* ok(AppKeySetView, Option.match(found, {
          onNone: () => ({ appId, keys: [], updatedAt: null }),
          onSome: (k) => ({ appId, keys: k.keys, updatedAt: k.updatedAt })
        }))
      }))
    yield* handle<typeof AppKeySetBody.Type>("setOAuthAppKeys", ({ body, caller, params }) =>
      Effect.flatMap(installations.setKeySet(caller.accountId, params.clientId ?? "", body.keys), (k) =>
        ok(AppKeySetView, { appId: k.appId, keys: k.keys, updatedAt: k.updatedAt })))
    yield* handle("listInstallationRequests", ({ caller }) =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        const list = yield* installations.listPending(caller.accountId)
        return yield* okList(InstallationRequestView, list.map(({ app, record }) => installationView(record, app, now)))
      }))
    yield* handle("getInstallationRequest", ({ caller, params }) =>
      Effect.gen(function*() {
        const { app, record } = yield* installations.view(caller.accountId, params.requestId ?? "")
        return yield* ok(InstallationRequestView, installationView(record, app, yield* DateTime.now))
      }))
    yield* handle<typeof ApproveInstallationBody.Type>("approveInstallationRequest", ({ body, caller, params }) =>
      Effect.flatMap(installations.approve(caller.accountId, params.requestId ?? "", body), (d) => ok(InstallationDecision, d)))
    yield* handle("denyInstallationRequest", ({ caller, params }) =>
      Effect.flatMap(installations.deny(caller.accountId, params.requestId ?? ""), (d) => ok(InstallationDecision, d)))

    // --- Privacy ------------------------------------------------------------------------------
    yield* handle<typeof S.PrivacyRequestBody.Type>("createPrivacyRequest", ({ body, caller }) =>
      Effect.flatMap(privacy.submit({ email: body.email, requestedBy: caller.accountId }), (r) => ok(S.PrivacyRequestReceived, r)))

    // --- Sign-in component --------------------------------------------------------------------
    const auth = yield* signInRoutes
    yield* router.add("GET", "/sign-in", Effect.provideContext(auth.page, services))
    yield* router.add("POST", "/api/auth/sign-in/email", Effect.provideContext(auth.signInPost, services))
    yield* router.add("POST", "/api/auth/sign-up/email", Effect.provideContext(auth.signUpPost, services))
    yield* router.add("POST", "/api/auth/sign-out", Effect.provideContext(auth.signOut, services))
    yield* router.add("GET", "/api/auth/get-session", Effect.provideContext(auth.getSession, services))
    yield* router.add("GET", "/api/auth/token", Effect.provideContext(auth.token, services))
  }))

/** (method, path) of every route of the feature, for 405 answers. */
export const dashboardRouteTable: ReadonlyArray<readonly [string, string]> = [
  ...dashboardOperations.map((o) => [o.method, o.path] as const),
  ...signInRouteTable
]

/** The request type the handlers read (kept for the composition's type checks). */
export type DashboardRequest = HttpServerRequest.HttpServerRequest
