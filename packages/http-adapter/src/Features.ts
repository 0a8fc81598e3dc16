/**
 * The HTTP adapter's registry: every feature's part of the four surfaces in one file — its /v1
 * group (each endpoint declaring its problems and Idempotency-Key rule) and handlers, its raw routes
 * (Dashboard, OAuth, management, pages) and, for the standalone server, its adapters (the non-store
 * ports) and background workers. `Http.ts` builds the application and `server/Server.ts` the
 * process from these lists; a feature registers here, and its /v1 error rows in `v1/Problems.ts`
 * (a core error without a row there is a compile error).
 */
import { Accounts } from "@switchboard/core/accounts"
import { AccountServiceKeys } from "@switchboard/core/credentials"
import { ProjectClosureStatus, ProjectsService } from "@switchboard/core/projects"
import { IdempotencyStore, Secrets, ServerSecret, Transactor } from "@switchboard/core/shared"
import { Layer } from "effect"
import { ServerConfig, type ServerConfigShape } from "./http/ServerConfig.js"
import { ConsoleRoutes, consoleRouteTable } from "./console/ConsoleRoutes.js"
import { BillingRoutes, billingRouteTable } from "./routes/BillingRoutes.js"
import { DashboardRoutes, dashboardRouteTable } from "./routes/DashboardRoutes.js"
import { ManagementRoutes, managementRouteTable } from "./routes/ManagementRoutes.js"
import { OAuthProviderRoutes, oAuthProviderRouteTable } from "./routes/OAuthProviderRoutes.js"
import { SsoRoutes, ssoRouteTable } from "./routes/SsoRoutes.js"
import { AccessTokensServerAdapters } from "./server/AccessTokensAdapters.js"
import { AccountSecurityServerAdapters } from "./server/AccountSecurityAdapters.js"
import { BillingServerAdapters } from "./server/BillingAdapters.js"
import { BillingWorkers } from "./server/BillingWorkers.js"
import { DashboardServerAdapters } from "./server/DashboardAdapters.js"
import { DashboardWorkers } from "./server/DashboardWorkers.js"
import { ChannelServerAdapters } from "./server/ChannelAdapters.js"
import { ManagementServerAdapters } from "./server/ManagementAdapters.js"
import { OAuthProviderWorkers } from "./server/OAuthProviderWorkers.js"
import { ProjectApiKeysServerAdapters } from "./server/ProjectApiKeysAdapters.js"
import { ProjectsServerAdapters } from "./server/ProjectsAdapters.js"
import { SsoServerAdapters } from "./server/SsoAdapters.js"
import { UploadsServerAdapters } from "./server/UploadsAdapters.js"
import { VoiceServerAdapters } from "./server/VoiceAdapters.js"
import { WebhooksServerAdapters } from "./server/WebhooksAdapters.js"
import { WebhooksWorkers } from "./server/WebhooksWorkers.js"
import { PlatformsServerAdapters } from "./server/PlatformsAdapters.js"
import { ImessageServerAdapters } from "./server/ImessageAdapters.js"
import { PlatformsWorkers } from "./server/PlatformsWorkers.js"
import { RequestCountsWorker } from "./server/RequestCountsWorker.js"
import { WhatsappServerAdapters } from "./server/WhatsappAdapters.js"
import { PlatformsGroupLive } from "./v1/PlatformsHandlers.js"
import { WhatsappGroupLive } from "./v1/WhatsappHandlers.js"
import { VerificationCodesGroupLive } from "./v1/VerificationCodesHandlers.js"
import { ImessageGroupLive } from "./v1/ImessageHandlers.js"
import { AttachmentsGroupLive } from "./v1/AttachmentsHandlers.js"
import { AccessTokensGroupLive } from "./v1/AccessTokensHandlers.js"
import { AccountSecurityGroupLive } from "./v1/AccountSecurityHandlers.js"
import { BillingGroupLive } from "./v1/BillingHandlers.js"
import { Authn } from "./v1/Authn.js"
import { RouteAccess } from "./v1/Access.js"
import { Idempotency } from "./v1/Idempotency.js"
import { JsonBody } from "./v1/JsonBody.js"
import { V1Problems } from "./v1/V1Problems.js"
import { AccountGroupLive } from "./v1/AccountHandlers.js"
import { leanGroup } from "./v1/LeanGroup.js"
import { OAuthProviderGroupLive } from "./v1/OAuthProviderHandlers.js"
import { OrganizationsGroupLive } from "./v1/OrganizationsHandlers.js"
import { ProjectApiKeysGroupLive } from "./v1/ProjectApiKeysHandlers.js"
import { ProjectsGroupLive } from "./v1/ProjectsHandlers.js"
import { UploadsGroupLive } from "./v1/UploadsHandlers.js"
import { UploadsRawRoutes, uploadsRawRouteTable } from "./v1/UploadsRoutes.js"
import { VoiceGroupLive } from "./v1/VoiceHandlers.js"
import { WebhooksGroupLive } from "./v1/WebhooksHandlers.js"
import { SsoGroupLive, SsoPublicGroupLive } from "./v1/SsoHandlers.js"
import { IngressGroupLive } from "./v1/IngressHandlers.js"
import { AppInstallationsGroupLive } from "./v1/AppInstallationsHandlers.js"
import { IngressRoutes, ingressRouteTable } from "./routes/IngressRoutes.js"
import { MetricsGroupLive } from "./v1/MetricsHandlers.js"
import { MessagesGroupLive } from "./v1/MessagesHandlers.js"

export { V1Api, type V1Groups } from "./v1/V1Api.js"

/** Every group's handlers (`HttpApiBuilder.layer(V1Api)` needs one per group). */
export const V1GroupsLive = Layer.mergeAll(
  // The groups of the hottest reads carry only what they use per request (v1/LeanGroup.ts).
  leanGroup(Authn, V1Problems, RouteAccess, JsonBody, Idempotency, Accounts, AccountServiceKeys, ServerConfig, IdempotencyStore, ServerSecret, Transactor, Secrets)(
    AccountGroupLive
  ),
  OrganizationsGroupLive,
  leanGroup(Authn, V1Problems, RouteAccess, JsonBody, Idempotency, ProjectsService, ProjectClosureStatus, ServerConfig, IdempotencyStore, ServerSecret, Transactor, Secrets)(
    ProjectsGroupLive
  ),
  ProjectApiKeysGroupLive,
  AccountSecurityGroupLive,
  UploadsGroupLive,
  AccessTokensGroupLive,
  VoiceGroupLive,
  BillingGroupLive,
  WebhooksGroupLive,
  OAuthProviderGroupLive,
  SsoPublicGroupLive,
  SsoGroupLive,
  AppInstallationsGroupLive,
  IngressGroupLive,
  PlatformsGroupLive,
  WhatsappGroupLive,
  VerificationCodesGroupLive,
  ImessageGroupLive,
  AttachmentsGroupLive,
  MetricsGroupLive,
  MessagesGroupLive
)

/** Every feature's routes outside the HttpApis (Dashboard, OAuth, the management fallback, uploads, checkout, SSO, ingress, the console). */
export const FeatureRoutes = Layer.mergeAll(
  UploadsRawRoutes,
  BillingRoutes,
  ManagementRoutes,
  OAuthProviderRoutes,
  DashboardRoutes,
  SsoRoutes,
  IngressRoutes,
  ConsoleRoutes
)

/** Those routes, and the management API's endpoints (its declaration), as (method, router path), for 405 answers and lifecycle headers. */
export const featureRouteTable: ReadonlyArray<readonly [string, string]> = [
  ...uploadsRawRouteTable,
  ...billingRouteTable,
  ...managementRouteTable,
  ...oAuthProviderRouteTable,
  ...dashboardRouteTable,
  ...ssoRouteTable,
  ...consoleRouteTable,
  ...ingressRouteTable
]

/**
 * The standalone server's adapters: each feature's non-store ports (hasher, SMS, blobs, catalog,
 * payments, lines, SIP, webhook sender, signing keys, …). Features whose ports are all in the
 * store have none.
 */
export const serverAdapters = (config: ServerConfigShape) =>
  Layer.mergeAll(
    ProjectsServerAdapters(config),
    ProjectApiKeysServerAdapters(config),
    AccountSecurityServerAdapters(config),
    UploadsServerAdapters(config),
    AccessTokensServerAdapters(config),
    VoiceServerAdapters(config),
    BillingServerAdapters(config),
    WebhooksServerAdapters(config),
    ManagementServerAdapters(config),
    DashboardServerAdapters(config),
    SsoServerAdapters(config),
    ChannelServerAdapters(config),
    PlatformsServerAdapters(config),
    WhatsappServerAdapters(config),
    ImessageServerAdapters(config)
  )

/** Background work of each feature in a server process (delivery engine, billing scheduler, …). */
export const serverWorkers = (config: ServerConfigShape) =>
  Layer.mergeAll(
    BillingWorkers(config),
    WebhooksWorkers(config),
    OAuthProviderWorkers(config),
    DashboardWorkers(config),
    PlatformsWorkers(config),
    RequestCountsWorker(config)
  )
