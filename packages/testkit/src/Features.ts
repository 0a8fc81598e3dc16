/**
 * The testkit's registry: every feature's memory repositories, its contract suite and the test
 * doubles of its non-store ports. A feature registers here and nowhere else in the package.
 */
import type { Vitest } from "@effect/vitest"
import type { StorePorts } from "@switchboard/core"
import { RateLimiterInProcess, RecordChangesNone, SecretsLive } from "@switchboard/core/shared"
import { Layer } from "effect"
import { PasswordHasherTest, TestServerSecret } from "./Adapters.js"
import { organizationsContract } from "./contracts/OrganizationsContract.js"
import { projectsContract } from "./contracts/ProjectsContract.js"
import { projectApiKeysContract } from "./contracts/ProjectApiKeysContract.js"
import { accountSecurityContract } from "./contracts/AccountSecurityContract.js"
import { uploadsContract } from "./contracts/UploadsContract.js"
import { accessTokensContract } from "./contracts/AccessTokensContract.js"
import { eventsContract } from "./contracts/EventsContract.js"
import { voiceContract } from "./contracts/VoiceContract.js"
import { billingContract } from "./contracts/BillingContract.js"
import { webhooksContract } from "./contracts/WebhooksContract.js"
import { managementContract } from "./contracts/ManagementContract.js"
import { oAuthProviderContract } from "./contracts/OAuthProviderContract.js"
import { dashboardContract } from "./contracts/DashboardContract.js"
import { ssoContract } from "./contracts/SsoContract.js"
import { deviceCodesContract } from "./contracts/DeviceCodesContract.js"
import { appInstallationsContract } from "./contracts/AppInstallationsContract.js"
import { IdentityReposMemory } from "./memory/AccountsMemory.js"
import { OrganizationsMemory } from "./memory/OrganizationsMemory.js"
import { ProjectsMemory } from "./memory/ProjectsMemory.js"
import { ProjectApiKeysMemory } from "./memory/ProjectApiKeysMemory.js"
import { AccountSecurityMemory } from "./memory/AccountSecurityMemory.js"
import { UploadsMemory } from "./memory/UploadsMemory.js"
import { AccessTokensMemory } from "./memory/AccessTokensMemory.js"
import { EventsMemory } from "./memory/EventsMemory.js"
import { VoiceMemory } from "./memory/VoiceMemory.js"
import { BillingMemory } from "./memory/BillingMemory.js"
import { WebhooksMemory } from "./memory/WebhooksMemory.js"
import { PlatformsAndUsersMemory } from "./memory/PlatformsAndUsersMemory.js"
import { OAuthProviderMemory } from "./memory/OAuthProviderMemory.js"
import { DashboardMemory } from "./memory/DashboardMemory.js"
import { makeDnsTxtResolverMemory, SsoMemory, SsoOutboundUnreachable } from "./memory/SsoMemory.js"
import { AppInstallationsMemory } from "./memory/AppInstallationsMemory.js"
import { ChannelMemory } from "./memory/ChannelMemory.js"
import { channelContract } from "./contracts/ChannelContract.js"
import { PlatformsMemory } from "./memory/PlatformsMemory.js"
import { ImessageMemory } from "./memory/ImessageMemory.js"
import { AttachmentsMemory } from "./memory/AttachmentsMemory.js"
import { attachmentsContract } from "./contracts/AttachmentsContract.js"
import { imessageContract } from "./contracts/ImessageContract.js"
import { platformsContract } from "./contracts/PlatformsContract.js"
import { WhatsappMemory } from "./memory/WhatsappMemory.js"
import { whatsappContract } from "./contracts/WhatsappContract.js"
import { makeSimulatedImessagePool, makeSimulatedProviders } from "./simulated/index.js"
import { MetricsMemory } from "./memory/MetricsMemory.js"
import { MessagesMemory } from "./memory/MessagesMemory.js"
import { messagesContract } from "./contracts/MessagesContract.js"
import { MemoryStateLive } from "./memory/MemoryState.js"
import { BillingCatalogTest, PaymentProviderTest } from "./memory/BillingMemory.js"
import { LineProviderSimulatedMemory, makeSipGatewayRecording } from "./memory/VoiceMemory.js"
import { SmsSenderMemory } from "./memory/AccountSecurityMemory.js"
import { BlobStoreMemory } from "./memory/UploadsMemory.js"

export * from "./memory/AccountsMemory.js"
export * from "./memory/MemoryState.js"
export * from "./memory/OrganizationsMemory.js"
export * from "./memory/ProjectsMemory.js"
export * from "./memory/ProjectApiKeysMemory.js"
export * from "./memory/AccountSecurityMemory.js"
export * from "./memory/UploadsMemory.js"
export * from "./memory/AccessTokensMemory.js"
export * from "./memory/EventsMemory.js"
export * from "./memory/VoiceMemory.js"
export * from "./memory/BillingMemory.js"
export * from "./memory/WebhooksMemory.js"
export * from "./memory/PlatformsAndUsersMemory.js"
export * from "./memory/OAuthProviderMemory.js"
export * from "./memory/DeviceCodesMemory.js"
export * from "./memory/DashboardMemory.js"
export * from "./memory/SsoMemory.js"
export * from "./memory/AppInstallationsMemory.js"
export * from "./memory/ChannelMemory.js"
export * from "./memory/PlatformsMemory.js"
export * from "./memory/WhatsappMemory.js"
export * from "./memory/ImessageMemory.js"
export * from "./memory/AttachmentsMemory.js"
export * from "./memory/MetricsMemory.js"
export * from "./memory/MessagesMemory.js"
export * from "./contracts/MetricsContract.js"

/** Every repository port in memory, over one fresh shared state each time the layer is built. */
export const RepositoriesMemory = Layer.mergeAll(
  IdentityReposMemory,
  // The in-memory store announces no changes, so core never caches records over it (RecordCache).
  Layer.succeedContext(RecordChangesNone),
  RateLimiterInProcess,
  OrganizationsMemory,
  ProjectsMemory,
  ProjectApiKeysMemory,
  AccountSecurityMemory,
  UploadsMemory,
  AccessTokensMemory,
  EventsMemory,
  VoiceMemory,
  BillingMemory,
  WebhooksMemory,
  PlatformsAndUsersMemory,
  OAuthProviderMemory,
  DashboardMemory,
  SsoMemory,
  AppInstallationsMemory,
  ChannelMemory,
  PlatformsMemory,
  WhatsappMemory,
  ImessageMemory,
  AttachmentsMemory,
  MetricsMemory,
  MessagesMemory
).pipe(Layer.provideMerge(MemoryStateLive))

/** Every feature's contract suite: `repositoryContract` runs them on each backend. */
export const featuresContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  organizationsContract(it)
  projectsContract(it)
  projectApiKeysContract(it)
  accountSecurityContract(it)
  uploadsContract(it)
  accessTokensContract(it)
  eventsContract(it)
  voiceContract(it)
  billingContract(it)
  webhooksContract(it)
  managementContract(it)
  oAuthProviderContract(it)
  deviceCodesContract(it)
  dashboardContract(it)
  ssoContract(it)
  appInstallationsContract(it)
  channelContract(it)
  platformsContract(it)
  whatsappContract(it)
  imessageContract(it)
  attachmentsContract(it)
  messagesContract(it)
}

/**
 * The ports of a core that are not the store's, as test doubles: for a core on a SQL store (the
 * store provides repositories and revocations; these provide the rest).
 */
export const TestPorts = Layer.mergeAll(
  PasswordHasherTest,
  SecretsLive,
  TestServerSecret,
  SmsSenderMemory,
  BlobStoreMemory,
  BillingCatalogTest(),
  PaymentProviderTest,
  LineProviderSimulatedMemory,
  Layer.suspend(() => makeSipGatewayRecording().layer),
  SsoOutboundUnreachable,
  Layer.suspend(() => makeDnsTxtResolverMemory().layer),
  Layer.suspend(() => makeSimulatedProviders()),
  Layer.suspend(() => makeSimulatedImessagePool().layer)
)
