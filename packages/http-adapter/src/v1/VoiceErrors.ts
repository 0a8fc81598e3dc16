/** The Voice feature's rows of the error table: core error tag → problem (see Problems.ts). */
import { problem, validationFailed } from "./ProblemFailure.js"
import type { ErrorTable } from "./Problems.js"

const s = (v: unknown) => String(v)

export const voiceErrors: ErrorTable = {
  CallNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No call ${s(e.callId)} in this project.`),
  CallActionNotAllowed: (e) => problem("FAILED_PRECONDITION", `Cannot ${s(e.action)} call ${s(e.callId)}: ${s(e.message)}.`),
  SipGatewayUnavailable: (e) =>
    problem("UPSTREAM_UNAVAILABLE", `The SIP edge is unavailable (${s(e.message)}); nothing changed, retry shortly.`, {
      headers: { "retry-after": "1" }
    }),
  InvalidVoiceQuery: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "query", message: s(e.message), path: `/${s(e.parameter)}` }],
      `${s(e.parameter)} ${s(e.message)}`
    ),
  VoiceLineNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No voice-capable line ${s(e.lineId)} in this project.`),
  LineNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No line ${s(e.lineId)} in this project.`),
  LineUnavailable: (e) =>
    problem("UPSTREAM_UNAVAILABLE", `No ${s(e.platform)} number is available: ${s(e.message)}.`, { headers: { "retry-after": "60" } }),
  VoiceProfileNotFound: (e) =>
    problem(
      "VOICE_PROFILE_NOT_FOUND",
      e.profileId === "default" ? "This project has no default voice profile." : `No voice profile ${s(e.profileId)} in this project.`
    ),
  VoiceProfileVersionConflict: (e) =>
    problem(
      "VOICE_PROFILE_VERSION_CONFLICT",
      `${s(e.resourceId)} is at version ${s(e.currentVersion)}, not ${s(e.expectedVersion)}; read it again and retry.`,
      { extra: { currentVersion: e.currentVersion } }
    ),
  VoiceDefaultProfileExists: (e) =>
    problem("VOICE_DEFAULT_PROFILE_EXISTS", `The project's default voice profile ${s(e.profileId)} exists with other settings.`),
  VoiceDefaultProfileRequired: () =>
    problem("VOICE_DEFAULT_PROFILE_REQUIRED", "Create the project's default voice profile first (PUT …/profiles/default)."),
  VoiceDefaultProfileAssignmentForbidden: (e) =>
    problem(
      "VOICE_DEFAULT_PROFILE_ASSIGNMENT_FORBIDDEN",
      `${s(e.profileId)} is the default profile: lines follow it without an assignment (send profileId null).`
    ),
  VoiceDefaultProfileDeletionForbidden: (e) =>
    problem("VOICE_DEFAULT_PROFILE_DELETION_FORBIDDEN", `${s(e.profileId)} is the default profile; it cannot be deleted.`),
  VoiceProfileInUse: (e) =>
    problem("VOICE_PROFILE_IN_USE", `${s(e.profileId)} is assigned to ${s(e.lineCount)} line(s); delete with force=true to move them to the default.`),
  VoiceDefaultProfileImmutable: (e) => problem("FAILED_PRECONDITION", `The default profile's ${s(e.field)} cannot change.`),
  VoiceOutboundConfigured: (e) =>
    problem("VOICE_OUTBOUND_CONFIGURED", `Outbound SIP is already configured on ${s(e.profileId)}; rotate or delete it instead.`),
  VoiceOutboundNotConfigured: (e) => problem("VOICE_OUTBOUND_NOT_CONFIGURED", `Outbound SIP is not configured on ${s(e.profileId)}.`),
  VoiceOutboundOperationPending: (e) =>
    problem(
      "VOICE_OUTBOUND_OPERATION_PENDING",
      `The previous rotation's grace period runs until ${s(e.until)}; rotate in emergency mode to end it now.`,
      { headers: { "retry-after": s(e.retryAfterSeconds) } }
    ),
  VoiceInboundNotConfigured: (e) =>
    problem("FAILED_PRECONDITION", `Inbound SIP is not configured on ${s(e.profileId)}; create it with PUT first.`)
}
