/** @switchboard/testkit — in-memory layers for every core port, fixtures and the contract suites. */
import { CredentialRevocationsInProcess } from "@switchboard/core/credentials"
import { SecretsLive, ServerSecretFromBytes } from "@switchboard/core/shared"
import { Layer } from "effect"
import { PasswordHasherTest } from "./Adapters.js"
import { RepositoriesMemory } from "./memory/Repositories.js"
import { BillingCatalogTest, PaymentProviderTest } from "./memory/BillingMemory.js"
import { LineProviderSimulatedMemory, makeSipGatewayRecording } from "./memory/VoiceMemory.js"
import { SmsSenderMemory } from "./memory/AccountSecurityMemory.js"
import { BlobStoreMemory } from "./memory/UploadsMemory.js"

export * from "./Adapters.js"
export * from "./memory/AccountsMemory.js"
export * from "./memory/MemoryState.js"
export * from "./memory/Repositories.js"
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
export * from "./memory/DashboardMemory.js"
export * from "./Fixtures.js"
export * from "./RepositoryContract.js"

/** Every port in memory, with real randomness: provide it under `SwitchboardCore` in tests and demos. */
/** A fixed server secret for tests (never use it in a deployment). */
export const TestServerSecret = ServerSecretFromBytes(new Uint8Array(32).fill(7))

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
  Layer.suspend(() => makeSipGatewayRecording().layer)
)

export const TestkitLive = Layer.mergeAll(
  RepositoriesMemory,
  PasswordHasherTest,
  SecretsLive,
  CredentialRevocationsInProcess,
  TestServerSecret
)
