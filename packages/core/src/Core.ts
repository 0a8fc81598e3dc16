/**
 * The core's services in one layer; it needs only the ports (repositories, hasher, secrets,
 * credential revocations). Services that share state (the credential cache) share one instance.
 */
import { Layer } from "effect"
import { Accounts } from "./accounts/Accounts.js"
import { AccountServiceKeys } from "./credentials/AccountServiceKeys.js"
import { Authenticator } from "./credentials/Authenticator.js"
import { AccessTokenVerifier } from "./credentials/AccessTokenVerifier.js"
import { CredentialCache } from "./credentials/CredentialCache.js"
import { ProjectKeyVerifier } from "./credentials/ProjectKeyVerifier.js"
import { OrganizationsCore } from "./organizations/OrganizationsFeature.js"
import { ProjectsCore } from "./projects/ProjectsFeature.js"
import { ProjectApiKeysCore } from "./credentials/ProjectApiKeysFeature.js"
import { AccountSecurityCore } from "./accounts/AccountSecurityFeature.js"
import { UploadsCore } from "./uploads/UploadsFeature.js"
import { AccessTokensCore } from "./oauth/AccessTokensFeature.js"
import { EventsCore } from "./events/EventsFeature.js"
import { VoiceCore } from "./voice/VoiceFeature.js"
import { BillingCore } from "./billing/BillingFeature.js"
import { WebhooksCore } from "./events/WebhooksFeature.js"
import { ManagementCore } from "./management/ManagementFeature.js"
import { OAuthProviderCore } from "./oauth/OAuthProviderFeature.js"
import { DashboardCore } from "./dashboard/DashboardFeature.js"
import { RecordCache } from "./shared/RecordCache.js"

const IdentityCore = Layer.mergeAll(Accounts.Default, AccountServiceKeys.Default, Authenticator.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(ProjectKeyVerifier.Default, AccessTokenVerifier.Default)),
  Layer.provideMerge(Layer.mergeAll(CredentialCache.Default, RecordCache.Default))
)

/** Every service of core; feature services may use the identity services. */
export const SwitchboardCore = Layer.mergeAll(
  OrganizationsCore,
  ProjectsCore,
  ProjectApiKeysCore,
  AccountSecurityCore,
  UploadsCore,
  AccessTokensCore,
  EventsCore,
  VoiceCore,
  BillingCore,
  WebhooksCore,
  ManagementCore,
  OAuthProviderCore,
  DashboardCore
).pipe(Layer.provideMerge(IdentityCore))
