/**
 * The platforms feature's /v1 handlers (issue 18). Provisioning writes take an Idempotency-Key and
 * answer 202 with the operation, `Location` (where to poll) and `Retry-After`; a replay of the key
 * returns the same operation (a new resource needs a new key). `getOperation` paces polling with
 * `Retry-After` while the operation is unfinished and is never cached. `detail.setupUrl` (Telegram)
 * is shown only to callers with `platforms:write`.
 */
import { HttpApiBuilder } from "effect/http-api"
import {
  AssignSmsLineCampaignRequest,
  ConnectEmailDomainRequest,
  GetSmsLineCampaignAssignmentResponse,
  SmsCampaigns,
  ConnectTelegramBotRequest,
  GetOperationResponse,
  ListNumberAreaCodesQuery,
  ListNumberAreaCodesResponse,
  ListNumberCountriesResponse,
  ListOperationsQuery,
  ListProjectPlatformsResponse,
  ListResourcesQuery,
  Operation,
  OperationPage,
  Provisioning,
  PurchaseSmsNumberRequest,
  Resource,
  ResourcePage
} from "@switchboard/core/platforms"
import { decide, Requirement } from "@switchboard/core/credentials"
import { Effect, Result } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { v1Group } from "./V1Group.js"
import { PlatformsGroup } from "./PlatformsApi.js"
import { idempotent } from "./Idempotency.js"
import { decodeJsonBody, domain, rendered, toResponse } from "./Pipeline.js"
import { problem } from "./ProblemFailure.js"
import { decodeQuery, onProject } from "./ProjectsHandlers.js"

const BASE = "/v1/projects/:projectId/platforms"
const noStore = { "cache-control": "no-store" }
/** Seconds between polls of an unfinished operation. */
const POLL_SECONDS = "2"

/** 202 + Location (where to poll) + Retry-After: the answer of every provisioning request. */
export const acceptedOperation = (apiUrl: string, projectId: string, op: Operation) =>
  rendered(Operation, op, 202, {
    location: `${apiUrl}/v1/projects/${projectId}/platforms/operations/${op.operationId}`,
    "retry-after": POLL_SECONDS,
    ...noStore
  })

export const PlatformsGroupLive = HttpApiBuilder.group(v1Group(PlatformsGroup), "platforms", (handlers) =>
  Effect.gen(function*() {
    const provisioning = yield* Provisioning
    const campaigns = yield* SmsCampaigns
    const config = yield* ServerConfig
    const read = (projectId: string) => onProject(projectId, "platforms:read")
    const write = (projectId: string) => onProject(projectId, "platforms:write")
    const unfinished = (op: Operation) => op.state === "pending" || op.state === "running"
    const accepted = (projectId: string, op: Operation) => acceptedOperation(config.apiUrl, projectId, op)

    /** `detail.setupUrl` only for callers that may write (contract: Telegram setup links). */
    const withoutSetupUrl = (op: Operation): Operation => {
      if (op.detail === undefined || !("setupUrl" in op.detail)) return op
      const { setupUrl: _, ...detail } = op.detail
      return { ...op, detail }
    }

    return handlers
      .handleRaw("listProjectPlatforms", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return toResponse(yield* rendered(ListProjectPlatformsResponse, { platforms: yield* domain(provisioning.listPlatforms(path.projectId, principal)) }))
        }))
      .handleRaw("listOperations", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const query = yield* decodeQuery(ListOperationsQuery)
          const page = yield* domain(provisioning.listOperations(path.projectId, principal, query))
          const canWrite = decide(principal, Requirement.Project({ projectId: path.projectId, permission: "platforms:write", accountOnly: false }))
          return toResponse(yield* rendered(OperationPage, {
            operations: Result.isSuccess(canWrite) ? page.operations : page.operations.map(withoutSetupUrl),
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }))
        }))
      .handleRaw("getOperation", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const found = yield* domain(provisioning.getOperation(path.projectId, principal, path.operationId))
          const canWrite = decide(principal, Requirement.Project({ projectId: path.projectId, permission: "platforms:write", accountOnly: false }))
          const operation = Result.isSuccess(canWrite) ? found.operation : withoutSetupUrl(found.operation)
          return toResponse(yield* rendered(GetOperationResponse, { ...found, operation }, 200, {
            ...noStore,
            ...(unfinished(operation) ? { "retry-after": POLL_SECONDS } : {})
          }))
        }))
      .handleRaw("cancelOperation", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const op = yield* domain(provisioning.cancelOperation(path.projectId, principal, path.operationId))
          return toResponse(yield* rendered(Operation, op))
        }))
      .handleRaw("listResources", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const query = yield* decodeQuery(ListResourcesQuery)
          const page = yield* domain(provisioning.listResources(path.projectId, principal, query))
          return toResponse(yield* rendered(ResourcePage, {
            resources: page.resources,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }))
        }))
      .handleRaw("getResource", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return toResponse(yield* rendered(Resource, yield* domain(provisioning.getResource(path.projectId, principal, path.resourceId))))
        }))
      .handleRaw("releaseResource", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const op = yield* domain(provisioning.releaseResource(path.projectId, principal, path.resourceId))
          return toResponse(yield* rendered(Operation, op))
        }))
      .handleRaw("listNumberCountries", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const r = yield* domain(provisioning.listNumberCountries(path.projectId, principal))
          return toResponse(yield* rendered(ListNumberCountriesResponse, r))
        }))
      .handleRaw("listNumberAreaCodes", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          yield* decodeQuery(ListNumberAreaCodesQuery)
          const r = yield* domain(provisioning.listNumberAreaCodes(path.projectId, principal))
          return toResponse(yield* rendered(ListNumberAreaCodesResponse, r))
        }))
      .handleRaw("purchaseSmsNumber", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(PurchaseSmsNumberRequest)
          return yield* idempotent(
            { route: `${BASE}/sms/numbers`, path: { projectId: path.projectId }, body: body.json },
            Effect.flatMap(domain(provisioning.purchaseSmsNumber(path.projectId, principal, body.value)), (op) =>
              accepted(path.projectId, op))
          )
        }))
      .handleRaw("getSmsLineCampaignAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const r = yield* domain(campaigns.get(path.projectId, principal, path.resourceId))
          return toResponse(yield* rendered(GetSmsLineCampaignAssignmentResponse, r, 200, noStore))
        }))
      .handleRaw("assignSmsLineCampaign", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(AssignSmsLineCampaignRequest).pipe(
            Effect.mapError((p) =>
              p.code === "VALIDATION_FAILED" ? problem("SMS_CAMPAIGN_INVALID_REQUEST", p.detail ?? "The request is not valid.", {
                extra: { issues: (p.extra as { issues?: unknown } | undefined)?.issues ?? [] }
              }) : p)
          )
          return yield* idempotent(
            { route: `${BASE}/sms/lines/:resourceId/campaign`, path: { projectId: path.projectId, resourceId: path.resourceId }, body: body.json },
            Effect.flatMap(domain(campaigns.assign(path.projectId, principal, path.resourceId, body.value)), (op) => rendered(Operation, op))
          )
        }))
      .handleRaw("unassignSmsLineCampaign", ({ params: path, query: urlParams }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* idempotent(
            {
              route: `${BASE}/sms/lines/:resourceId/campaign`,
              path: { projectId: path.projectId, resourceId: path.resourceId, expectedVersion: urlParams.expectedVersion ?? "" }
            },
            Effect.flatMap(
              domain(campaigns.unassign(path.projectId, principal, path.resourceId, urlParams.expectedVersion)),
              (op) => rendered(Operation, op)
            )
          )
        }))
      .handleRaw("connectTelegramBot", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(ConnectTelegramBotRequest)
          return yield* idempotent(
            { route: `${BASE}/telegram/bots`, path: { projectId: path.projectId }, body: body.json },
            Effect.flatMap(domain(provisioning.connectTelegramBot(path.projectId, principal)), (op) => accepted(path.projectId, op))
          )
        }))
      .handleRaw("connectEmailDomain", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const body = yield* decodeJsonBody(ConnectEmailDomainRequest)
          return yield* idempotent(
            { route: `${BASE}/email/domains`, path: { projectId: path.projectId }, body: body.json },
            Effect.flatMap(domain(provisioning.connectEmailDomain(path.projectId, principal, body.value.domain)), (op) =>
              accepted(path.projectId, op))
          )
        }))
  }))
