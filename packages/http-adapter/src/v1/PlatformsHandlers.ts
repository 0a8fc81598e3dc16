/**
 * The platforms feature's /v1 handlers (docs/provisioning.md). Provisioning writes take an
 * Idempotency-Key and answer 202 with the operation, `Location` (where to poll) and `Retry-After`;
 * a replay of the key returns the same operation (a new resource needs a new key). `getOperation`
 * paces polling with `Retry-After` while the operation is unfinished and is never cached.
 * `detail.setupUrl` (Telegram) is shown only to callers with `platforms:write`.
 */
import { HttpApiBuilder } from "effect/http-api"
import {
  GetOperationResponse,
  GetSmsLineCampaignAssignmentResponse,
  Operation,
  Provisioning,
  SmsCampaigns
} from "@switchboard/core/platforms"
import { decide, Requirement } from "@switchboard/core/credentials"
import { Effect, Result } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { onProject } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { PlatformsGroup } from "./PlatformsApi.js"
import { idempotent } from "./Idempotency.js"
import { domain, rendered, toResponse } from "./Pipeline.js"

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
      .handle("listProjectPlatforms", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return { platforms: yield* domain(provisioning.listPlatforms(path.projectId, principal)) }
        }))
      .handle("listOperations", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const page = yield* domain(provisioning.listOperations(path.projectId, principal, query))
          const canWrite = decide(principal, Requirement.Project({ projectId: path.projectId, permission: "platforms:write", accountOnly: false }))
          return {
            operations: Result.isSuccess(canWrite) ? page.operations : page.operations.map(withoutSetupUrl),
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }
        }))
      .handle("getOperation", ({ params: path }) =>
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
      .handle("cancelOperation", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(provisioning.cancelOperation(path.projectId, principal, path.operationId))
        }))
      .handle("listResources", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const page = yield* domain(provisioning.listResources(path.projectId, principal, query))
          return {
            resources: page.resources,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }
        }))
      .handle("getResource", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return yield* domain(provisioning.getResource(path.projectId, principal, path.resourceId))
        }))
      .handle("releaseResource", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(provisioning.releaseResource(path.projectId, principal, path.resourceId))
        }))
      .handle("listNumberCountries", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return yield* domain(provisioning.listNumberCountries(path.projectId, principal))
        }))
      .handle("listNumberAreaCodes", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          return yield* domain(provisioning.listNumberAreaCodes(path.projectId, principal))
        }))
      .handle("purchaseSmsNumber", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const op = yield* domain(provisioning.purchaseSmsNumber(path.projectId, principal, payload))
          return toResponse(yield* accepted(path.projectId, op))
        }))
      .handle("getSmsLineCampaignAssignment", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* read(path.projectId)
          const r = yield* domain(campaigns.get(path.projectId, principal, path.resourceId))
          return toResponse(yield* rendered(GetSmsLineCampaignAssignmentResponse, r, 200, noStore))
        }))
      // A refused body is 400 SMS_CAMPAIGN_INVALID_REQUEST (its declaration's `RefusedBodyAs`).
      .handle("assignSmsLineCampaign", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          return yield* domain(campaigns.assign(path.projectId, principal, path.resourceId, payload))
        }))
      // `Idempotent` "in handler": it runs the Idempotency-Key protocol itself, with expectedVersion
      // (a query parameter) in the fingerprint, which the middleware's (method, route, path
      // parameters, body) does not cover.
      .handle("unassignSmsLineCampaign", ({ params: path, query: urlParams }) =>
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
      .handle("connectTelegramBot", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const op = yield* domain(provisioning.connectTelegramBot(path.projectId, principal))
          return toResponse(yield* accepted(path.projectId, op))
        }))
      .handle("connectEmailDomain", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* write(path.projectId)
          const op = yield* domain(provisioning.connectEmailDomain(path.projectId, principal, payload.domain))
          return toResponse(yield* accepted(path.projectId, op))
        }))
  }))
