/**
 * WhatsApp's /v1 handlers (docs/provisioning.md). Provisions (connect a number, register a line as
 * a sender, buy a dedicated line) answer 202 with the operation, `Location` and `Retry-After`; a
 * replay of the key returns the same operation. The verification code needs `platforms:write` and
 * is never cached.
 */
import { HttpApiBuilder } from "effect/http-api"
import {
  GetWhatsappBusinessVerificationCodeResponse,
  ListWhatsappAccountPhoneNumbersResponse,
  type Operation,
  Whatsapp,
  WhatsappAssignments
} from "@switchboard/core/platforms"
import { Effect } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { onProject } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { acceptedOperation } from "./PlatformsHandlers.js"
import { domain, rendered, toResponse } from "./Pipeline.js"
import { WhatsappGroup } from "./WhatsappApi.js"

const noStore = { "cache-control": "no-store" }

export const WhatsappGroupLive = HttpApiBuilder.group(v1Group(WhatsappGroup), "whatsapp", (handlers) =>
  Effect.gen(function*() {
    const whatsapp = yield* Whatsapp
    const assignments = yield* WhatsappAssignments
    const config = yield* ServerConfig
    const read = (projectId: string) => onProject(projectId, "platforms:read")
    const write = (projectId: string) => onProject(projectId, "platforms:write")
    const accepted = (projectId: string, op: Operation) => acceptedOperation(config.apiUrl, projectId, op)

    return handlers
      .handle("getProjectWhatsappPlatform", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return yield* domain(whatsapp.platformSettings(path.projectId, principal))
        }))
      .handle("getWhatsappSignupConfig", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return yield* domain(whatsapp.signupConfig(path.projectId, principal))
        }))
      .handle("connectWhatsappBusiness", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const op = yield* domain(whatsapp.connectBusiness(path.projectId, principal, payload))
          return toResponse(yield* accepted(path.projectId, op))
        }))
      .handle("getWhatsappBusinessVerificationCode", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const code = yield* domain(whatsapp.verificationCode(path.projectId, principal, path.resourceId, query.receivedAfter))
          return toResponse(yield* rendered(GetWhatsappBusinessVerificationCodeResponse, code, 200, noStore))
        }))
      .handle("getWhatsappBusinessAccount", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return yield* domain(whatsapp.getAccount(path.projectId, principal))
        }))
      .handle("disconnectWhatsappBusinessAccount", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(whatsapp.disconnectAccount(path.projectId, principal))
        }))
      .handle("listWhatsappAccountPhoneNumbers", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const r = yield* domain(whatsapp.listAccountPhoneNumbers(path.projectId, principal))
          return toResponse(yield* rendered(ListWhatsappAccountPhoneNumbersResponse, r, 200, noStore))
        }))
      .handle("createWhatsappVoipSender", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const op = yield* domain(whatsapp.createVoipSender(path.projectId, principal, payload))
          return toResponse(yield* accepted(path.projectId, op))
        }))
      .handle("listWhatsappSharedLineAssignments", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const page = yield* domain(assignments.list(path.projectId, principal, query))
          return {
            assignments: page.assignments,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }
        }))
      .handle("createWhatsappSharedLineAssignment", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(assignments.create(path.projectId, principal, payload))
        }))
      .handle("getWhatsappSharedLineAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return yield* domain(assignments.get(path.projectId, principal, path.assignmentId))
        }))
      .handle("releaseWhatsappSharedLineAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(assignments.release(path.projectId, principal, path.assignmentId))
        }))
      .handle("provisionWhatsappDedicatedLine", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const op = yield* domain(whatsapp.provisionDedicatedLine(path.projectId, principal))
          return toResponse(yield* accepted(path.projectId, op))
        }))
      .handle("releaseWhatsappDedicatedLine", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(whatsapp.releaseDedicatedLine(path.projectId, principal, path.resourceId))
        }))
  }))
