/**
 * WhatsApp's /v1 handlers (issue 18). Provisions (connect a number, register a line as a sender,
 * buy a dedicated line) answer 202 with the operation, `Location` and `Retry-After`; a replay of the
 * key returns the same operation. The verification code needs `platforms:write` and is never cached.
 */
import { HttpApiBuilder } from "effect/http-api"
import {
  ConnectWhatsappBusinessRequest,
  CreateWhatsappSharedLineAssignmentRequest,
  CreateWhatsappVoipSenderRequest,
  GetWhatsappBusinessVerificationCodeQuery,
  GetWhatsappBusinessVerificationCodeResponse,
  GetWhatsappSignupConfigResponse,
  ListSharedLineAssignmentsQuery,
  ListWhatsappAccountPhoneNumbersResponse,
  Operation,
  ProjectPlatformSettings,
  SharedLineAssignment,
  SharedLineAssignmentPage,
  Whatsapp,
  WhatsappAssignments,
  WhatsappBusinessAccount
} from "@switchboard/core/platforms"
import { Effect } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { v1Group } from "./V1Group.js"
import { acceptedOperation } from "./PlatformsHandlers.js"
import { idempotent } from "./Idempotency.js"
import { decodeJsonBody, domain, rendered, toResponse } from "./Pipeline.js"
import { decodeQuery, onProject } from "./ProjectsHandlers.js"
import { WhatsappGroup } from "./WhatsappApi.js"

const BASE = "/v1/projects/:projectId/platforms"
const noStore = { "cache-control": "no-store" }

export const WhatsappGroupLive = HttpApiBuilder.group(v1Group(WhatsappGroup), "whatsapp", (handlers) =>
  Effect.gen(function*() {
    const whatsapp = yield* Whatsapp
    const assignments = yield* WhatsappAssignments
    const config = yield* ServerConfig
    const read = (projectId: string) => onProject(projectId, "platforms:read")
    const write = (projectId: string) => onProject(projectId, "platforms:write")
    const accepted = (projectId: string) => (op: Operation) => acceptedOperation(config.apiUrl, projectId, op)

    return handlers
      .handleRaw("getProjectWhatsappPlatform", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const settings = yield* domain(whatsapp.platformSettings(path.projectId, principal))
          return toResponse(yield* rendered(ProjectPlatformSettings, settings))
        }))
      .handleRaw("getWhatsappSignupConfig", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return toResponse(yield* rendered(GetWhatsappSignupConfigResponse, yield* domain(whatsapp.signupConfig(path.projectId, principal))))
        }))
      .handleRaw("connectWhatsappBusiness", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(ConnectWhatsappBusinessRequest)
          return yield* idempotent(
            { route: `${BASE}/whatsapp-business/numbers`, path: { projectId: path.projectId }, body: body.json },
            Effect.flatMap(domain(whatsapp.connectBusiness(path.projectId, principal, body.value)), accepted(path.projectId))
          )
        }))
      .handleRaw("getWhatsappBusinessVerificationCode", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const query = yield* decodeQuery(GetWhatsappBusinessVerificationCodeQuery)
          const code = yield* domain(whatsapp.verificationCode(path.projectId, principal, path.resourceId, query.receivedAfter))
          return toResponse(yield* rendered(GetWhatsappBusinessVerificationCodeResponse, code, 200, noStore))
        }))
      .handleRaw("getWhatsappBusinessAccount", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return toResponse(yield* rendered(WhatsappBusinessAccount, yield* domain(whatsapp.getAccount(path.projectId, principal))))
        }))
      .handleRaw("disconnectWhatsappBusinessAccount", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* idempotent(
            { route: `${BASE}/whatsapp-business/account`, path: { projectId: path.projectId } },
            Effect.flatMap(domain(whatsapp.disconnectAccount(path.projectId, principal)), (op) => rendered(Operation, op))
          )
        }))
      .handleRaw("listWhatsappAccountPhoneNumbers", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const r = yield* domain(whatsapp.listAccountPhoneNumbers(path.projectId, principal))
          return toResponse(yield* rendered(ListWhatsappAccountPhoneNumbersResponse, r, 200, noStore))
        }))
      .handleRaw("createWhatsappVoipSender", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(CreateWhatsappVoipSenderRequest)
          return yield* idempotent(
            { route: `${BASE}/whatsapp-business/account/senders`, path: { projectId: path.projectId }, body: body.json },
            Effect.flatMap(domain(whatsapp.createVoipSender(path.projectId, principal, body.value)), accepted(path.projectId))
          )
        }))
      .handleRaw("listWhatsappSharedLineAssignments", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const query = yield* decodeQuery(ListSharedLineAssignmentsQuery)
          const page = yield* domain(assignments.list(path.projectId, principal, query))
          return toResponse(yield* rendered(SharedLineAssignmentPage, {
            assignments: page.assignments,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }))
        }))
      .handleRaw("createWhatsappSharedLineAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(CreateWhatsappSharedLineAssignmentRequest)
          return yield* idempotent(
            { route: `${BASE}/whatsapp/assignments`, path: { projectId: path.projectId }, body: body.json },
            Effect.flatMap(domain(assignments.create(path.projectId, principal, body.value)), (a) => rendered(SharedLineAssignment, a, 201))
          )
        }))
      .handleRaw("getWhatsappSharedLineAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return toResponse(yield* rendered(SharedLineAssignment, yield* domain(assignments.get(path.projectId, principal, path.assignmentId))))
        }))
      .handleRaw("releaseWhatsappSharedLineAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return toResponse(yield* rendered(SharedLineAssignment, yield* domain(assignments.release(path.projectId, principal, path.assignmentId))))
        }))
      .handleRaw("provisionWhatsappDedicatedLine", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* idempotent(
            { route: `${BASE}/whatsapp/dedicated`, path: { projectId: path.projectId } },
            Effect.flatMap(domain(whatsapp.provisionDedicatedLine(path.projectId, principal)), accepted(path.projectId))
          )
        }))
      .handleRaw("releaseWhatsappDedicatedLine", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const op = yield* domain(whatsapp.releaseDedicatedLine(path.projectId, principal, path.resourceId))
          return toResponse(yield* rendered(Operation, op))
        }))
  }))
