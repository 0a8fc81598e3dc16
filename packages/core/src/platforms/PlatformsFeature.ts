/**
 * The platforms feature in core (issue 18): provisioning operations and resources.
 *
 * `PlatformsCore` needs the store's ports (`PlatformsPorts`, plus projects, organizations and the
 * events outbox) and five that are not the store's: `NumberProvider`, `CampaignRegistry`, `TelegramProvider`,
 * `EmailDomainProvider` and `WhatsappProvider` (the server ships simulated ones: `makeSimulatedProviders`).
 */
import { Layer } from "effect"
import type { OperationsRepo, ResourcesRepo } from "./PlatformPorts.js"
import { Provisioning } from "./Provisioning.js"
import { ProvisioningWorker } from "./ProvisioningWorker.js"
import { SmsCampaigns } from "./SmsCampaigns.js"
import { VerificationCodes } from "./VerificationCodes.js"
import { Whatsapp } from "./Whatsapp.js"
import { WhatsappAssignments } from "./WhatsappAssignments.js"
import type { VerificationCodesRepo, WhatsappAccountsRepo, WhatsappAssignmentsRepo } from "./WhatsappPorts.js"

export * from "./OperationMachine.js"
export * from "./PlatformErrors.js"
export * from "./PlatformPorts.js"
export * from "./PlatformSchema.js"
export * from "./PlatformViews.js"
export * from "./Provisioning.js"
export * from "./ProvisioningWorker.js"
export * from "./SimulatedProviders.js"
export * from "./SmsCampaigns.js"
export * from "./SimulatedWhatsapp.js"
export * from "./VerificationCodes.js"
export * from "./Whatsapp.js"
export * from "./WhatsappAccountMachine.js"
export * from "./WhatsappAssignments.js"
export * from "./WhatsappErrors.js"
export * from "./WhatsappPorts.js"
export * from "./WhatsappSchema.js"

export const PlatformsCore = Layer.mergeAll(
  Provisioning.Default,
  ProvisioningWorker.Default,
  SmsCampaigns.Default,
  Whatsapp.Default,
  WhatsappAssignments.Default,
  VerificationCodes.Default
)
export type PlatformsPorts = OperationsRepo | ResourcesRepo | WhatsappAccountsRepo | WhatsappAssignmentsRepo | VerificationCodesRepo
