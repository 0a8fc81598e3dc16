/**
 * The Voice feature's /v1 handlers (docs/api-notes/voice.md). Reads need `platforms:read`, writes
 * `platforms:write`, signal ingestion `events:write` (project API keys with those permissions may
 * call them; OAuth tokens need the mapped scopes). Configuring and rotating the outbound SIP
 * credential and creating a call take an Idempotency-Key; a replay returns the same response,
 * one-time password included (as the protocol stores it), with `Cache-Control: no-store`.
 */
import { HttpApiBuilder } from "effect/http-api"
import { HttpServerResponse } from "effect/http"
import {
  Calls,
  ConfigureVoiceProfileOutboundResponse,
  encodeSignalResults,
  RotateVoiceProfileOutboundCredentialResponse,
  VoiceProfile,
  VoiceProfileInboundConfiguration,
  VoiceProfiles
} from "@switchboard/core/voice"
import { Effect, Redacted } from "effect"
import { onProject } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { VoiceGroup } from "./VoiceApi.js"
import { domain, rendered, toResponse } from "./Pipeline.js"

const noStore = { "cache-control": "no-store" }

export const VoiceGroupLive = HttpApiBuilder.group(v1Group(VoiceGroup), "voice", (handlers) =>
  Effect.gen(function*() {
    const profiles = yield* VoiceProfiles
    const calls = yield* Calls
    const read = (projectId: string) => onProject(projectId, "platforms:read")
    const write = (projectId: string) => onProject(projectId, "platforms:write")

    return handlers
      // Profiles ----------------------------------------------------------------------------------
      .handle("createDefaultVoiceProfile", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const r = yield* domain(profiles.createDefault(path.projectId, principal, payload))
          return toResponse(yield* rendered(VoiceProfile, r.profile, r.created ? 201 : 200))
        }))
      .handle("getDefaultVoiceProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return yield* domain(profiles.getDefault(path.projectId, principal))
        }))
      .handle("updateDefaultVoiceProfile", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(profiles.update(path.projectId, principal, "default", payload))
        }))
      .handle("createVoiceProfile", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(profiles.create(path.projectId, principal, payload))
        }))
      .handle("listVoiceProfiles", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const page = yield* domain(profiles.list(path.projectId, principal, query))
          return {
            profiles: page.profiles,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }
        }))
      .handle("getVoiceProfile", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return yield* domain(profiles.get(path.projectId, principal, path.profileId))
        }))
      .handle("updateVoiceProfile", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(profiles.update(path.projectId, principal, path.profileId, payload))
        }))
      .handle("deleteVoiceProfile", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          yield* domain(profiles.remove(path.projectId, principal, path.profileId, {
            expectedVersion: query.expectedVersion,
            force: query.force === "true"
          }))
          return HttpServerResponse.empty({ status: 204 })
        }))
      .handle("configureVoiceProfileOutbound", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const r = yield* domain(profiles.configureOutbound(path.projectId, principal, path.profileId, {
            algorithm: payload.authentication.algorithm,
            expectedVersion: payload.expectedVersion
          }))
          return toResponse(yield* rendered(
            ConfigureVoiceProfileOutboundResponse,
            { outbound: r.outbound, password: Redacted.value(r.password), profileVersion: r.profileVersion },
            201,
            noStore
          ))
        }))
      .handle("updateVoiceProfileOutboundAuthentication", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(profiles.updateOutboundAuthentication(path.projectId, principal, path.profileId, {
            algorithm: payload.authentication.algorithm,
            expectedVersion: payload.expectedVersion
          }))
        }))
      .handle("rotateVoiceProfileOutboundCredential", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const r = yield* domain(profiles.rotateOutbound(path.projectId, principal, path.profileId, payload))
          return toResponse(yield* rendered(
            RotateVoiceProfileOutboundCredentialResponse,
            {
              password: Redacted.value(r.password),
              previousPasswordValidUntil: r.previousPasswordValidUntil,
              profileVersion: r.profileVersion
            },
            200,
            noStore
          ))
        }))
      .handle("deleteVoiceProfileOutbound", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const { expectedVersion } = query
          const r = yield* domain(profiles.deleteOutbound(path.projectId, principal, path.profileId, expectedVersion))
          return { outbound: null, profileVersion: r.profileVersion }
        }))
      .handle("replaceVoiceProfileInbound", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const r = yield* domain(profiles.replaceInbound(path.projectId, principal, path.profileId, payload))
          return toResponse(
            yield* rendered(VoiceProfileInboundConfiguration, { inbound: r.inbound, profileVersion: r.profileVersion }, r.created ? 201 : 200)
          )
        }))
      .handle("updateVoiceProfileInbound", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(profiles.updateInbound(path.projectId, principal, path.profileId, payload))
        }))
      .handle("deleteVoiceProfileInbound", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const { expectedVersion } = query
          return yield* domain(profiles.deleteInbound(path.projectId, principal, path.profileId, expectedVersion))
        }))
      // Line profile assignments ----------------------------------------------------------------
      .handle("batchUpdateVoiceLineProfileAssignments", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return { assignments: yield* domain(profiles.batchAssign(path.projectId, principal, payload.updates)) }
        }))
      .handle("getVoiceLineProfileAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return yield* domain(profiles.getAssignment(path.projectId, principal, path.lineId))
        }))
      .handle("assignVoiceLineProfile", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(profiles.assign(path.projectId, principal, path.lineId, payload))
        }))
      .handle("unassignVoiceLineProfile", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const { expectedVersion } = query
          yield* domain(profiles.unassign(path.projectId, principal, path.lineId, expectedVersion))
          return HttpServerResponse.empty({ status: 204 })
        }))
      // Calls -----------------------------------------------------------------------------------
      .handle("listCalls", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const page = yield* domain(calls.list(path.projectId, principal, query))
          return {
            calls: page.calls,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }
        }))
      .handle("createCall", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(calls.create(path.projectId, principal, payload))
        }))
      // Raw: the body is decoded with IngestCallSignalsRequest's fast decoder, the well-formed case
      // without the schema interpreter (core voice/CallSignalBatchDecoder.ts): the same values, the
      // same 422s. The declared payload stays the schema, which the OpenAPI document renders.
      .handle("ingestCallSignals", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          const results = yield* domain(calls.ingest(path.projectId, principal, payload.signals))
          // The same JSON as rendered(IngestCallSignalsResponse, …), without re-validating the 100
          // calls of a batch through the schema (core voice/CallWire.ts).
          return toResponse({
            status: 200,
            headers: { "content-type": "application/json" },
            body: JSON.stringify(encodeSignalResults(results))
          })
        }))
      .handle("getCall", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return yield* domain(calls.get(path.projectId, principal, path.callId))
        }))
      .handle("cancelCall", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(calls.cancel(path.projectId, principal, path.callId))
        }))
      .handle("rejectCall", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(calls.reject(path.projectId, principal, path.callId, payload.reason))
        }))
      .handle("hangupCall", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(calls.hangup(path.projectId, principal, path.callId))
        }))
  }))
