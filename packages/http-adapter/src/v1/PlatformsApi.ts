/**
 * The platforms feature's /v1 routes (docs/provisioning.md): operations, resources, the
 * platform list, SMS numbers, Telegram bots and email domains. Reads need `platforms:read`, writes
 * `platforms:write`; provisioning writes take an Idempotency-Key and answer 202 with the operation.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  AssignSmsLineCampaignRequest,
  ConnectEmailDomainRequest,
  ConnectTelegramBotRequest,
  GetOperationResponse,
  GetSmsLineCampaignAssignmentResponse,
  ListNumberAreaCodesQuery,
  ListNumberAreaCodesResponse,
  ListNumberCountriesResponse,
  ListOperationsQuery,
  ListProjectPlatformsResponse,
  ListResourcesQuery,
  Operation,
  OperationPage,
  PurchaseSmsNumberRequest,
  Resource,
  ResourcePage
} from "@switchboard/core/platforms"
import { ProjectId } from "@switchboard/core/shared"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import { Schema } from "effect"
import { idempotencyProblems as idempotency, projectProblems as common } from "./CommonProblems.js"
import { projectAccess } from "./Access.js"
import { Idempotent, RefusedBodyAs, Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

const BASE = "/v1/projects/:projectId/platforms"
const Id = Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(128)))
const ProjectPath = Schema.Struct({ projectId: ProjectId })
const OperationPath = Schema.Struct({ projectId: ProjectId, operationId: Id })
const ResourcePath = Schema.Struct({ projectId: ProjectId, resourceId: Id })
const queryParam = Schema.optional(Schema.String)
const provisioning: ReadonlyArray<ProblemCode> = [...common, ...idempotency, "PROJECT_CLOSING", "PAYLOAD_TOO_LARGE"]

export const PlatformsGroup = HttpApiGroup.make("platforms")
  .add(
    HttpApiEndpoint.get("listProjectPlatforms", BASE, {
      params: ProjectPath,
      success: ListProjectPlatformsResponse,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "List the project's platforms",
      description: "The messaging platforms this server can provision resources on. Needs `platforms:read`."
    }))
  )
  // Operations ------------------------------------------------------------------------------------
  .add(
    HttpApiEndpoint.get("listOperations", `${BASE}/operations`, {
      params: ProjectPath,
      query: ListOperationsQuery,
      success: OperationPage,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "List operations",
      description: "The project's provisioning operations, oldest first, filtered by state (comma-separated), type, resourceId or endedAfter. Needs `platforms:read`; Telegram setup links are shown only with `platforms:write`."
    }))
  )
  .add(
    HttpApiEndpoint.get("getOperation", `${BASE}/operations/:operationId`, {
      params: OperationPath,
      success: GetOperationResponse,
      error: problems(common, "OPERATION_NOT_FOUND")
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Get an operation",
      description: "One operation with the resource it produced; Retry-After paces polling while it is pending or running, and the answer is never cached. Needs `platforms:read` (setup links only with `platforms:write`); 404 OPERATION_NOT_FOUND."
    }))
  )
  .add(
    HttpApiEndpoint.post("cancelOperation", `${BASE}/operations/:operationId/cancel`, {
      params: OperationPath,
      success: Operation,
      error: problems(common, "OPERATION_NOT_FOUND", "OPERATION_NOT_CANCELLABLE")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({
      summary: "Cancel an operation",
      description: "Cancels a pending or running provision that has not committed (a number the provider already handed out goes back). Needs `platforms:write`; 409 OPERATION_NOT_CANCELLABLE for releases, campaign changes and finished or committed operations, 404 OPERATION_NOT_FOUND."
    }))
  )
  // Resources -------------------------------------------------------------------------------------
  .add(
    HttpApiEndpoint.get("listResources", `${BASE}/resources`, {
      params: ProjectPath,
      query: ListResourcesQuery,
      success: ResourcePage,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "List resources",
      description: "The numbers, lines, bots and domains the project holds, filtered by ability, state, or type. Needs `platforms:read`."
    }))
  )
  .add(
    HttpApiEndpoint.get("getResource", `${BASE}/resources/:resourceId`, {
      params: ResourcePath,
      success: Resource,
      error: problems(common, "RESOURCE_NOT_FOUND")
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Get a resource",
      description: "One resource with its type, abilities, state and detail; a released number stays readable as retired. Needs `platforms:read`; 404 RESOURCE_NOT_FOUND."
    }))
  )
  .add(
    HttpApiEndpoint.delete("releaseResource", `${BASE}/resources/:resourceId`, {
      params: ResourcePath,
      success: Operation,
      error: problems(common, "RESOURCE_NOT_FOUND", "PROJECT_CLOSING")
    }).annotate(Requires, projectAccess("platforms:write")).annotateMerge(OpenApi.annotations({
      summary: "Release a resource",
      description: "Gives the resource back to its provider, retires it and records a succeeded resource.release operation (200). Needs `platforms:write`; 404 RESOURCE_NOT_FOUND, 409 PROJECT_CLOSING."
    }))
  )
  // SMS numbers -----------------------------------------------------------------------------------
  .add(
    HttpApiEndpoint.get("listNumberCountries", `${BASE}/sms/numbers/countries`, {
      params: ProjectPath,
      success: ListNumberCountriesResponse,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "List number countries",
      description: "The countries SMS numbers can be bought in. Needs `platforms:read`."
    }))
  )
  .add(
    HttpApiEndpoint.get("listNumberAreaCodes", `${BASE}/sms/numbers/area-codes`, {
      params: ProjectPath,
      query: ListNumberAreaCodesQuery,
      success: ListNumberAreaCodesResponse,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "List area codes",
      description: "The area codes SMS numbers can be bought in; countryCode must be US. Needs `platforms:read`."
    }))
  )
  .add(
    HttpApiEndpoint.post("purchaseSmsNumber", `${BASE}/sms/numbers`, {
      params: ProjectPath,
      payload: PurchaseSmsNumberRequest,
      success: Operation.pipe(HttpApiSchema.status(202)),
      error: problems(provisioning)
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true)
      .annotateMerge(OpenApi.annotations({
        summary: "Buy an SMS number",
        description: "Starts a resource.provision operation that buys one US local number (202 with Location and Retry-After); an empty inventory keeps the operation running. Needs `platforms:write` and an Idempotency-Key; 409 PROJECT_CLOSING on a closing project."
      }))
  )
  // 10DLC campaign of an SMS line -------------------------------------------------------------------
  .add(
    HttpApiEndpoint.get("getSmsLineCampaignAssignment", `${BASE}/sms/lines/:resourceId/campaign`, {
      params: ResourcePath,
      success: GetSmsLineCampaignAssignmentResponse,
      error: problems(
        common, "SMS_CAMPAIGN_INVALID_REQUEST", "SMS_LINE_NOT_FOUND", "SMS_LINE_UNSUPPORTED", "SMS_CAMPAIGN_CONTEXT_UNAVAILABLE"
      )
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Get a line's 10DLC campaign",
      description: "The SMS line's confirmed campaign, its version and the registry's eligibility (eligible, blocked with a reason, unknown). Needs `platforms:read`; 404 SMS_LINE_NOT_FOUND, 409 SMS_LINE_UNSUPPORTED, 503 SMS_CAMPAIGN_CONTEXT_UNAVAILABLE."
    }))
  )
  // A body it refuses is 400 SMS_CAMPAIGN_INVALID_REQUEST, not VALIDATION_FAILED.
  .add(
    HttpApiEndpoint.put("assignSmsLineCampaign", `${BASE}/sms/lines/:resourceId/campaign`, {
      params: ResourcePath,
      payload: AssignSmsLineCampaignRequest,
      success: Operation,
      error: problems(
        common, idempotency, "SMS_CAMPAIGN_INVALID_REQUEST", "SMS_LINE_NOT_FOUND", "SMS_LINE_UNSUPPORTED", "SMS_CAMPAIGN_NOT_FOUND",
        "SMS_CAMPAIGN_NOT_READY", "SMS_CAMPAIGN_CAPACITY_EXCEEDED", "SMS_CAMPAIGN_ORGANIZATION_MISMATCH", "SMS_CAMPAIGN_VERSION_CONFLICT",
        "SMS_CAMPAIGN_CONTEXT_UNAVAILABLE", "PROJECT_CLOSING"
      )
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true)
      .annotate(RefusedBodyAs, "SMS_CAMPAIGN_INVALID_REQUEST")
      .annotateMerge(OpenApi.annotations({
        summary: "Assign a 10DLC campaign",
        description: "Attaches a ready campaign of the project's organization to the SMS line at expectedVersion; the operation is never cancellable. Needs `platforms:write` and an Idempotency-Key; 404 SMS_CAMPAIGN_NOT_FOUND, 409 SMS_CAMPAIGN_NOT_READY, SMS_CAMPAIGN_CAPACITY_EXCEEDED or SMS_CAMPAIGN_VERSION_CONFLICT, 403 SMS_CAMPAIGN_ORGANIZATION_MISMATCH."
      }))
  )
  // Its handler runs the Idempotency-Key protocol itself, with expectedVersion (a query parameter)
  // in the fingerprint.
  .add(
    HttpApiEndpoint.delete("unassignSmsLineCampaign", `${BASE}/sms/lines/:resourceId/campaign`, {
      params: ResourcePath,
      query: Schema.Struct({ expectedVersion: queryParam }),
      success: Operation,
      error: problems(
        common, idempotency, "SMS_CAMPAIGN_INVALID_REQUEST", "SMS_LINE_NOT_FOUND", "SMS_LINE_UNSUPPORTED", "SMS_CAMPAIGN_NOT_FOUND",
        "SMS_CAMPAIGN_VERSION_CONFLICT", "SMS_CAMPAIGN_CONTEXT_UNAVAILABLE", "PROJECT_CLOSING"
      )
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, "in handler")
      .annotateMerge(OpenApi.annotations({
        summary: "Detach a 10DLC campaign",
        description: "Detaches the SMS line's campaign at expectedVersion (query). Needs `platforms:write` and an Idempotency-Key; 409 SMS_CAMPAIGN_VERSION_CONFLICT when the version is stale, 404 SMS_LINE_NOT_FOUND."
      }))
  )
  // Telegram and email ----------------------------------------------------------------------------
  .add(
    HttpApiEndpoint.post("connectTelegramBot", `${BASE}/telegram/bots`, {
      params: ProjectPath,
      payload: ConnectTelegramBotRequest,
      success: Operation.pipe(HttpApiSchema.status(202)),
      error: problems(provisioning, "TELEGRAM_PROVISION_IN_PROGRESS")
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true)
      .annotateMerge(OpenApi.annotations({
        summary: "Connect a Telegram bot",
        description: "Starts a resource.provision operation for a Telegram bot (202 with Location and Retry-After); the operation carries the bot's setup link. Needs `platforms:write` and an Idempotency-Key; 409 TELEGRAM_PROVISION_IN_PROGRESS while another bot provision of the project is unfinished."
      }))
  )
  .add(
    HttpApiEndpoint.post("connectEmailDomain", `${BASE}/email/domains`, {
      params: ProjectPath,
      payload: ConnectEmailDomainRequest,
      success: Operation.pipe(HttpApiSchema.status(202)),
      error: problems(provisioning, "EMAIL_DOMAIN_ALREADY_CONNECTED")
    }).annotate(Requires, projectAccess("platforms:write")).annotate(Idempotent, true)
      .annotateMerge(OpenApi.annotations({
        summary: "Connect an email domain",
        description: "Starts a resource.provision operation for a sending domain (202 with Location and Retry-After); the operation lists the DNS records to publish and the resource exists once they verify. Needs `platforms:write` and an Idempotency-Key; 409 EMAIL_DOMAIN_ALREADY_CONNECTED when the domain is connected, or being connected, anywhere."
      }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Platforms",
    description: "Provisioning: asynchronous operations and the resources (numbers, lines, bots, domains) a project holds."
  }))
