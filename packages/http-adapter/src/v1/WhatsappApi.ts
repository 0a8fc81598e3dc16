/**
 * WhatsApp's /v1 routes (docs/provisioning.md): the project's WhatsApp settings, Embedded
 * Signup, its WhatsApp Business Account and senders, the ownership codes its numbers receive,
 * shared-line assignments and dedicated lines. Reads need `platforms:read`, writes (and the
 * verification code) `platforms:write`; provisions take an Idempotency-Key and answer 202 with the
 * operation.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
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
  WhatsappBusinessAccount
} from "@switchboard/core/platforms"
import { ProjectId } from "@switchboard/core/shared"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import { Schema } from "effect"
import { idempotencyProblems as idempotency, projectProblems as common } from "./CommonProblems.js"
import { projectAccess } from "./Access.js"
import { Idempotent, Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

const BASE = "/v1/projects/:projectId/platforms"
const Id = Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(128)))
const ProjectPath = Schema.Struct({ projectId: ProjectId })
const ResourcePath = Schema.Struct({ projectId: ProjectId, resourceId: Id })
const AssignmentPath = Schema.Struct({ projectId: ProjectId, assignmentId: Id })
const provisioning: ReadonlyArray<ProblemCode> = [...common, ...idempotency, "PROJECT_CLOSING", "PAYLOAD_TOO_LARGE"]

export const WhatsappGroup = HttpApiGroup.make("whatsapp")
  .add(
    HttpApiEndpoint.get("getProjectWhatsappPlatform", `${BASE}/whatsapp`, {
      params: ProjectPath,
      success: ProjectPlatformSettings,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Get the project's WhatsApp mode",
      description: "Shared (end users get seats on pooled lines; carries the seat cap) or dedicated. Needs `platforms:read`."
    }))
  )
  .add(
    HttpApiEndpoint.get("getWhatsappSignupConfig", `${BASE}/whatsapp-business/signup-config`, {
      params: ProjectPath,
      success: GetWhatsappSignupConfigResponse,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Get the Embedded Signup configuration",
      description: "What Meta's Embedded Signup popup needs: the configuration id, the Graph API version and the scopes. Needs `platforms:read`."
    }))
  )
  .add(
    HttpApiEndpoint.post("connectWhatsappBusiness", `${BASE}/whatsapp-business/numbers`, {
      params: ProjectPath,
      payload: ConnectWhatsappBusinessRequest,
      success: Operation.pipe(HttpApiSchema.status(202)),
      error: problems(provisioning, "ENTITLEMENT_REQUIRED", "WHATSAPP_SENDER_CONNECTED", "WHATSAPP_SENDER_PROVISIONING")
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true)
      .annotateMerge(OpenApi.annotations({
        summary: "Connect a WhatsApp Business number",
        description: "Exchanges the Embedded Signup code and connects the phone number as a whatsapp_sender resource on the WABA (a resource.provision operation: 202 with Location and Retry-After). The first connection also connects the project's WhatsApp Business Account. Needs `platforms:write`, an Idempotency-Key (permanent) and a payment method on the organization (402 ENTITLEMENT_REQUIRED); 409 WHATSAPP_SENDER_CONNECTED or WHATSAPP_SENDER_PROVISIONING for a number connected or being connected, PROJECT_CLOSING."
      }))
  )
  .add(
    HttpApiEndpoint.get("getWhatsappBusinessVerificationCode", `${BASE}/whatsapp-business/numbers/:resourceId/verification-code`, {
      params: ResourcePath,
      query: GetWhatsappBusinessVerificationCodeQuery,
      success: GetWhatsappBusinessVerificationCodeResponse,
      error: problems(common, "RESOURCE_NOT_FOUND", "WHATSAPP_VERIFICATION_CODE_NOT_FOUND", "WHATSAPP_VERIFICATION_WINDOW_EXPIRED")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({
      summary: "Get a WhatsApp verification code",
      description: "The newest 6-digit WhatsApp ownership code a held number received by SMS after receivedAfter (required, within the last 2 minutes: else 422 WHATSAPP_VERIFICATION_WINDOW_EXPIRED). Poll at 2, 4, 8, 10 s: 404 WHATSAPP_VERIFICATION_CODE_NOT_FOUND with Retry-After until it arrives; never cached. Needs `platforms:write`; 404 RESOURCE_NOT_FOUND."
    }))
  )
  .add(
    HttpApiEndpoint.get("getWhatsappBusinessAccount", `${BASE}/whatsapp-business/account`, {
      params: ProjectPath,
      success: WhatsappBusinessAccount,
      error: problems(common, "WHATSAPP_WABA_NOT_CONNECTED")
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Get the WhatsApp Business Account",
      description: "The project's one connected WABA with the count of its live senders; subscribedAt is absent until the app is subscribed. Needs `platforms:read`; 404 WHATSAPP_WABA_NOT_CONNECTED."
    }))
  )
  .add(
    HttpApiEndpoint.delete("disconnectWhatsappBusinessAccount", `${BASE}/whatsapp-business/account`, {
      params: ProjectPath,
      success: Operation,
      error: problems(
        common, idempotency, "PROJECT_CLOSING", "WHATSAPP_WABA_NOT_CONNECTED", "WHATSAPP_ACCOUNT_DISCONNECTING",
        "WHATSAPP_ACCOUNT_PROVISIONING"
      )
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true)
      .annotateMerge(OpenApi.annotations({
        summary: "Disconnect the WhatsApp Business Account",
        description: "Disconnects every WhatsApp sender, unsubscribes the app and removes the WABA connection; the project's own lines and the customer's Meta numbers remain. Answers 200 with a succeeded whatsapp.account.disconnect operation. Needs `platforms:write` and an Idempotency-Key; 404 WHATSAPP_WABA_NOT_CONNECTED, 409 WHATSAPP_ACCOUNT_DISCONNECTING or WHATSAPP_ACCOUNT_PROVISIONING."
      }))
  )
  .add(
    HttpApiEndpoint.get("listWhatsappAccountPhoneNumbers", `${BASE}/whatsapp-business/account/phone-numbers`, {
      params: ProjectPath,
      success: ListWhatsappAccountPhoneNumbersResponse,
      error: problems(common, "WHATSAPP_WABA_NOT_CONNECTED")
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "List the WABA's phone numbers",
      description: "The WhatsApp Business Account's numbers as Meta lists them; ownership photon for the project's own lines, meta for the customer's. A failed lookup is an error, never an empty list. Needs `platforms:read`; 404 WHATSAPP_WABA_NOT_CONNECTED."
    }))
  )
  .add(
    HttpApiEndpoint.post("createWhatsappVoipSender", `${BASE}/whatsapp-business/account/senders`, {
      params: ProjectPath,
      payload: CreateWhatsappVoipSenderRequest,
      success: Operation.pipe(HttpApiSchema.status(202)),
      error: problems(
        provisioning, "ENTITLEMENT_REQUIRED", "WHATSAPP_WABA_NOT_CONNECTED", "WHATSAPP_VOIP_SOURCE_NOT_ELIGIBLE",
        "WHATSAPP_SENDER_CONNECTED", "WHATSAPP_SENDER_PROVISIONING", "WHATSAPP_ACCOUNT_DISCONNECTING", "WHATSAPP_DISPLAY_NAME_UNAVAILABLE"
      )
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true)
      .annotateMerge(OpenApi.annotations({
        summary: "Register a line as a WhatsApp sender",
        description: "Registers an active SMS-capable line of the project as a sender on its connected WABA (a resource.provision operation: 202); displayName defaults to the project's name. Needs `platforms:write`, an Idempotency-Key and a payment method (402); 404 WHATSAPP_WABA_NOT_CONNECTED or WHATSAPP_VOIP_SOURCE_NOT_ELIGIBLE, 409 WHATSAPP_SENDER_CONNECTED, WHATSAPP_SENDER_PROVISIONING or WHATSAPP_ACCOUNT_DISCONNECTING, 422 WHATSAPP_DISPLAY_NAME_UNAVAILABLE."
      }))
  )
  .add(
    HttpApiEndpoint.get("listWhatsappSharedLineAssignments", `${BASE}/whatsapp/assignments`, {
      params: ProjectPath,
      query: ListSharedLineAssignmentsQuery,
      success: SharedLineAssignmentPage,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "List WhatsApp shared-line assignments",
      description: "The project's WhatsApp seats, oldest first; released ones only with includeReleased=true. Needs `platforms:read`."
    }))
  )
  .add(
    HttpApiEndpoint.post("createWhatsappSharedLineAssignment", `${BASE}/whatsapp/assignments`, {
      params: ProjectPath,
      payload: CreateWhatsappSharedLineAssignmentRequest,
      success: SharedLineAssignment.pipe(HttpApiSchema.status(201)),
      error: problems(
        provisioning, "ASSIGNMENT_EXISTS", "SHARED_LINE_CAP_EXCEEDED", "WHATSAPP_MODE_DEDICATED", "SHARED_LINE_POOL_EXHAUSTED"
      )
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true)
      .annotateMerge(OpenApi.annotations({
        summary: "Assign a WhatsApp shared line",
        description: "Maps an end user's phone number (E.164) onto a pooled shared WhatsApp line, taking one seat; the server picks the line. Needs `platforms:write` and an Idempotency-Key; 409 ASSIGNMENT_EXISTS, SHARED_LINE_CAP_EXCEEDED or WHATSAPP_MODE_DEDICATED, 503 SHARED_LINE_POOL_EXHAUSTED."
      }))
  )
  .add(
    HttpApiEndpoint.get("getWhatsappSharedLineAssignment", `${BASE}/whatsapp/assignments/:assignmentId`, {
      params: AssignmentPath,
      success: SharedLineAssignment,
      error: problems(common, "ASSIGNMENT_NOT_FOUND")
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Get a WhatsApp shared-line assignment",
      description: "One WhatsApp seat, released or not. Needs `platforms:read`; 404 ASSIGNMENT_NOT_FOUND."
    }))
  )
  .add(
    HttpApiEndpoint.delete("releaseWhatsappSharedLineAssignment", `${BASE}/whatsapp/assignments/:assignmentId`, {
      params: AssignmentPath,
      success: SharedLineAssignment,
      error: problems(common, "ASSIGNMENT_NOT_FOUND", "PROJECT_CLOSING")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({
      summary: "Release a WhatsApp shared-line assignment",
      description: "Frees the seat and the handle; the assignment stays readable with releasedAt, and a repeat answers the same. Needs `platforms:write`; 404 ASSIGNMENT_NOT_FOUND."
    }))
  )
  .add(
    HttpApiEndpoint.post("provisionWhatsappDedicatedLine", `${BASE}/whatsapp/dedicated`, {
      params: ProjectPath,
      success: Operation.pipe(HttpApiSchema.status(202)),
      error: problems(provisioning, "ENTITLEMENT_REQUIRED")
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true)
      .annotateMerge(OpenApi.annotations({
        summary: "Provision a dedicated WhatsApp line",
        description: "Starts a resource.provision operation for a dedicated WhatsApp line with shared Voice (always 202; it keeps running while there is no capacity). No body. Needs `platforms:write`, an Idempotency-Key (permanent: a new line needs a new key), the dedicated-lines entitlement and a payment method (402 ENTITLEMENT_REQUIRED); 409 PROJECT_CLOSING."
      }))
  )
  .add(
    HttpApiEndpoint.delete("releaseWhatsappDedicatedLine", `${BASE}/whatsapp/dedicated/:resourceId`, {
      params: ResourcePath,
      success: Operation,
      error: problems(common, "RESOURCE_NOT_FOUND", "PROJECT_CLOSING")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({
      summary: "Release a dedicated WhatsApp line",
      description: "Gives the dedicated WhatsApp line back to the pool and records a succeeded resource.release operation (200). Needs `platforms:write`; 404 RESOURCE_NOT_FOUND for anything but a held dedicated WhatsApp line."
    }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "WhatsApp",
    description: "WhatsApp Business (Embedded Signup, the WABA, senders, ownership codes), shared-line seats and dedicated lines."
  }))
