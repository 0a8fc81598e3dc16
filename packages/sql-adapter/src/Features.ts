/**
 * The SQL adapter's registry: every feature's repositories on the SQL client and every migration.
 * A feature registers here — its repository layer and its migrations — and nowhere else in the
 * package (`Repositories.ts` builds the store from `RepositoriesSql`, `Migrations.ts` runs
 * `migrations`). Migration ids are unique and increasing (test/Migrations.test.ts).
 */
import { Layer } from "effect"
import { AccountServiceKeysRepoSql } from "./credentials/AccountServiceKeysRepoSql.js"
import { AccountsRepoSql } from "./accounts/AccountsRepoSql.js"
import { IdempotencyStoreSql } from "./shared/IdempotencyStoreSql.js"
import { TransactorSql } from "./shared/TransactorSql.js"
import { OrganizationsReposSql } from "./organizations/OrganizationsSql.js"
import { ProjectsReposSql } from "./projects/ProjectsSql.js"
import { RequestCountsReposSql } from "./projects/RequestCountsSql.js"
import { ProjectApiKeysReposSql } from "./credentials/ProjectApiKeysSql.js"
import { AccountSecurityReposSql } from "./accounts/AccountSecuritySql.js"
import { UploadsReposSql } from "./uploads/UploadsSql.js"
import { AccessTokensReposSql } from "./oauth/AccessTokensSql.js"
import { EventsReposSql } from "./events/EventsSql.js"
import { VoiceReposSql } from "./voice/VoiceSql.js"
import { BillingReposSql } from "./billing/BillingSql.js"
import { WebhooksReposSql } from "./events/WebhooksSql.js"
import { PlatformsAndUsersReposSql } from "./projects/PlatformsAndUsersSql.js"
import { OAuthProviderReposSql } from "./oauth/OAuthProviderSql.js"
import { DashboardReposSql } from "./dashboard/DashboardSql.js"
import { SsoReposSql } from "./sso/SsoSql.js"
import { AppInstallationsReposSql } from "./oauth/AppInstallationsSql.js"
import { PlatformsReposSql } from "./platforms/PlatformsSql.js"
import { WhatsappReposSql } from "./platforms/WhatsappSql.js"
import { ImessageReposSql } from "./platforms/ImessageSql.js"
import { AttachmentsReposSql } from "./platforms/AttachmentsSql.js"
import { MetricsReposSql } from "./metrics/MetricsQuerySql.js"
import { MessagesReposSql } from "./messages/MessagesSql.js"
import m0001 from "./migrations/0001_identity.js"
import m0002 from "./migrations/0002_organizations.js"
import m0003 from "./migrations/0003_projects.js"
import m0004 from "./migrations/0004_projectApiKeys.js"
import m0005 from "./migrations/0005_accountSecurity.js"
import m0006 from "./migrations/0006_uploads.js"
import m0007 from "./migrations/0007_accessTokens.js"
import m0008 from "./migrations/0008_rate_limits.js"
import m0009 from "./migrations/0009_events.js"
import m0010 from "./migrations/0010_oauthProvider.js"
import m0011 from "./migrations/0011_dashboard.js"
import m0012 from "./migrations/0012_voice.js"
import m0013 from "./migrations/0013_billing.js"
import m0014 from "./migrations/0014_webhooks.js"
import m0015 from "./migrations/0015_management.js"
import m0016 from "./migrations/0016_webhook_claims.js"
import m0017 from "./migrations/0017_recordChanges.js"
import m0030 from "./migrations/0030_eventChannel.js"
import { ChannelReposSql } from "./events/ChannelSql.js"
import m0060 from "./migrations/0060_sso.js"
import m0070 from "./migrations/0070_platforms.js"
import m0105 from "./migrations/0105_imessage.js"
import m0106 from "./migrations/0106_attachments.js"
import m0090 from "./migrations/0090_deviceCodes.js"
import m0095 from "./migrations/0095_appInstallations.js"
import m0040 from "./migrations/0040_metrics.js"
import m0080 from "./migrations/0080_messages.js"
import m0085 from "./migrations/0085_metricsPlannedProject.js"
import m0086 from "./migrations/0086_billingUsageRecords.js"
import m0100 from "./migrations/0100_whatsapp.js"
import m0120 from "./migrations/0120_billingOperationsByProject.js"
import m0130 from "./migrations/0130_organizationSubscriptions.js"
import m0140 from "./migrations/0140_filteredCodeFacts.js"
import m0150 from "./migrations/0150_webhookDeliveriesDueIndex.js"
import m0160 from "./migrations/0160_webhookEndpointsStartAfter.js"
import m0170 from "./migrations/0170_projectRequestCounts.js"

export const RepositoriesSql = Layer.mergeAll(
  TransactorSql,
  AccountsRepoSql,
  AccountServiceKeysRepoSql,
  IdempotencyStoreSql,
  OrganizationsReposSql,
  ProjectsReposSql,
  RequestCountsReposSql,
  ProjectApiKeysReposSql,
  AccountSecurityReposSql,
  UploadsReposSql,
  AccessTokensReposSql,
  EventsReposSql,
  VoiceReposSql,
  BillingReposSql,
  WebhooksReposSql,
  PlatformsAndUsersReposSql,
  OAuthProviderReposSql,
  DashboardReposSql,
  ChannelReposSql,
  SsoReposSql,
  AppInstallationsReposSql,
  PlatformsReposSql,
  WhatsappReposSql,
  ImessageReposSql,
  AttachmentsReposSql,
  MetricsReposSql,
  MessagesReposSql
)

/** Every migration, in id order (a test checks the ids are unique and increasing). */
export const migrations = {
  "0001_identity": m0001,
  "0002_organizations": m0002,
  "0003_projects": m0003,
  "0004_projectApiKeys": m0004,
  "0005_accountSecurity": m0005,
  "0006_uploads": m0006,
  "0007_accessTokens": m0007,
  "0008_rate_limits": m0008,
  "0009_events": m0009,
  "0010_oauthProvider": m0010,
  "0011_dashboard": m0011,
  "0012_voice": m0012,
  "0013_billing": m0013,
  "0014_webhooks": m0014,
  "0015_management": m0015,
  "0016_webhook_claims": m0016,
  "0017_recordChanges": m0017,
  "0030_eventChannel": m0030,
  "0040_metrics": m0040,
  "0060_sso": m0060,
  "0070_platforms": m0070,
  "0080_messages": m0080,
  "0085_metricsPlannedProject": m0085,
  "0086_billingUsageRecords": m0086,
  "0090_deviceCodes": m0090,
  "0095_appInstallations": m0095,
  "0100_whatsapp": m0100,
  "0105_imessage": m0105,
  "0106_attachments": m0106,
  "0120_billingOperationsByProject": m0120,
  "0130_organizationSubscriptions": m0130,
  "0140_filteredCodeFacts": m0140,
  "0150_webhookDeliveriesDueIndex": m0150,
  "0160_webhookEndpointsStartAfter": m0160,
  "0170_projectRequestCounts": m0170
}
