/**
 * The Voice feature's /v1 handlers (API.md §1.5). Reads need `platforms:read`, writes
 * `platforms:write`, signal ingestion `events:write` (project API keys with those permissions may
 * call them; OAuth tokens need the mapped scopes). Configuring and rotating the outbound SIP
 * credential and creating a call take an Idempotency-Key; a replay returns the same response,
 * one-time password included (as the protocol stores it), with `Cache-Control: no-store`.
 */
import { HttpApiBuilder } from "effect/http-api"
import { HttpServerResponse } from "effect/http"
import { Voice } from "@switchboard/core"
import {
  AssignVoiceLineProfileRequest,
  BatchUpdateVoiceLineProfileAssignmentsRequest,
  BatchUpdateVoiceLineProfileAssignmentsResponse,
  CallPage,
  Calls,
  ConfigureVoiceProfileOutboundRequest,
  ConfigureVoiceProfileOutboundResponse,
  CreateCallRequest,
  CreateDefaultVoiceProfileRequest,
  CreateVoiceProfileRequest,
  DeleteVoiceProfileOutboundResponse,
  DeleteVoiceProfileQuery,
  encodeSignalResults,
  ExpectedVersionQuery,
  IngestCallSignalsRequestDecoder,
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
  VoiceProfilePage,
  VoiceProfiles
} from "@switchboard/core/voice"
import { Effect, Redacted } from "effect"
import { v1Group } from "./V1Group.js"
import { VoiceGroup } from "./VoiceApi.js"
import { idempotent } from "./Idempotency.js"
import { decodeJsonBody, domain, rendered, toResponse } from "./Pipeline.js"
import { decodeQuery, onProject } from "./ProjectsHandlers.js"

const BASE = "/v1/projects/:projectId/platforms/voice"
const noStore = { "cache-control": "no-store" }

export const VoiceGroupLive = HttpApiBuilder.group(v1Group(VoiceGroup), "voice", (handlers) =>
  Effect.gen(function*() {
    const profiles = yield* VoiceProfiles
    const calls = yield* Calls
    const read = (projectId: string) => onProject(projectId, "platforms:read")
    const write = (projectId: string) => onProject(projectId, "platforms:write")

    return handlers
      // Profiles ----------------------------------------------------------------------------------
      .handleRaw("createDefaultVoiceProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(CreateDefaultVoiceProfileRequest)
          const r = yield* domain(profiles.createDefault(path.projectId, principal, body.value))
          return toResponse(yield* rendered(VoiceProfile, r.profile, r.created ? 201 : 200))
        }))
      .handleRaw("getDefaultVoiceProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return toResponse(yield* rendered(VoiceProfile, yield* domain(profiles.getDefault(path.projectId, principal))))
        }))
      .handleRaw("updateDefaultVoiceProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(UpdateDefaultVoiceProfileRequest)
          const profile = yield* domain(profiles.update(path.projectId, principal, "default", body.value))
          return toResponse(yield* rendered(VoiceProfile, profile))
        }))
      .handleRaw("createVoiceProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(CreateVoiceProfileRequest)
          const profile = yield* domain(profiles.create(path.projectId, principal, body.value))
          return toResponse(yield* rendered(VoiceProfile, profile, 201))
        }))
      .handleRaw("listVoiceProfiles", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const query = yield* decodeQuery(ListVoiceProfilesQuery)
          const page = yield* domain(profiles.list(path.projectId, principal, query))
          return toResponse(yield* rendered(VoiceProfilePage, {
            profiles: page.profiles,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }))
        }))
      .handleRaw("getVoiceProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return toResponse(yield* rendered(VoiceProfile, yield* domain(profiles.get(path.projectId, principal, path.profileId))))
        }))
      .handleRaw("updateVoiceProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(UpdateVoiceProfileRequest)
          const profile = yield* domain(profiles.update(path.projectId, principal, path.profileId, body.value))
          return toResponse(yield* rendered(VoiceProfile, profile))
        }))
      .handleRaw("deleteVoiceProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const query = yield* decodeQuery(DeleteVoiceProfileQuery)
          yield* domain(profiles.remove(path.projectId, principal, path.profileId, {
            expectedVersion: query.expectedVersion,
            force: query.force === "true"
          }))
          return HttpServerResponse.empty({ status: 204 })
        }))
      .handleRaw("configureVoiceProfileOutbound", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(ConfigureVoiceProfileOutboundRequest)
          return yield* idempotent(
            { route: `${BASE}/profiles/:profileId/outbound`, path: { ...path }, body: body.json },
            Effect.gen(function*() {
              const r = yield* domain(profiles.configureOutbound(path.projectId, principal, path.profileId, {
                algorithm: body.value.authentication.algorithm,
                expectedVersion: body.value.expectedVersion
              }))
              return yield* rendered(
                ConfigureVoiceProfileOutboundResponse,
                { outbound: r.outbound, password: Redacted.value(r.password), profileVersion: r.profileVersion },
                201,
                noStore
              )
            })
          )
        }))
      .handleRaw("updateVoiceProfileOutboundAuthentication", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(UpdateVoiceProfileOutboundAuthenticationRequest)
          const r = yield* domain(profiles.updateOutboundAuthentication(path.projectId, principal, path.profileId, {
            algorithm: body.value.authentication.algorithm,
            expectedVersion: body.value.expectedVersion
          }))
          return toResponse(yield* rendered(UpdateVoiceProfileOutboundAuthenticationResponse, r))
        }))
      .handleRaw("rotateVoiceProfileOutboundCredential", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(RotateVoiceProfileOutboundCredentialRequest)
          return yield* idempotent(
            { route: `${BASE}/profiles/:profileId/outbound/rotate`, path: { ...path }, body: body.json },
            Effect.gen(function*() {
              const r = yield* domain(profiles.rotateOutbound(path.projectId, principal, path.profileId, body.value))
              return yield* rendered(
                RotateVoiceProfileOutboundCredentialResponse,
                {
                  password: Redacted.value(r.password),
                  previousPasswordValidUntil: r.previousPasswordValidUntil,
                  profileVersion: r.profileVersion
                },
                200,
                noStore
              )
            })
          )
        }))
      .handleRaw("deleteVoiceProfileOutbound", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const { expectedVersion } = yield* decodeQuery(ExpectedVersionQuery)
          const r = yield* domain(profiles.deleteOutbound(path.projectId, principal, path.profileId, expectedVersion))
          return toResponse(yield* rendered(DeleteVoiceProfileOutboundResponse, { outbound: null, profileVersion: r.profileVersion }))
        }))
      .handleRaw("replaceVoiceProfileInbound", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(ReplaceVoiceProfileInboundRequest)
          const r = yield* domain(profiles.replaceInbound(path.projectId, principal, path.profileId, body.value))
          return toResponse(
            yield* rendered(VoiceProfileInboundConfiguration, { inbound: r.inbound, profileVersion: r.profileVersion }, r.created ? 201 : 200)
          )
        }))
      .handleRaw("updateVoiceProfileInbound", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(UpdateVoiceProfileInboundRequest)
          const r = yield* domain(profiles.updateInbound(path.projectId, principal, path.profileId, body.value))
          return toResponse(yield* rendered(VoiceProfileInboundConfiguration, r))
        }))
      .handleRaw("deleteVoiceProfileInbound", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const { expectedVersion } = yield* decodeQuery(ExpectedVersionQuery)
          const r = yield* domain(profiles.deleteInbound(path.projectId, principal, path.profileId, expectedVersion))
          return toResponse(yield* rendered(VoiceProfileInboundConfiguration, r))
        }))
      // Line profile assignments ----------------------------------------------------------------
      .handleRaw("batchUpdateVoiceLineProfileAssignments", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(BatchUpdateVoiceLineProfileAssignmentsRequest)
          const assignments = yield* domain(profiles.batchAssign(path.projectId, principal, body.value.updates))
          return toResponse(yield* rendered(BatchUpdateVoiceLineProfileAssignmentsResponse, { assignments }))
        }))
      .handleRaw("getVoiceLineProfileAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const assignment = yield* domain(profiles.getAssignment(path.projectId, principal, path.lineId))
          return toResponse(yield* rendered(VoiceLineProfileAssignment, assignment))
        }))
      .handleRaw("assignVoiceLineProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(AssignVoiceLineProfileRequest)
          const assignment = yield* domain(profiles.assign(path.projectId, principal, path.lineId, body.value))
          return toResponse(yield* rendered(VoiceLineProfileAssignment, assignment))
        }))
      .handleRaw("unassignVoiceLineProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const { expectedVersion } = yield* decodeQuery(ExpectedVersionQuery)
          yield* domain(profiles.unassign(path.projectId, principal, path.lineId, expectedVersion))
          return HttpServerResponse.empty({ status: 204 })
        }))
      // Calls -----------------------------------------------------------------------------------
      .handleRaw("listCalls", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const query = yield* decodeQuery(ListCallsQuery)
          const page = yield* domain(calls.list(path.projectId, principal, query))
          return toResponse(yield* rendered(CallPage, {
            calls: page.calls,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }))
        }))
      .handleRaw("createCall", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(CreateCallRequest)
          return yield* idempotent(
            { route: `${BASE}/calls`, path: { projectId: path.projectId }, body: body.json },
            Effect.flatMap(domain(calls.create(path.projectId, principal, body.value)), (call) => rendered(Voice.Call, call, 201))
          )
        }))
      .handleRaw("ingestCallSignals", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          // IngestCallSignalsRequest, the well-formed case without the schema interpreter (core
          // voice/CallSignalBatchDecoder.ts): the same values, the same 422s.
          const body = yield* decodeJsonBody(IngestCallSignalsRequestDecoder)
          const results = yield* domain(calls.ingest(path.projectId, principal, body.value.signals))
          // The same JSON as rendered(IngestCallSignalsResponse, …), without re-validating the 100
          // calls of a batch through the schema (core voice/CallWire.ts).
          return toResponse({
            status: 200,
            headers: { "content-type": "application/json" },
            body: JSON.stringify(encodeSignalResults(results))
          })
        }))
      .handleRaw("getCall", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return toResponse(yield* rendered(Voice.Call, yield* domain(calls.get(path.projectId, principal, path.callId))))
        }))
      .handleRaw("cancelCall", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return toResponse(yield* rendered(Voice.Call, yield* domain(calls.cancel(path.projectId, principal, path.callId))))
        }))
      .handleRaw("rejectCall", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(RejectCallRequest)
          const call = yield* domain(calls.reject(path.projectId, principal, path.callId, body.value.reason))
          return toResponse(yield* rendered(Voice.Call, call))
        }))
      .handleRaw("hangupCall", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return toResponse(yield* rendered(Voice.Call, yield* domain(calls.hangup(path.projectId, principal, path.callId))))
        }))
  }))
