/**
 * The Voice feature's /v1 routes (docs/api-notes/voice.md): voice profiles with
 * their SIP inbound and outbound configuration, line profile assignments, and calls with signal
 * ingestion. Everything is under `/v1/projects/{projectId}/platforms/voice`. Handlers get their
 * payload decoded by the schema declared here — except signal ingestion, which reads its body
 * itself (`handleRaw`) with the schema's fast decoder, so its payload schema serves routing and
 * the OpenAPI document. Queries are declared with their strict schemas: the platform decodes them
 * after the declared access is checked, and a bad one is a 422 with location `query` (`V1Problems`).
 *
 * `{profileId}` also accepts `default`, the project's default profile (so its outbound and inbound
 * configuration has a path too).
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Voice } from "@switchboard/core"
import { CallId, ProjectId, VoiceProfileId } from "@switchboard/core/shared"
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
  DeleteVoiceProfileQuery,
  ExpectedVersionQuery,
  IngestCallSignalsRequest,
  IngestCallSignalsRequestDecoder,
  IngestCallSignalsResponse,
  LineId,
  ListCallsQuery,
  ListVoiceProfilesQuery,
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
import { idempotencyProblems as idempotency, projectProblems as common } from "./CommonProblems.js"
import { projectAccess } from "./Access.js"
import { Idempotent, Requires, documentedAs, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

const BASE = "/v1/projects/:projectId/platforms/voice"

const ProjectPath = Schema.Struct({ projectId: ProjectId })
/** A profile id, or `default` for the project's default profile. */
export const ProfileRef = Schema.Union([VoiceProfileId, Schema.Literal("default")]).annotate({ identifier: "VoiceProfileRef" })
const ProfilePath = Schema.Struct({ projectId: ProjectId, profileId: ProfileRef })
const LinePath = Schema.Struct({ projectId: ProjectId, lineId: LineId })
const CallPath = Schema.Struct({ projectId: ProjectId, callId: CallId })

const read = common
const write = [...common, "PROJECT_CLOSING", "PAYLOAD_TOO_LARGE"] as const
const profileWrite = [...write, "VOICE_PROFILE_NOT_FOUND", "VOICE_PROFILE_VERSION_CONFLICT"] as const

export const VoiceGroup = HttpApiGroup.make("voice")
  // Profiles ------------------------------------------------------------------------------------
  .add(
    HttpApiEndpoint.put("createDefaultVoiceProfile", `${BASE}/profiles/default`, {
      params: ProjectPath,
      payload: CreateDefaultVoiceProfileRequest,
      success: [VoiceProfile, VoiceProfile.pipe(HttpApiSchema.status(201))],
      error: problems(write, "VOICE_DEFAULT_PROFILE_EXISTS")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Create the default voice profile", description: "Creates the project's default voice profile if absent." })).annotate(OpenApi.Description, "Creates the default profile if absent (201); an identical one is returned as it is (200).")
  )
  .add(HttpApiEndpoint.get("getDefaultVoiceProfile", `${BASE}/profiles/default`, {
    params: ProjectPath,
    success: VoiceProfile,
    error: problems(read, "VOICE_PROFILE_NOT_FOUND")
  }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({ summary: "Get the default voice profile", description: "The voice profile lines use when none is assigned." })))
  .add(
    HttpApiEndpoint.patch("updateDefaultVoiceProfile", `${BASE}/profiles/default`, {
      params: ProjectPath,
      payload: UpdateDefaultVoiceProfileRequest,
      success: VoiceProfile,
      error: problems(profileWrite)
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Update the default voice profile", description: "Changes the default profile; `expectedVersion` guards against lost updates." }))
  )
  .add(
    HttpApiEndpoint.post("createVoiceProfile", `${BASE}/profiles`, {
      params: ProjectPath,
      payload: CreateVoiceProfileRequest,
      success: VoiceProfile.pipe(HttpApiSchema.status(201)),
      error: problems(write, "VOICE_DEFAULT_PROFILE_REQUIRED")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Create a voice profile", description: "Creates a named voice profile (SIP endpoint, inbound and outbound settings)." }))
  )
  .add(
    HttpApiEndpoint.get("listVoiceProfiles", `${BASE}/profiles`, {
      params: ProjectPath,
      query: ListVoiceProfilesQuery,
      success: VoiceProfilePage,
      error: problems(read)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({ summary: "List voice profiles", description: "The project's voice profiles." })).annotate(OpenApi.Description, "Oldest first; `default=true|false` filters; pageSize 1-200 (default 20).")
  )
  .add(HttpApiEndpoint.get("getVoiceProfile", `${BASE}/profiles/:profileId`, {
    params: ProfilePath,
    success: VoiceProfile,
    error: problems(read, "VOICE_PROFILE_NOT_FOUND")
  }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({ summary: "Get a voice profile", description: "One voice profile by id." })))
  .add(
    HttpApiEndpoint.patch("updateVoiceProfile", `${BASE}/profiles/:profileId`, {
      params: ProfilePath,
      payload: UpdateVoiceProfileRequest,
      success: VoiceProfile,
      error: problems(profileWrite, "FAILED_PRECONDITION")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Update a voice profile", description: "Changes a voice profile; `expectedVersion` guards against lost updates." }))
  )
  .add(
    HttpApiEndpoint.delete("deleteVoiceProfile", `${BASE}/profiles/:profileId`, {
      params: ProfilePath,
      query: DeleteVoiceProfileQuery,
      success: HttpApiSchema.NoContent,
      error: problems(profileWrite, "VOICE_DEFAULT_PROFILE_DELETION_FORBIDDEN", "VOICE_PROFILE_IN_USE")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Delete a voice profile", description: "Deletes a profile that no line uses." })).annotate(OpenApi.Description, "`expectedVersion` is required; a profile assigned to lines needs `force=true`.")
  )
  .add(
    HttpApiEndpoint.put("configureVoiceProfileOutbound", `${BASE}/profiles/:profileId/outbound`, {
      params: ProfilePath,
      payload: ConfigureVoiceProfileOutboundRequest,
      success: ConfigureVoiceProfileOutboundResponse.pipe(HttpApiSchema.status(201)),
      error: problems(profileWrite, idempotency, "VOICE_OUTBOUND_CONFIGURED")
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Configure outbound calling", description: "Sets up outbound SIP for the profile." })).annotate(OpenApi.Description, "Creates the SIP outbound credential; the password is shown once.")
  )
  .add(
    HttpApiEndpoint.patch("updateVoiceProfileOutboundAuthentication", `${BASE}/profiles/:profileId/outbound`, {
      params: ProfilePath,
      payload: UpdateVoiceProfileOutboundAuthenticationRequest,
      success: UpdateVoiceProfileOutboundAuthenticationResponse,
      error: problems(profileWrite, "VOICE_OUTBOUND_NOT_CONFIGURED")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Update outbound authentication", description: "Changes how outbound SIP requests authenticate." }))
  )
  .add(
    HttpApiEndpoint.post("rotateVoiceProfileOutboundCredential", `${BASE}/profiles/:profileId/outbound/rotate`, {
      params: ProfilePath,
      payload: RotateVoiceProfileOutboundCredentialRequest,
      success: RotateVoiceProfileOutboundCredentialResponse,
      error: problems(profileWrite, idempotency, "VOICE_OUTBOUND_NOT_CONFIGURED", "VOICE_OUTBOUND_OPERATION_PENDING")
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Rotate the outbound credential", description: "Issues a new SIP password, shown once." })).annotate(OpenApi.Description, "normal: the previous password works for 1 h more; emergency: it stops now.")
  )
  .add(
    HttpApiEndpoint.delete("deleteVoiceProfileOutbound", `${BASE}/profiles/:profileId/outbound`, {
      params: ProfilePath,
      query: ExpectedVersionQuery,
      success: DeleteVoiceProfileOutboundResponse,
      error: problems(profileWrite, "VOICE_OUTBOUND_NOT_CONFIGURED")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Remove outbound calling", description: "Removes the profile's outbound SIP configuration and credential." }))
  )
  .add(
    HttpApiEndpoint.put("replaceVoiceProfileInbound", `${BASE}/profiles/:profileId/inbound`, {
      params: ProfilePath,
      payload: ReplaceVoiceProfileInboundRequest,
      success: [VoiceProfileInboundConfiguration, VoiceProfileInboundConfiguration.pipe(HttpApiSchema.status(201))],
      error: problems(profileWrite)
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Set inbound routing", description: "Replaces the profile's inbound call routing." }))
  )
  .add(
    HttpApiEndpoint.patch("updateVoiceProfileInbound", `${BASE}/profiles/:profileId/inbound`, {
      params: ProfilePath,
      payload: UpdateVoiceProfileInboundRequest,
      success: VoiceProfileInboundConfiguration,
      error: problems(profileWrite, "FAILED_PRECONDITION")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Update inbound routing", description: "Changes part of the profile's inbound call routing." }))
  )
  .add(
    HttpApiEndpoint.delete("deleteVoiceProfileInbound", `${BASE}/profiles/:profileId/inbound`, {
      params: ProfilePath,
      query: ExpectedVersionQuery,
      success: VoiceProfileInboundConfiguration,
      error: problems(profileWrite)
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Remove inbound routing", description: "Removes the profile's inbound routing; inbound calls are rejected." }))
  )
  // Line profile assignments --------------------------------------------------------------------
  .add(
    HttpApiEndpoint.post("batchUpdateVoiceLineProfileAssignments", `${BASE}/lines/profile-assignments/batch`, {
      params: ProjectPath,
      payload: BatchUpdateVoiceLineProfileAssignmentsRequest,
      success: BatchUpdateVoiceLineProfileAssignmentsResponse,
      error: problems(profileWrite, "RESOURCE_NOT_FOUND", "VOICE_DEFAULT_PROFILE_ASSIGNMENT_FORBIDDEN")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Assign profiles to lines", description: "Assigns voice profiles to many lines at once." })).annotate(OpenApi.Description, "1-100 updates, all or nothing; profileId null = back to the default profile.")
  )
  .add(
    HttpApiEndpoint.get("getVoiceLineProfileAssignment", `${BASE}/lines/:lineId/profile`, {
      params: LinePath,
      success: VoiceLineProfileAssignment,
      error: problems(read, "RESOURCE_NOT_FOUND")
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({ summary: "Get a line's profile", description: "The voice profile a line uses." }))
  )
  .add(
    HttpApiEndpoint.put("assignVoiceLineProfile", `${BASE}/lines/:lineId/profile`, {
      params: LinePath,
      payload: AssignVoiceLineProfileRequest,
      success: VoiceLineProfileAssignment,
      error: problems(profileWrite, "RESOURCE_NOT_FOUND", "VOICE_DEFAULT_PROFILE_ASSIGNMENT_FORBIDDEN")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Assign a profile to a line", description: "Makes the line use the voice profile." }))
  )
  .add(
    HttpApiEndpoint.delete("unassignVoiceLineProfile", `${BASE}/lines/:lineId/profile`, {
      params: LinePath,
      query: ExpectedVersionQuery,
      success: HttpApiSchema.NoContent,
      error: problems(write, "RESOURCE_NOT_FOUND", "VOICE_PROFILE_VERSION_CONFLICT")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Unassign a line's profile", description: "The line goes back to the default profile." }))
  )
  // Calls ---------------------------------------------------------------------------------------
  .add(
    HttpApiEndpoint.get("listCalls", `${BASE}/calls`, {
      params: ProjectPath,
      query: ListCallsQuery,
      success: CallPage,
      error: problems(read)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({ summary: "List calls", description: "The project's calls." })).annotate(OpenApi.Description, "Newest first; filters status, direction, createdAfter, createdBefore; pageSize 1-100 (default 20).")
  )
  .add(
    HttpApiEndpoint.post("createCall", `${BASE}/calls`, {
      params: ProjectPath,
      payload: CreateCallRequest,
      success: Voice.Call.pipe(HttpApiSchema.status(201)),
      error: problems(write, idempotency, "RESOURCE_NOT_FOUND", "VOICE_PROFILE_NOT_FOUND", "VOICE_DEFAULT_PROFILE_REQUIRED")
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Place a call", description: "Places an outbound call." })).annotate(OpenApi.Description, "Places an outbound call from a voice line (status started).")
  )
  .add(
    HttpApiEndpoint.post("ingestCallSignals", `${BASE}/calls/signals`, {
      params: ProjectPath,
      // Decoded by the batch decoder (core voice/CallSignalBatchDecoder.ts): the schema's values and
      // refusals, without the schema for a well-formed batch.
      payload: documentedAs(IngestCallSignalsRequestDecoder, IngestCallSignalsRequest),
      success: IngestCallSignalsResponse,
      error: problems(write)
    }).annotate(Requires, projectAccess("events:write")).annotateMerge(OpenApi.annotations({ summary: "Report call signals", description: "Applies what the SIP edge observed to the calls." })).annotate(
      OpenApi.Description,
      "The SIP edge reports what happened (1-100 signals, each applied in order in its own transaction); " +
          "duplicates and stale signals are ignored, impossible ones rejected. Needs events:write."
    )
  )
  .add(HttpApiEndpoint.get("getCall", `${BASE}/calls/:callId`, {
    params: CallPath,
    success: Voice.Call,
    error: problems(read, "RESOURCE_NOT_FOUND")
  }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({ summary: "Get a call", description: "One call with its status timeline and DTMF inputs." })))
  .add(HttpApiEndpoint.post("cancelCall", `${BASE}/calls/:callId/cancel`, {
    params: CallPath,
    success: Voice.Call,
    error: problems(write, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION")
  }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Cancel a call", description: "Cancels an outbound call that has not been answered." })))
  .add(
    HttpApiEndpoint.post("rejectCall", `${BASE}/calls/:callId/reject`, {
      params: CallPath,
      payload: RejectCallRequest,
      success: Voice.Call,
      error: problems(write, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Reject a call", description: "Rejects an inbound call that is ringing." }))
  )
  .add(HttpApiEndpoint.post("hangupCall", `${BASE}/calls/:callId/hangup`, {
    params: CallPath,
    success: Voice.Call,
    error: problems(write, "RESOURCE_NOT_FOUND", "FAILED_PRECONDITION")
  }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({ summary: "Hang up a call", description: "Ends a call in progress." })))
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Voice",
    description: "Voice profiles (SIP inbound and outbound), line profile assignments, calls and call signals."
  }))
