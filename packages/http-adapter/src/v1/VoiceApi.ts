/**
 * The Voice feature's /v1 routes (API.md §1.5; reference/contract.md §1 9e): voice profiles with
 * their SIP inbound and outbound configuration, line profile assignments, and calls with signal
 * ingestion. Everything is under `/v1/projects/{projectId}/platforms/voice`. Handlers read bodies
 * and queries themselves (`handleRaw`), so the payload and query schemas here serve routing and
 * the OpenAPI document; query parameters are plain optional strings here and decoded strictly in
 * the handler (a bad one is a 422 with location `query`).
 *
 * `{profileId}` also accepts `default`, the project's default profile (so its outbound and inbound
 * configuration has a path too).
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Voice } from "@switchboard/core"
import { CallId, ProjectId, VoiceProfileId } from "@switchboard/core/shared"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import {
  AssignVoiceLineProfileRequest,
  BatchUpdateVoiceLineProfileAssignmentsRequest,
  BatchUpdateVoiceLineProfileAssignmentsResponse,
  CallPage,
  ConfigureVoiceProfileOutboundRequest,
  ConfigureVoiceProfileOutboundResponse,
  CreateCallRequest,
  CreateDefaultVoiceProfileRequest,
  CreateVoiceProfileRequest,
  DeleteVoiceProfileOutboundResponse,
  IngestCallSignalsRequest,
  IngestCallSignalsResponse,
  LineId,
  RejectCallRequest,
  ReplaceVoiceProfileInboundRequest,
  RotateVoiceProfileOutboundCredentialRequest,
  RotateVoiceProfileOutboundCredentialResponse,
  UpdateDefaultVoiceProfileRequest,
  UpdateVoiceProfileInboundRequest,
  UpdateVoiceProfileOutboundAuthenticationRequest,
  UpdateVoiceProfileOutboundAuthenticationResponse,
  UpdateVoiceProfileRequest,
  VoiceLineProfileAssignment,
  VoiceProfile,
  VoiceProfileInboundConfiguration,
  VoiceProfilePage
} from "@switchboard/core/voice"
import { Schema } from "effect"
import { Authn } from "./Authn.js"
import { idempotencyProblems as idempotency, projectProblems as common } from "./CommonProblems.js"

const BASE = "/v1/projects/:projectId/platforms/voice"

const ProjectPath = Schema.Struct({ projectId: ProjectId })
/** A profile id, or `default` for the project's default profile. */
export const ProfileRef = Schema.Union(VoiceProfileId, Schema.Literal("default")).annotations({ identifier: "VoiceProfileRef" })
const ProfilePath = Schema.Struct({ projectId: ProjectId, profileId: ProfileRef })
const LinePath = Schema.Struct({ projectId: ProjectId, lineId: LineId })
const CallPath = Schema.Struct({ projectId: ProjectId, callId: CallId })

const queryParam = Schema.optional(Schema.String)
const ExpectedVersionParams = Schema.Struct({ expectedVersion: queryParam })
const DeleteProfileParams = Schema.Struct({ expectedVersion: queryParam, force: queryParam })
const ListProfilesParams = Schema.Struct({ default: queryParam, pageSize: queryParam, pageToken: queryParam })
const ListCallsParams = Schema.Struct({
  pageSize: queryParam,
  pageToken: queryParam,
  status: queryParam,
  direction: queryParam,
  createdAfter: queryParam,
  createdBefore: queryParam
})

export const VoiceGroup = HttpApiGroup.make("voice")
  // Profiles ------------------------------------------------------------------------------------
  .add(
    HttpApiEndpoint.put("createDefaultVoiceProfile", `${BASE}/profiles/default`)
      .annotateContext(OpenApi.annotations({ summary: "Create the default voice profile", description: "Creates the project's default voice profile if absent." }))
      .setPath(ProjectPath)
      .setPayload(CreateDefaultVoiceProfileRequest)
      .addSuccess(VoiceProfile)
      .addSuccess(VoiceProfile, { status: 201 })
      .annotate(OpenApi.Description, "Creates the default profile if absent (201); an identical one is returned as it is (200).")
  )
  .add(HttpApiEndpoint.get("getDefaultVoiceProfile", `${BASE}/profiles/default`)
    .annotateContext(OpenApi.annotations({ summary: "Get the default voice profile", description: "The voice profile lines use when none is assigned." })).setPath(ProjectPath).addSuccess(VoiceProfile))
  .add(
    HttpApiEndpoint.patch("updateDefaultVoiceProfile", `${BASE}/profiles/default`)
      .annotateContext(OpenApi.annotations({ summary: "Update the default voice profile", description: "Changes the default profile; `expectedVersion` guards against lost updates." }))
      .setPath(ProjectPath)
      .setPayload(UpdateDefaultVoiceProfileRequest)
      .addSuccess(VoiceProfile)
  )
  .add(
    HttpApiEndpoint.post("createVoiceProfile", `${BASE}/profiles`)
      .annotateContext(OpenApi.annotations({ summary: "Create a voice profile", description: "Creates a named voice profile (SIP endpoint, inbound and outbound settings)." }))
      .setPath(ProjectPath)
      .setPayload(CreateVoiceProfileRequest)
      .addSuccess(VoiceProfile, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("listVoiceProfiles", `${BASE}/profiles`)
      .annotateContext(OpenApi.annotations({ summary: "List voice profiles", description: "The project's voice profiles." }))
      .setPath(ProjectPath)
      .setUrlParams(ListProfilesParams)
      .addSuccess(VoiceProfilePage)
      .annotate(OpenApi.Description, "Oldest first; `default=true|false` filters; pageSize 1-200 (default 20).")
  )
  .add(HttpApiEndpoint.get("getVoiceProfile", `${BASE}/profiles/:profileId`)
    .annotateContext(OpenApi.annotations({ summary: "Get a voice profile", description: "One voice profile by id." })).setPath(ProfilePath).addSuccess(VoiceProfile))
  .add(
    HttpApiEndpoint.patch("updateVoiceProfile", `${BASE}/profiles/:profileId`)
      .annotateContext(OpenApi.annotations({ summary: "Update a voice profile", description: "Changes a voice profile; `expectedVersion` guards against lost updates." }))
      .setPath(ProfilePath)
      .setPayload(UpdateVoiceProfileRequest)
      .addSuccess(VoiceProfile)
  )
  .add(
    HttpApiEndpoint.del("deleteVoiceProfile", `${BASE}/profiles/:profileId`)
      .annotateContext(OpenApi.annotations({ summary: "Delete a voice profile", description: "Deletes a profile that no line uses." }))
      .setPath(ProfilePath)
      .setUrlParams(DeleteProfileParams)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Description, "`expectedVersion` is required; a profile assigned to lines needs `force=true`.")
  )
  .add(
    HttpApiEndpoint.put("configureVoiceProfileOutbound", `${BASE}/profiles/:profileId/outbound`)
      .annotateContext(OpenApi.annotations({ summary: "Configure outbound calling", description: "Sets up outbound SIP for the profile." }))
      .setPath(ProfilePath)
      .setPayload(ConfigureVoiceProfileOutboundRequest)
      .addSuccess(ConfigureVoiceProfileOutboundResponse, { status: 201 })
      .annotate(OpenApi.Description, "Creates the SIP outbound credential; the password is shown once.")
  )
  .add(
    HttpApiEndpoint.patch("updateVoiceProfileOutboundAuthentication", `${BASE}/profiles/:profileId/outbound`)
      .annotateContext(OpenApi.annotations({ summary: "Update outbound authentication", description: "Changes how outbound SIP requests authenticate." }))
      .setPath(ProfilePath)
      .setPayload(UpdateVoiceProfileOutboundAuthenticationRequest)
      .addSuccess(UpdateVoiceProfileOutboundAuthenticationResponse)
  )
  .add(
    HttpApiEndpoint.post("rotateVoiceProfileOutboundCredential", `${BASE}/profiles/:profileId/outbound/rotate`)
      .annotateContext(OpenApi.annotations({ summary: "Rotate the outbound credential", description: "Issues a new SIP password, shown once." }))
      .setPath(ProfilePath)
      .setPayload(RotateVoiceProfileOutboundCredentialRequest)
      .addSuccess(RotateVoiceProfileOutboundCredentialResponse)
      .annotate(OpenApi.Description, "normal: the previous password works for 1 h more; emergency: it stops now.")
  )
  .add(
    HttpApiEndpoint.del("deleteVoiceProfileOutbound", `${BASE}/profiles/:profileId/outbound`)
      .annotateContext(OpenApi.annotations({ summary: "Remove outbound calling", description: "Removes the profile's outbound SIP configuration and credential." }))
      .setPath(ProfilePath)
      .setUrlParams(ExpectedVersionParams)
      .addSuccess(DeleteVoiceProfileOutboundResponse)
  )
  .add(
    HttpApiEndpoint.put("replaceVoiceProfileInbound", `${BASE}/profiles/:profileId/inbound`)
      .annotateContext(OpenApi.annotations({ summary: "Set inbound routing", description: "Replaces the profile's inbound call routing." }))
      .setPath(ProfilePath)
      .setPayload(ReplaceVoiceProfileInboundRequest)
      .addSuccess(VoiceProfileInboundConfiguration)
      .addSuccess(VoiceProfileInboundConfiguration, { status: 201 })
  )
  .add(
    HttpApiEndpoint.patch("updateVoiceProfileInbound", `${BASE}/profiles/:profileId/inbound`)
      .annotateContext(OpenApi.annotations({ summary: "Update inbound routing", description: "Changes part of the profile's inbound call routing." }))
      .setPath(ProfilePath)
      .setPayload(UpdateVoiceProfileInboundRequest)
      .addSuccess(VoiceProfileInboundConfiguration)
  )
  .add(
    HttpApiEndpoint.del("deleteVoiceProfileInbound", `${BASE}/profiles/:profileId/inbound`)
      .annotateContext(OpenApi.annotations({ summary: "Remove inbound routing", description: "Removes the profile's inbound routing; inbound calls are rejected." }))
      .setPath(ProfilePath)
      .setUrlParams(ExpectedVersionParams)
      .addSuccess(VoiceProfileInboundConfiguration)
  )
  // Line profile assignments --------------------------------------------------------------------
  .add(
    HttpApiEndpoint.post("batchUpdateVoiceLineProfileAssignments", `${BASE}/lines/profile-assignments/batch`)
      .annotateContext(OpenApi.annotations({ summary: "Assign profiles to lines", description: "Assigns voice profiles to many lines at once." }))
      .setPath(ProjectPath)
      .setPayload(BatchUpdateVoiceLineProfileAssignmentsRequest)
      .addSuccess(BatchUpdateVoiceLineProfileAssignmentsResponse)
      .annotate(OpenApi.Description, "1-100 updates, all or nothing; profileId null = back to the default profile.")
  )
  .add(
    HttpApiEndpoint.get("getVoiceLineProfileAssignment", `${BASE}/lines/:lineId/profile`)
      .annotateContext(OpenApi.annotations({ summary: "Get a line's profile", description: "The voice profile a line uses." }))
      .setPath(LinePath)
      .addSuccess(VoiceLineProfileAssignment)
  )
  .add(
    HttpApiEndpoint.put("assignVoiceLineProfile", `${BASE}/lines/:lineId/profile`)
      .annotateContext(OpenApi.annotations({ summary: "Assign a profile to a line", description: "Makes the line use the voice profile." }))
      .setPath(LinePath)
      .setPayload(AssignVoiceLineProfileRequest)
      .addSuccess(VoiceLineProfileAssignment)
  )
  .add(
    HttpApiEndpoint.del("unassignVoiceLineProfile", `${BASE}/lines/:lineId/profile`)
      .annotateContext(OpenApi.annotations({ summary: "Unassign a line's profile", description: "The line goes back to the default profile." }))
      .setPath(LinePath)
      .setUrlParams(ExpectedVersionParams)
      .addSuccess(HttpApiSchema.NoContent)
  )
  // Calls ---------------------------------------------------------------------------------------
  .add(
    HttpApiEndpoint.get("listCalls", `${BASE}/calls`)
      .annotateContext(OpenApi.annotations({ summary: "List calls", description: "The project's calls." }))
      .setPath(ProjectPath)
      .setUrlParams(ListCallsParams)
      .addSuccess(CallPage)
      .annotate(OpenApi.Description, "Newest first; filters status, direction, createdAfter, createdBefore; pageSize 1-100 (default 20).")
  )
  .add(
    HttpApiEndpoint.post("createCall", `${BASE}/calls`)
      .annotateContext(OpenApi.annotations({ summary: "Place a call", description: "Places an outbound call." }))
      .setPath(ProjectPath)
      .setPayload(CreateCallRequest)
      .addSuccess(Voice.Call, { status: 201 })
      .annotate(OpenApi.Description, "Places an outbound call from a voice line (status started).")
  )
  .add(
    HttpApiEndpoint.post("ingestCallSignals", `${BASE}/calls/signals`)
      .annotateContext(OpenApi.annotations({ summary: "Report call signals", description: "Applies what the SIP edge observed to the calls." }))
      .setPath(ProjectPath)
      .setPayload(IngestCallSignalsRequest)
      .addSuccess(IngestCallSignalsResponse)
      .annotate(
        OpenApi.Description,
        "The SIP edge reports what happened (1-100 signals, each applied in order in its own transaction); " +
          "duplicates and stale signals are ignored, impossible ones rejected. Needs events:write."
      )
  )
  .add(HttpApiEndpoint.get("getCall", `${BASE}/calls/:callId`)
    .annotateContext(OpenApi.annotations({ summary: "Get a call", description: "One call with its status timeline and DTMF inputs." })).setPath(CallPath).addSuccess(Voice.Call))
  .add(HttpApiEndpoint.post("cancelCall", `${BASE}/calls/:callId/cancel`)
    .annotateContext(OpenApi.annotations({ summary: "Cancel a call", description: "Cancels an outbound call that has not been answered." })).setPath(CallPath).addSuccess(Voice.Call))
  .add(
    HttpApiEndpoint.post("rejectCall", `${BASE}/calls/:callId/reject`)
      .annotateContext(OpenApi.annotations({ summary: "Reject a call", description: "Rejects an inbound call that is ringing." }))
      .setPath(CallPath)
      .setPayload(RejectCallRequest)
      .addSuccess(Voice.Call)
  )
  .add(HttpApiEndpoint.post("hangupCall", `${BASE}/calls/:callId/hangup`)
    .annotateContext(OpenApi.annotations({ summary: "Hang up a call", description: "Ends a call in progress." })).setPath(CallPath).addSuccess(Voice.Call))
  .middleware(Authn)
  .annotateContext(OpenApi.annotations({
    title: "Voice",
    description: "Voice profiles (SIP inbound and outbound), line profile assignments, calls and call signals."
  }))

const read = common
const write = [...common, "PROJECT_CLOSING", "PAYLOAD_TOO_LARGE"] as const
const profileWrite = [...write, "VOICE_PROFILE_NOT_FOUND", "VOICE_PROFILE_VERSION_CONFLICT"] as const

/** operationId ("voice.<name>") → the problem codes it can answer (for the OpenAPI document). */
export const voiceProblems: Record<string, ReadonlyArray<ProblemCode>> = {
  "voice.createDefaultVoiceProfile": [...write, "VOICE_DEFAULT_PROFILE_EXISTS"],
  "voice.getDefaultVoiceProfile": [...read, "VOICE_PROFILE_NOT_FOUND"],
  "voice.updateDefaultVoiceProfile": profileWrite,
  "voice.createVoiceProfile": [...write, "VOICE_DEFAULT_PROFILE_REQUIRED"],
  "voice.listVoiceProfiles": read,
  "voice.getVoiceProfile": [...read, "VOICE_PROFILE_NOT_FOUND"],
  "voice.updateVoiceProfile": [...profileWrite, "FAILED_PRECONDITION"],
  "voice.deleteVoiceProfile": [...profileWrite, "VOICE_DEFAULT_PROFILE_DELETION_FORBIDDEN", "VOICE_PROFILE_IN_USE"],
  "voice.configureVoiceProfileOutbound": [...profileWrite, ...idempotency, "VOICE_OUTBOUND_CONFIGURED"],
  "voice.updateVoiceProfileOutboundAuthentication": [...profileWrite, "VOICE_OUTBOUND_NOT_CONFIGURED"],
  "voice.rotateVoiceProfileOutboundCredential": [
    ...profileWrite, ...idempotency, "VOICE_OUTBOUND_NOT_CONFIGURED", "VOICE_OUTBOUND_OPERATION_PENDING"
  ],
  "voice.deleteVoiceProfileOutbound": [...profileWrite, "VOICE_OUTBOUND_NOT_CONFIGURED"],
  "voice.replaceVoiceProfileInbound": profileWrite,
  "voice.updateVoiceProfileInbound": [...profileWrite, "FAILED_PRECONDITION"],
  "voice.deleteVoiceProfileInbound": profileWrite,
  "voice.batchUpdateVoiceLineProfileAssignments": [
    ...profileWrite, "RESOURCE_NOT_FOUND", "VOICE_DEFAULT_PROFILE_ASSIGNMENT_FORBIDDEN"
  ],
  "voice.getVoiceLineProfileAssignment": [...read, "RESOURCE_NOT_FOUND"],
  "voice.assignVoiceLineProfile": [...profileWrite, "RESOURCE_NOT_FOUND", "VOICE_DEFAULT_PROFILE_ASSIGNMENT_FORBIDDEN"],
  "voice.unassignVoiceLineProfile": [...write, "RESOURCE_NOT_FOUND", "VOICE_PROFILE_VERSION_CONFLICT"],
  "voice.listCalls": read,
  "voice.getCall": [...read, "RESOURCE_NOT_FOUND"],
  "voice.createCall": [
    ...write, ...idempotency, "RESOURCE_NOT_FOUND", "VOICE_PROFILE_NOT_FOUND", "VOICE_DEFAULT_PROFILE_REQUIRED",
    "UPSTREAM_UNAVAILABLE"
  ],
  "voice.cancelCall": [...write, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION", "UPSTREAM_UNAVAILABLE"],
  "voice.rejectCall": [...write, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION", "UPSTREAM_UNAVAILABLE"],
  "voice.hangupCall": [...write, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION", "UPSTREAM_UNAVAILABLE"],
  "voice.ingestCallSignals": write
}

/** operationIds that require an Idempotency-Key. */
export const voiceIdempotent: ReadonlyArray<string> = [
  "voice.configureVoiceProfileOutbound",
  "voice.rotateVoiceProfileOutboundCredential",
  "voice.createCall"
]
