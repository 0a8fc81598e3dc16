/** The Voice feature's rows of the /v1 error table: core error → problem (see Problems.ts). */
import type { VoiceError } from "@switchboard/core/voice"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

export const voiceErrors: ErrorTable<VoiceError> = {
  CallNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No call ${e.callId} in this project.`),
  CallActionNotAllowed: (e) => problem("FAILED_PRECONDITION", `Cannot ${e.action} call ${e.callId}: ${e.message}.`),
  SipGatewayUnavailable: (e) =>
    problem("UPSTREAM_UNAVAILABLE", `The SIP edge is unavailable (${e.message}); nothing changed, retry shortly.`, {
      headers: { "retry-after": "1" }
    }),
  InvalidVoiceQuery: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "query", message: e.message, path: `/${e.parameter}` }],
      `${e.parameter} ${e.message}`
    ),
  VoiceLineNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No voice-capable line ${e.lineId} in this project.`),
  LineNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No line ${e.lineId} in this project.`),
  LineUnavailable: (e) =>
    problem("UPSTREAM_UNAVAILABLE", `No ${e.platform} number is available: ${e.message}.`, { headers: { "retry-after": "60" } }),
  VoiceProfileNotFound: (e) =>
    problem(
      "VOICE_PROFILE_NOT_FOUND",
      e.profileId === "default" ? "This project has no default voice profile." : `No voice profile ${e.profileId} in this project.`
    ),
  VoiceProfileVersionConflict: (e) =>
    problem(
      "VOICE_PROFILE_VERSION_CONFLICT",
      `${e.resourceId} is at version ${e.currentVersion}, not ${e.expectedVersion}; read it again and retry.`,
      { extra: { currentVersion: e.currentVersion } }
    ),
  VoiceDefaultProfileExists: (e) =>
    problem("VOICE_DEFAULT_PROFILE_EXISTS", `The project's default voice profile ${e.profileId} exists with other settings.`),
  VoiceDefaultProfileRequired: () =>
    problem("VOICE_DEFAULT_PROFILE_REQUIRED", "Create the project's default voice profile first (PUT …/profiles/default)."),
  VoiceDefaultProfileAssignmentForbidden: (e) =>
    problem(
      "VOICE_DEFAULT_PROFILE_ASSIGNMENT_FORBIDDEN",
      `${e.profileId} is the default profile: lines follow it without an assignment (send profileId null).`
    ),
  VoiceDefaultProfileDeletionForbidden: (e) =>
    problem("VOICE_DEFAULT_PROFILE_DELETION_FORBIDDEN", `${e.profileId} is the default profile; it cannot be deleted.`),
  VoiceProfileInUse: (e) =>
    problem("VOICE_PROFILE_IN_USE", `${e.profileId} is assigned to ${e.lineCount} line(s); delete with force=true to move them to the default.`),
  VoiceDefaultProfileImmutable: (e) => problem("FAILED_PRECONDITION", `The default profile's ${e.field} cannot change.`),
  VoiceOutboundConfigured: (e) =>
    problem("VOICE_OUTBOUND_CONFIGURED", `Outbound SIP is already configured on ${e.profileId}; rotate or delete it instead.`),
  VoiceOutboundNotConfigured: (e) => problem("VOICE_OUTBOUND_NOT_CONFIGURED", `Outbound SIP is not configured on ${e.profileId}.`),
  VoiceOutboundOperationPending: (e) =>
    problem(
      "VOICE_OUTBOUND_OPERATION_PENDING",
      `The previous rotation's grace period runs until ${e.until}; rotate in emergency mode to end it now.`,
      { headers: { "retry-after": String(e.retryAfterSeconds) } }
    ),
  VoiceInboundNotConfigured: (e) =>
    problem("FAILED_PRECONDITION", `Inbound SIP is not configured on ${e.profileId}; create it with PUT first.`)
}
