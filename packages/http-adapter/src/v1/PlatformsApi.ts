/**
 * The platforms feature's /v1 routes (issue 18; contract §1 9a, 9d, 9f): operations, resources, the
 * platform list, SMS numbers, Telegram bots and email domains. Reads need `platforms:read`, writes
 * `platforms:write`; provisioning writes take an Idempotency-Key and answer 202 with the operation.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  AssignSmsLineCampaignRequest,
  ConnectEmailDomainRequest,
  GetSmsLineCampaignAssignmentResponse,
  ConnectTelegramBotRequest,
  GetOperationResponse,
  ListNumberAreaCodesResponse,
  ListNumberCountriesResponse,
  ListProjectPlatformsResponse,
  Operation,
  OperationPage,
  PurchaseSmsNumberRequest,
  Resource,
  ResourcePage
} from "@switchboard/core/platforms"
import { type ProblemCode, ProjectId } from "@switchboard/core/shared"
import { Schema } from "effect"
import { Authn } from "./Authn.js"
import { idempotencyProblems as idempotency, projectProblems as common } from "./CommonProblems.js"

const BASE = "/v1/projects/:projectId/platforms"
const Id = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128))
const ProjectPath = Schema.Struct({ projectId: ProjectId })
const OperationPath = Schema.Struct({ projectId: ProjectId, operationId: Id })
const ResourcePath = Schema.Struct({ projectId: ProjectId, resourceId: Id })
const queryParam = Schema.optional(Schema.String)

export const PlatformsGroup = HttpApiGroup.make("platforms")
  .add(HttpApiEndpoint.get("listProjectPlatforms", BASE).setPath(ProjectPath).addSuccess(ListProjectPlatformsResponse))
  // Operations ------------------------------------------------------------------------------------
  .add(
    HttpApiEndpoint.get("listOperations", `${BASE}/operations`)
      .setPath(ProjectPath)
      .setUrlParams(Schema.Struct({
        endedAfter: queryParam,
        pageSize: queryParam,
        pageToken: queryParam,
        resourceId: queryParam,
        state: queryParam,
        type: queryParam
      }))
      .addSuccess(OperationPage)
  )
  .add(
    HttpApiEndpoint.get("getOperation", `${BASE}/operations/:operationId`)
      .setPath(OperationPath)
      .addSuccess(GetOperationResponse)
      .annotate(OpenApi.Description, "The operation; Retry-After paces polling while it is pending or running.")
  )
  .add(
    HttpApiEndpoint.post("cancelOperation", `${BASE}/operations/:operationId/cancel`)
      .setPath(OperationPath)
      .addSuccess(Operation)
  )
  // Resources -------------------------------------------------------------------------------------
  .add(
    HttpApiEndpoint.get("listResources", `${BASE}/resources`)
      .setPath(ProjectPath)
      .setUrlParams(Schema.Struct({ ability: queryParam, pageSize: queryParam, pageToken: queryParam, state: queryParam, type: queryParam }))
      .addSuccess(ResourcePage)
  )
  .add(HttpApiEndpoint.get("getResource", `${BASE}/resources/:resourceId`).setPath(ResourcePath).addSuccess(Resource))
  .add(HttpApiEndpoint.del("releaseResource", `${BASE}/resources/:resourceId`).setPath(ResourcePath).addSuccess(Operation))
  // SMS numbers -----------------------------------------------------------------------------------
  .add(
    HttpApiEndpoint.get("listNumberCountries", `${BASE}/sms/numbers/countries`)
      .setPath(ProjectPath)
      .addSuccess(ListNumberCountriesResponse)
  )
  .add(
    HttpApiEndpoint.get("listNumberAreaCodes", `${BASE}/sms/numbers/area-codes`)
      .setPath(ProjectPath)
      .setUrlParams(Schema.Struct({ countryCode: queryParam }))
      .addSuccess(ListNumberAreaCodesResponse)
  )
  .add(
    HttpApiEndpoint.post("purchaseSmsNumber", `${BASE}/sms/numbers`)
      .setPath(ProjectPath)
      .setPayload(PurchaseSmsNumberRequest)
      .addSuccess(Operation, { status: 202 })
      .annotate(OpenApi.Description, "Buys one US local number; an empty inventory keeps the operation running.")
  )
  // 10DLC campaign of an SMS line -------------------------------------------------------------------
  .add(
    HttpApiEndpoint.get("getSmsLineCampaignAssignment", `${BASE}/sms/lines/:resourceId/campaign`)
      .setPath(ResourcePath)
      .addSuccess(GetSmsLineCampaignAssignmentResponse)
  )
  .add(
    HttpApiEndpoint.put("assignSmsLineCampaign", `${BASE}/sms/lines/:resourceId/campaign`)
      .setPath(ResourcePath)
      .setPayload(AssignSmsLineCampaignRequest)
      .addSuccess(Operation)
      .annotate(OpenApi.Description, "Attaches a ready campaign of the organization (expectedVersion); never cancellable.")
  )
  .add(
    HttpApiEndpoint.del("unassignSmsLineCampaign", `${BASE}/sms/lines/:resourceId/campaign`)
      .setPath(ResourcePath)
      .setUrlParams(Schema.Struct({ expectedVersion: queryParam }))
      .addSuccess(Operation)
  )
  // Telegram and email ----------------------------------------------------------------------------
  .add(
    HttpApiEndpoint.post("connectTelegramBot", `${BASE}/telegram/bots`)
      .setPath(ProjectPath)
      .setPayload(ConnectTelegramBotRequest)
      .addSuccess(Operation, { status: 202 })
  )
  .add(
    HttpApiEndpoint.post("connectEmailDomain", `${BASE}/email/domains`)
      .setPath(ProjectPath)
      .setPayload(ConnectEmailDomainRequest)
      .addSuccess(Operation, { status: 202 })
  )
  .middleware(Authn)
  .annotateContext(OpenApi.annotations({
    title: "Platforms",
    description: "Provisioning: asynchronous operations and the resources (numbers, lines, bots, domains) a project holds."
  }))

const provisioning: ReadonlyArray<ProblemCode> = [...common, ...idempotency, "PROJECT_CLOSING", "PAYLOAD_TOO_LARGE"]

/** operationId ("platforms.<name>") → the problem codes it can answer (for the OpenAPI document). */
export const platformsProblems: Record<string, ReadonlyArray<ProblemCode>> = {
  "platforms.listProjectPlatforms": common,
  "platforms.listOperations": common,
  "platforms.getOperation": [...common, "OPERATION_NOT_FOUND"],
  "platforms.cancelOperation": [...common, "OPERATION_NOT_FOUND", "OPERATION_NOT_CANCELLABLE"],
  "platforms.listResources": common,
  "platforms.getResource": [...common, "RESOURCE_NOT_FOUND"],
  "platforms.releaseResource": [...common, "RESOURCE_NOT_FOUND", "PROJECT_CLOSING"],
  "platforms.listNumberCountries": common,
  "platforms.listNumberAreaCodes": common,
  "platforms.purchaseSmsNumber": provisioning,
  "platforms.getSmsLineCampaignAssignment": [
    ...common, "SMS_CAMPAIGN_INVALID_REQUEST", "SMS_LINE_NOT_FOUND", "SMS_LINE_UNSUPPORTED", "SMS_CAMPAIGN_CONTEXT_UNAVAILABLE"
  ],
  "platforms.assignSmsLineCampaign": [
    ...common, ...idempotency, "SMS_CAMPAIGN_INVALID_REQUEST", "SMS_LINE_NOT_FOUND", "SMS_LINE_UNSUPPORTED", "SMS_CAMPAIGN_NOT_FOUND",
    "SMS_CAMPAIGN_NOT_READY", "SMS_CAMPAIGN_CAPACITY_EXCEEDED", "SMS_CAMPAIGN_ORGANIZATION_MISMATCH", "SMS_CAMPAIGN_VERSION_CONFLICT",
    "SMS_CAMPAIGN_CONTEXT_UNAVAILABLE", "PROJECT_CLOSING"
  ],
  "platforms.unassignSmsLineCampaign": [
    ...common, ...idempotency, "SMS_CAMPAIGN_INVALID_REQUEST", "SMS_LINE_NOT_FOUND", "SMS_LINE_UNSUPPORTED", "SMS_CAMPAIGN_NOT_FOUND",
    "SMS_CAMPAIGN_VERSION_CONFLICT", "SMS_CAMPAIGN_CONTEXT_UNAVAILABLE", "PROJECT_CLOSING"
  ],
  "platforms.connectTelegramBot": [...provisioning, "TELEGRAM_PROVISION_IN_PROGRESS"],
  "platforms.connectEmailDomain": [...provisioning, "EMAIL_DOMAIN_ALREADY_CONNECTED"]
}

/** operationIds that require an Idempotency-Key. */
export const platformsIdempotent: ReadonlySet<string> = new Set([
  "platforms.purchaseSmsNumber",
  "platforms.assignSmsLineCampaign",
  "platforms.unassignSmsLineCampaign",
  "platforms.connectTelegramBot",
  "platforms.connectEmailDomain"
])
