/**
 * The testkit's registry: every feature's memory repositories and the test doubles of its non-store
 * ports. A feature's contract suite registers in RepositoryContract.ts (the `./vitest` entry), so
 * that these layers need no test runner.
 */
import { RateLimiterInProcess, RecordChangesNone, SecretsLive } from "@switchboard/core/shared"
import { Layer } from "effect"
import { PasswordHasherTest, TestServerSecret } from "./Adapters.js"
import { IdentityReposMemory } from "./memory/AccountsMemory.js"
import { OrganizationsMemory } from "./memory/OrganizationsMemory.js"
import { ProjectsMemory } from "./memory/ProjectsMemory.js"
import { RequestCountsMemory } from "./memory/RequestCountsMemory.js"
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
import { PlatformsMemory } from "./memory/PlatformsMemory.js"
import { ImessageMemory } from "./memory/ImessageMemory.js"
import { AttachmentsMemory } from "./memory/AttachmentsMemory.js"
import { WhatsappMemory } from "./memory/WhatsappMemory.js"
import { makeSimulatedImessagePool, makeSimulatedProviders } from "./simulated/index.js"
import { MetricsMemory } from "./memory/MetricsMemory.js"
import { MessagesMemory } from "./memory/MessagesMemory.js"
import { MemoryStateLive } from "./memory/MemoryState.js"
import { BillingCatalogTest, PaymentProviderTest } from "./memory/BillingMemory.js"
import { LineProviderSimulatedMemory, makeSipGatewayRecording } from "./memory/VoiceMemory.js"
import { SmsSenderMemory } from "./memory/AccountSecurityMemory.js"
import { BlobStoreMemory } from "./memory/UploadsMemory.js"

export * from "./memory/AccountsMemory.js"
export * from "./memory/MemoryState.js"
export * from "./memory/OrganizationsMemory.js"
export * from "./memory/ProjectsMemory.js"
export * from "./memory/RequestCountsMemory.js"
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

/** Every repository port in memory, over one fresh shared state each time the layer is built. */
export const RepositoriesMemory = Layer.mergeAll(
  IdentityReposMemory,
  // The in-memory store announces no changes, so core never caches records over it (RecordCache).
  Layer.succeedContext(RecordChangesNone),
  RateLimiterInProcess,
  OrganizationsMemory,
  ProjectsMemory,
  RequestCountsMemory,
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
