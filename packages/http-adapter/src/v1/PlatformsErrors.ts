/** The platforms feature's rows of the /v1 error table: core error → problem (see Problems.ts). */
import type { PlatformsError } from "@switchboard/core/platforms"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

export const platformsErrors: ErrorTable<Exclude<PlatformsError, { _tag: "ProjectNotFound" | "ProjectDeleted" | "ProjectClosing" }>> = {
  OperationNotFound: (e) => problem("OPERATION_NOT_FOUND", `No operation ${e.operationId} in this project.`),
  OperationNotCancellable: (e) =>
    problem(
      "OPERATION_NOT_CANCELLABLE",
      e.why === "not_cancellable"
        ? `Operation ${e.operationId} is of a type that cannot be cancelled.`
        : `Operation ${e.operationId} can no longer be cancelled (${e.state}${e.why === "committed" ? ", its result is stored" : ""}).`,
      { extra: { state: e.state } }
    ),
  ResourceNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No resource ${e.resourceId} held by this project.`),
  InvalidPlatformRequest: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: e.parameter === "pageToken" ? "query" : "json", message: e.message, path: `/${e.parameter}` }],
      `${e.parameter}: ${e.message}`
    ),
  TelegramProvisionInProgress: (e) =>
    problem("TELEGRAM_PROVISION_IN_PROGRESS", `A Telegram bot is already being provisioned (operation ${e.operationId}).`, {
      extra: {
        operationId: e.operationId,
        operationUrl: `/v1/projects/${e.projectId}/platforms/operations/${e.operationId}`
      }
    }),
  EmailDomainAlreadyConnected: (e) =>
    problem("EMAIL_DOMAIN_ALREADY_CONNECTED", `${e.domain} is connected, or being connected, already.`),
  SmsCampaignInvalidRequest: (e) => problem("SMS_CAMPAIGN_INVALID_REQUEST", e.message),
  SmsLineNotFound: (e) => problem("SMS_LINE_NOT_FOUND", `No SMS line ${e.resourceId} held by this project.`),
  SmsLineUnsupported: (e) => problem("SMS_LINE_UNSUPPORTED", `${e.resourceId} (${e.type}) cannot send SMS.`),
  SmsCampaignNotFound: (e) => problem("SMS_CAMPAIGN_NOT_FOUND", `No campaign ${e.campaignId}.`),
  SmsCampaignNotReady: (e) => problem("SMS_CAMPAIGN_NOT_READY", `Campaign ${e.campaignId} is ${e.status}, not ready.`),
  SmsCampaignCapacityExceeded: (e) =>
    problem("SMS_CAMPAIGN_CAPACITY_EXCEEDED", `Campaign ${e.campaignId} takes no more numbers (capacity ${e.capacity}).`),
  SmsCampaignOrganizationMismatch: (e) =>
    problem("SMS_CAMPAIGN_ORGANIZATION_MISMATCH", `Campaign ${e.campaignId} belongs to another organization.`),
  SmsCampaignVersionConflict: (e) =>
    problem(
      "SMS_CAMPAIGN_VERSION_CONFLICT",
      `${e.resourceId}'s campaign assignment is at version ${e.currentVersion}, not ${e.expectedVersion}; read it again and retry.`,
      { extra: { currentVersion: e.currentVersion } }
    ),
  SmsCampaignContextUnavailable: (e) =>
    problem("SMS_CAMPAIGN_CONTEXT_UNAVAILABLE", `The campaign registry is unavailable (${e.message}); retry shortly.`, {
      headers: { "retry-after": "5" }
    }),
  PlatformProviderUnavailable: (e) =>
    problem("UPSTREAM_UNAVAILABLE", `The ${e.provider} provider is unavailable (${e.message}); retry shortly.`, {
      headers: { "retry-after": "5" }
    })
}
