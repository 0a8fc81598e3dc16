/**
 * The Dashboard feature in core (docs/api-notes/dashboard-api.md): the sign-in component (sessions,
 * sign-up and sign-in with password and TOTP), onboarding answers, the Dashboard's project views
 * and the diagnostics of the store. It also composes the services the Dashboard API serves from
 * other contexts: privacy requests (`privacy/`) and per-project settings
 * (`projects/ProjectIntegrations`). `DashboardCore` needs only ports (and the identity services);
 * `DashboardPorts` lists the port tags it adds.
 */
import { Layer } from "effect"
import { AccountProfile } from "../accounts/AccountProfile.js"
import { OrganizationsCore } from "../organizations/OrganizationsFeature.js"
import { TotpFactors } from "../accounts/TotpFactors.js"
import { OAuthGrants } from "../oauth/OAuthGrants.js"
import { ProjectsService } from "../projects/ProjectsService.js"
import type { OnboardingRepo, SessionsRepo, SignInThrottleRepo, StoreHealth } from "./DashboardPorts.js"
import type { PrivacyPorts } from "../privacy/PrivacyFeature.js"
import { DashboardProjects } from "./DashboardProjects.js"
import { Diagnostics } from "./Diagnostics.js"
import { Onboarding } from "./Onboarding.js"
import { PrivacyRequests } from "../privacy/PrivacyRequests.js"
import { ProjectIntegrations } from "../projects/ProjectIntegrations.js"
import { Sessions } from "./Sessions.js"
import { SignIn } from "./SignIn.js"

export * from "./DashboardErrors.js"
export * from "./DashboardPorts.js"
export * from "./DashboardProjects.js"
export * from "./Diagnostics.js"
export * from "./Onboarding.js"
export * from "./Sessions.js"
export * from "./SessionTokens.js"
export * from "./SignIn.js"

/** Services of other features the Dashboard's build on; stateless, so a private instance is fine. */
const Dependencies = Layer.mergeAll(
  TotpFactors.layer,
  AccountProfile.layer,
  ProjectsService.layer,
  OrganizationsCore,
  OAuthGrants.layer
)

export const DashboardCore = Layer.mergeAll(
  SignIn.layer,
  PrivacyRequests.layer,
  ProjectIntegrations.layer,
  DashboardProjects.layer,
  Onboarding.layer,
  Diagnostics.layer
).pipe(
  Layer.provideMerge(Sessions.layer),
  Layer.provide(Dependencies)
)

export type DashboardPorts =
  | SessionsRepo
  | SignInThrottleRepo
  | PrivacyPorts
  | OnboardingRepo
  | StoreHealth
