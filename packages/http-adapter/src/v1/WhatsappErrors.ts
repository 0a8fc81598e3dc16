/** WhatsApp's and the filtered verification codes' rows of the /v1 error table: core error → problem (see Problems.ts). */
import type { WhatsappError } from "@switchboard/core/platforms"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

export const whatsappErrors: ErrorTable<WhatsappError> = {
  InvalidQueryParameter: (e) =>
    validationFailed([{ code: "invalid_value", location: "query", message: e.message, path: `/${e.parameter}` }], `${e.parameter}: ${e.message}`),
  WhatsappWabaNotConnected: () =>
    problem("WHATSAPP_WABA_NOT_CONNECTED", "The project has no connected WhatsApp Business Account; connect one with Embedded Signup first."),
  WhatsappAccountDisconnecting: () =>
    problem("WHATSAPP_ACCOUNT_DISCONNECTING", "The project's WhatsApp Business Account is being disconnected."),
  WhatsappAccountProvisioning: (e) =>
    problem("WHATSAPP_ACCOUNT_PROVISIONING", `A sender is still being connected (operation ${e.operationId}); wait for it to finish.`, {
      extra: { operationId: e.operationId }
    }),
  WhatsappSenderConnected: (e) =>
    problem("WHATSAPP_SENDER_CONNECTED", `The number is a WhatsApp sender already (${e.resourceId}).`, { extra: { resourceId: e.resourceId } }),
  WhatsappSenderProvisioning: (e) =>
    problem("WHATSAPP_SENDER_PROVISIONING", `The number is being connected as a sender (operation ${e.operationId}).`, {
      extra: { operationId: e.operationId }
    }),
  WhatsappVoipSourceNotEligible: (e) =>
    problem("WHATSAPP_VOIP_SOURCE_NOT_ELIGIBLE", `${e.resourceId} is not an active SMS-capable line of this project.`),
  WhatsappDisplayNameUnavailable: (e) =>
    problem("WHATSAPP_DISPLAY_NAME_UNAVAILABLE", `WhatsApp does not accept the display name "${e.displayName}"; choose another.`),
  WhatsappModeDedicated: () =>
    problem("WHATSAPP_MODE_DEDICATED", "The project's WhatsApp is in dedicated mode: it takes no shared-line assignments."),
  WhatsappVerificationCodeNotFound: (e) =>
    problem("WHATSAPP_VERIFICATION_CODE_NOT_FOUND", `No WhatsApp verification code for ${e.resourceId} yet; poll again shortly.`, {
      headers: { "retry-after": "2" }
    }),
  WhatsappVerificationWindowExpired: (e) =>
    problem("WHATSAPP_VERIFICATION_WINDOW_EXPIRED", `receivedAfter (${e.receivedAfter}) must be within the last 2 minutes.`),
  PlatformEntitlementRequired: (e) => problem("ENTITLEMENT_REQUIRED", e.message, { extra: { entitlement: e.feature } }),
  SharedLineAssignmentNotFound: (e) => problem("ASSIGNMENT_NOT_FOUND", `No assignment ${e.assignmentId} in this project.`),
  SharedLineAssignmentExists: (e) => problem("ASSIGNMENT_EXISTS", `${e.handle} already holds an assignment in this project.`),
  SharedLineCapExceeded: (e) =>
    problem("SHARED_LINE_CAP_EXCEEDED", `The project holds its ${e.maxUserAssignments} shared-line seats; release one first.`),
  SharedLinePoolExhausted: (e) =>
    problem("SHARED_LINE_POOL_EXHAUSTED", `The shared ${e.platform} line pool has no line to offer; retry later.`, {
      headers: { "retry-after": "30" }
    })
}
