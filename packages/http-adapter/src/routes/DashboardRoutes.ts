/**
 * The Dashboard feature's routes: the Dashboard API is an `HttpApi` (dashboard/DashboardApi.ts,
 * its handlers `DashboardGroupsLive`, mounted beside the versioned API in Http.ts); the sign-in
 * component, not part of that API's operation list (docs/architecture.md, "One declaration per
 * endpoint"), stays raw routes here (routes/DashboardSignIn.ts).
 */
import { HttpRouter, type HttpServerRequest } from "effect/http"
import { Accounts, PhoneVerifications } from "@switchboard/core/accounts"
import { BillingService, PaymentMethods } from "@switchboard/core/billing"
import { AccountServiceKeys } from "@switchboard/core/credentials"
import { DashboardProjects, Onboarding, Sessions } from "@switchboard/core/dashboard"
import { ManagementWebhooks } from "@switchboard/core/events"
import { AppInstallations, OAuthApps, OAuthGrants, SigningKeys } from "@switchboard/core/oauth"
import { Organizations } from "@switchboard/core/organizations"
import { PrivacyRequests } from "@switchboard/core/privacy"
import { Platforms, ProjectIntegrations, ProjectsService } from "@switchboard/core/projects"
import { Secrets, ServerSecret } from "@switchboard/core/shared"
import { Context, Effect, Layer } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { AccountGroupLive, InstallationsGroupLive } from "../dashboard/AccountHandlers.js"
import { BillingGroupLive, PaymentsGroupLive } from "../dashboard/BillingHandlers.js"
import { dashboardApiRouteTable } from "../dashboard/DashboardApi.js"
import { DashboardAccess, DashboardBody, DashboardEnvelopes } from "../dashboard/Middleware.js"
import { leanGroup } from "../v1/LeanGroup.js"
import { ProjectsGroupLive } from "../dashboard/ProjectsHandlers.js"
import {
  AnalyticsGroupLive,
  OnboardingGroupLive,
  OtpGroupLive,
  PrivacyGroupLive,
  ProfileGroupLive,
  SystemGroupLive
} from "../dashboard/SystemHandlers.js"
import { signInRoutes, signInRouteTable } from "./DashboardSignIn.js"

/** The steps of every Dashboard endpoint (dashboard/Middleware.ts), which each group's requests carry. */
const steps = [DashboardEnvelopes, DashboardAccess, DashboardBody] as const

/**
 * Every group's handlers of the Dashboard API (`HttpApiBuilder.layer(DashboardApi)` needs one per
 * group). Each group's requests carry only the services it names (v1/LeanGroup.ts), as the raw
 * routes did; System reads an optional service (`DeliveryStats`), which `leanGroup` cannot see.
 */
export const DashboardGroupsLive = Layer.mergeAll(
  leanGroup(...steps, DashboardProjects, ProjectsService, ProjectIntegrations, Platforms, ManagementWebhooks)(ProjectsGroupLive),
  leanGroup(...steps, DashboardProjects, Organizations, BillingService, PaymentMethods)(BillingGroupLive),
  leanGroup(...steps, DashboardProjects, PaymentMethods)(PaymentsGroupLive),
  leanGroup(...steps, ServerConfig, Accounts)(ProfileGroupLive),
  leanGroup(...steps, Onboarding)(OnboardingGroupLive),
  leanGroup(...steps, PhoneVerifications)(OtpGroupLive),
  leanGroup(...steps, AccountServiceKeys, OAuthApps, OAuthGrants, AppInstallations, Secrets)(AccountGroupLive),
  leanGroup(...steps, AppInstallations)(InstallationsGroupLive),
  leanGroup(...steps, PrivacyRequests)(PrivacyGroupLive),
  leanGroup(...steps, DashboardProjects)(AnalyticsGroupLive),
  SystemGroupLive
)

/** The sign-in component's routes. */
export const DashboardRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    // What the sign-in handlers read per request beyond the request itself, captured once: these
    // services only (provided on every request, so not the whole application context).
    const services = Context.pick(Sessions, OAuthGrants, ServerConfig, ServerSecret, SigningKeys, Secrets)(
      yield* Effect.context<Sessions | OAuthGrants | ServerConfig | ServerSecret | SigningKeys | Secrets>()
    )
    const auth = yield* signInRoutes
    yield* router.add("GET", "/sign-in", Effect.provideContext(auth.page, services))
    yield* router.add("POST", "/api/auth/sign-in/email", Effect.provideContext(auth.signInPost, services))
    yield* router.add("POST", "/api/auth/sign-up/email", Effect.provideContext(auth.signUpPost, services))
    yield* router.add("POST", "/api/auth/sign-out", Effect.provideContext(auth.signOut, services))
    yield* router.add("GET", "/api/auth/get-session", Effect.provideContext(auth.getSession, services))
    yield* router.add("GET", "/api/auth/token", Effect.provideContext(auth.token, services))
  }))

/** (method, path) of every route of the feature, for 405 answers. */
export const dashboardRouteTable: ReadonlyArray<readonly [string, string]> = [...dashboardApiRouteTable, ...signInRouteTable]

/** The request type the handlers read (kept for the composition's type checks). */
export type DashboardRequest = HttpServerRequest.HttpServerRequest
