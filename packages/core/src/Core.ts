/**
 * The core's registry: every feature's services in one layer (`SwitchboardCore`) and every port the
 * store provides (`StorePorts`). A feature registers here — its `…Core` layer and its `…Ports`
 * type — and nowhere else in core. The services need only the ports (repositories, hasher,
 * secrets, credential revocations); services that share state (the credential cache) share one
 * instance.
 */
import { Layer } from "effect"
import type { AccountsRepo, AccountServiceKeysRepo, CredentialRevocations } from "./accounts/Ports.js"
import type { IdempotencyStore } from "./shared/Idempotency.js"
import type { RateLimiter } from "./shared/RateLimit.js"
import type { RecordChanges } from "./shared/RecordCache.js"
import type { Transactor } from "./shared/Ports.js"
import type { OrganizationsPorts } from "./organizations/OrganizationsFeature.js"
import type { ProjectsPorts } from "./projects/ProjectsFeature.js"
import type { ProjectApiKeysPorts } from "./credentials/ProjectApiKeysFeature.js"
import type { AccountSecurityPorts } from "./accounts/AccountSecurityFeature.js"
import type { UploadsPorts } from "./uploads/UploadsFeature.js"
import type { AccessTokensPorts } from "./oauth/AccessTokensFeature.js"
import type { EventsPorts } from "./events/EventsFeature.js"
import type { VoicePorts } from "./voice/VoiceFeature.js"
import type { BillingPorts } from "./billing/BillingFeature.js"
import type { WebhooksPorts } from "./events/WebhooksFeature.js"
import type { ManagementPorts } from "./management/ManagementFeature.js"
import type { OAuthProviderPorts } from "./oauth/OAuthProviderFeature.js"
import type { DashboardPorts } from "./dashboard/DashboardFeature.js"
import type { SsoPorts } from "./sso/SsoFeature.js"
import type { AppInstallationsPorts } from "./oauth/AppInstallationsFeature.js"
import type { ChannelPorts } from "./events/ChannelFeature.js"
import type { PlatformsPorts } from "./platforms/PlatformsFeature.js"
import type { MetricsPorts } from "./metrics/MetricsFeature.js"
import type { MessagesPorts } from "./messages/MessagesFeature.js"
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
import { SsoCore } from "./sso/SsoFeature.js"
import { AppInstallationsCore } from "./oauth/AppInstallationsFeature.js"
import { ChannelCore } from "./events/ChannelFeature.js"
import { PlatformsCore } from "./platforms/PlatformsFeature.js"
import { MetricsCore } from "./metrics/MetricsFeature.js"
import { MessagesCore } from "./messages/MessagesFeature.js"
import { RecordCache } from "./shared/RecordCache.js"
import { OAuthTokenCache } from "./oauth/OAuthTokenCache.js"

const IdentityCore = Layer.mergeAll(Accounts.layer, AccountServiceKeys.layer, Authenticator.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(ProjectKeyVerifier.layer, AccessTokenVerifier.layer)),
  Layer.provideMerge(Layer.mergeAll(CredentialCache.layer, RecordCache.layer, OAuthTokenCache.layer))
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
  DashboardCore,
  SsoCore,
  AppInstallationsCore,
  ChannelCore,
  PlatformsCore,
  MetricsCore,
  MessagesCore
).pipe(Layer.provideMerge(IdentityCore))

/** Every port the store provides: the identity slice's and each feature's. */
export type StorePorts =
  | Transactor
  | AccountsRepo
  | AccountServiceKeysRepo
  | IdempotencyStore
  | CredentialRevocations
  | RateLimiter
  | RecordChanges
  | OrganizationsPorts
  | ProjectsPorts
  | ProjectApiKeysPorts
  | AccountSecurityPorts
  | UploadsPorts
  | AccessTokensPorts
  | EventsPorts
  | VoicePorts
  | BillingPorts
  | WebhooksPorts
  | ManagementPorts
  | OAuthProviderPorts
  | DashboardPorts
  | SsoPorts
  | AppInstallationsPorts
  | ChannelPorts
  | PlatformsPorts
  | MetricsPorts
  | MessagesPorts
