/**
 * The platforms feature in core: provisioning operations and resources.
 *
 * `PlatformsCore` needs the store's ports (`PlatformsPorts`, plus projects, organizations and the
 * events outbox) and six that are not the store's: `NumberProvider`, `CampaignRegistry`, `TelegramProvider`,
 * `EmailDomainProvider`, `WhatsappProvider` and `ImessagePool` (the server ships simulated ones, from
 * `@switchboard/testkit/simulated`); billing's `BillingRepo` and `BillingCatalog` price resources,
 * and attachments keep their bytes in the uploads feature's `BlobStore`.
 */
import { Layer } from "effect"
import { Attachments } from "./Attachments.js"
import type { AttachmentsRepo } from "./AttachmentsPorts.js"
import { Imessage } from "./Imessage.js"
import type { SharedLineAssignmentsRepo } from "./ImessagePorts.js"
import type { OperationsRepo, ResourcesRepo } from "./PlatformPorts.js"
import { Provisioning } from "./Provisioning.js"
import { ProvisioningWorker } from "./ProvisioningWorker.js"
import { SmsCampaigns } from "./SmsCampaigns.js"
import { VerificationCodes } from "./VerificationCodes.js"
import { Whatsapp } from "./Whatsapp.js"
import { WhatsappAssignments } from "./WhatsappAssignments.js"
import type { VerificationCodesRepo, WhatsappAccountsRepo, WhatsappAssignmentsRepo } from "./WhatsappPorts.js"

export * from "./Attachments.js"
export * from "./AttachmentsErrors.js"
export * from "./AttachmentsPorts.js"
export * from "./AttachmentsSchema.js"
export * from "./Imessage.js"
export * from "./ImessageErrors.js"
export * from "./ImessagePorts.js"
export * from "./ImessageProvisioning.js"
export * from "./ImessageSchema.js"
export * from "./OperationMachine.js"
export * from "./PricedResources.js"
export * from "./PlatformErrors.js"
export * from "./PlatformPorts.js"
export * from "./PlatformSchema.js"
export * from "./PlatformViews.js"
export * from "./Provisioning.js"
export * from "./ProvisioningWorker.js"
export * from "./SmsCampaigns.js"
export * from "./VerificationCodes.js"
export * from "./Whatsapp.js"
export * from "./WhatsappAccountMachine.js"
export * from "./WhatsappAssignments.js"
export * from "./WhatsappErrors.js"
export * from "./WhatsappPorts.js"
export * from "./WhatsappSchema.js"

export const PlatformsCore = Layer.mergeAll(
  Provisioning.layer,
  ProvisioningWorker.layer,
  SmsCampaigns.layer,
  Whatsapp.layer,
  WhatsappAssignments.layer,
  VerificationCodes.layer,
  Imessage.layer,
  Attachments.layer
)
export type PlatformsPorts =
  | OperationsRepo
  | ResourcesRepo
  | WhatsappAccountsRepo
  | WhatsappAssignmentsRepo
  | VerificationCodesRepo
  | SharedLineAssignmentsRepo
  | AttachmentsRepo
