/** Every port the store provides: the identity slice's and each feature's. */
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
