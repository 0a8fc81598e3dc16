/**
 * 10DLC campaign assignment of SMS lines (docs/provisioning.md). A line's assignment —
 * the confirmed campaign and a version that `expectedVersion` is checked against — lives in the
 * resource's `detail` (`campaign`, `campaignVersion`). Assign and unassign ask the
 * `CampaignRegistry` first (outside any transaction), then record the change with the resource
 * locked and the version checked again, with a `sms.campaign.assign|unassign` operation (never
 * cancellable; answered 200 once done) and its events. Eligibility is the control plane's own
 * assessment: `eligible` with a ready campaign, `blocked` (with a reason) otherwise, `unknown` when
 * the registry cannot be asked.
 */
import { Context, DateTime, Effect, Layer, Option, Result, Schema } from "effect"
import type { Principal } from "../credentials/Access.js"
import { EventPublisher } from "../events/EventsFeature.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { IdKinds, type ProjectId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import { fn } from "../internal/Traced.js"
import { newOperation } from "./OperationMachine.js"
import {
  SmsCampaignCapacityExceeded,
  SmsCampaignContextUnavailable,
  SmsCampaignInvalidRequest,
  SmsCampaignNotFound,
  SmsCampaignNotReady,
  SmsCampaignOrganizationMismatch,
  SmsCampaignVersionConflict,
  SmsLineNotFound,
  SmsLineUnsupported
} from "./PlatformErrors.js"
import { CampaignRegistry, ResourcesRepo, OperationsRepo } from "./PlatformPorts.js"
import type { OperationRecord, ResourceRecord } from "./PlatformSchema.js"
import { operationView, publishChanges } from "./PlatformViews.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/** A positive safe integer. */
const Version = Schema.Int.pipe(Schema.check(Schema.isGreaterThan(0)), Schema.check(Schema.isLessThanOrEqualTo(Number.MAX_SAFE_INTEGER)))

export const AssignSmsLineCampaignRequest = Schema.Struct({
  campaignId: Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(128))),
  expectedVersion: Version
}).annotate({ identifier: "AssignSmsLineCampaignRequest" }).pipe(noExcessKeys)

export const GetSmsLineCampaignAssignmentResponse = Schema.Struct({
  campaign: Schema.NullOr(Schema.Struct({ id: Schema.String, organizationId: Schema.String })),
  eligibility: Schema.Literals(["eligible", "blocked", "unknown"]),
  reasonCode: Schema.NullOr(Schema.String),
  resourceId: Schema.String,
  version: Schema.Number
}).annotate({ identifier: "GetSmsLineCampaignAssignmentResponse" })
export type GetSmsLineCampaignAssignmentResponse = typeof GetSmsLineCampaignAssignmentResponse.Type

/** The `expectedVersion` query of unassign: a positive integer, else SMS_CAMPAIGN_INVALID_REQUEST. */
export const parseExpectedVersion = (raw: string | undefined): Option.Option<number> => {
  if (raw === undefined || !/^[1-9][0-9]{0,15}$/.test(raw)) return Option.none()
  const n = Number(raw)
  return Number.isSafeInteger(n) ? Option.some(n) : Option.none()
}

interface Assignment {
  readonly campaign: { readonly id: string; readonly organizationId: string } | null
  readonly version: number
}

export const assignmentOf = (r: ResourceRecord): Assignment => {
  const c = r.detail["campaign"] as { id?: unknown; organizationId?: unknown } | null | undefined
  const version = typeof r.detail["campaignVersion"] === "number" ? r.detail["campaignVersion"] : 1
  return {
    campaign: c !== null && c !== undefined && typeof c.id === "string" && typeof c.organizationId === "string"
      ? { id: c.id, organizationId: c.organizationId }
      : null,
    version
  }
}

export class SmsCampaigns extends Context.Service<SmsCampaigns>()("core/SmsCampaigns", {
  make: Effect.gen(function*() {
    const resources = yield* ResourcesRepo
    const ops = yield* OperationsRepo
    const registry = yield* CampaignRegistry
    const tx = yield* Transactor
    const ids = yield* Ids
    const gate = yield* makeProjectGate
    const publisher = yield* EventPublisher

    const smsLine = (found: Option.Option<ResourceRecord>, resourceId: string) =>
      Effect.gen(function*() {
        if (Option.isNone(found) || found.value.state !== "active") return yield* new SmsLineNotFound({ resourceId })
        if (!found.value.abilities.includes("sms")) return yield* new SmsLineUnsupported({ resourceId, type: found.value.type })
        return found.value
      })

    const unavailable = (e: { readonly message: string }) => new SmsCampaignContextUnavailable({ message: e.message })

    const get = fn("SmsCampaigns.get")(function*(projectId: ProjectId, principal: Principal, resourceId: string) {
      const project = yield* gate.open(projectId, principal, "read")
      const line = yield* smsLine(yield* resources.find(projectId, resourceId), resourceId)
      const a = assignmentOf(line)
      if (a.campaign === null) {
        return { campaign: null, eligibility: "blocked" as const, reasonCode: "no_campaign", resourceId, version: a.version }
      }
      const info = yield* Effect.result(registry.find({ campaignId: a.campaign.id, organizationId: project.organizationId }))
      if (Result.isFailure(info)) return { campaign: a.campaign, eligibility: "unknown" as const, reasonCode: "registry_unavailable", resourceId, version: a.version }
      const ready = Option.isSome(info.success) && info.success.value.status === "ready"
      return {
        campaign: a.campaign,
        eligibility: ready ? "eligible" as const : "blocked" as const,
        reasonCode: ready ? null : "campaign_not_ready",
        resourceId,
        version: a.version
      }
    })

    /** Records the new assignment with the line locked and the version checked again; returns the operation. */
    const record = (args: {
      readonly projectId: string
      readonly resourceId: string
      readonly expectedVersion: number
      readonly campaign: Assignment["campaign"]
      readonly type: "sms.campaign.assign" | "sms.campaign.unassign"
    }) =>
      tx.withTransaction(Effect.gen(function*() {
        const line = yield* smsLine(yield* resources.lock(args.projectId, args.resourceId), args.resourceId)
        const current = assignmentOf(line)
        if (current.version !== args.expectedVersion) {
          return yield* new SmsCampaignVersionConflict({
            resourceId: args.resourceId,
            expectedVersion: args.expectedVersion,
            currentVersion: current.version
          })
        }
        const now = yield* DateTime.now
        const updated = yield* resources.updateDetail({
          projectId: args.projectId,
          resourceId: args.resourceId,
          detail: { ...line.detail, campaign: args.campaign, campaignVersion: current.version + 1 },
          now
        })
        const op: OperationRecord = {
          ...newOperation({
            operationId: yield* ids.typeId(IdKinds.operation),
            projectId: args.projectId,
            type: args.type,
            resourceType: line.type,
            resourceId: args.resourceId,
            params: args.campaign === null ? {} : { campaignId: args.campaign.id },
            now
          }),
          state: "succeeded",
          committed: true,
          startedAt: now,
          endedAt: now
        }
        yield* ops.insert(op)
        yield* publishChanges(publisher, args.projectId, { operations: [op], resources: Option.toArray(updated) }, now)
        return operationView(op)
      }))

    /** Attaches a ready campaign of the project's organization to the line (version-checked). */
    const assign = fn("SmsCampaigns.assign")(function*(
      projectId: ProjectId,
      principal: Principal,
      resourceId: string,
      body: { readonly campaignId: string; readonly expectedVersion: number }
    ) {
      const project = yield* gate.open(projectId, principal, "write")
      const line = yield* smsLine(yield* resources.find(projectId, resourceId), resourceId)
      const current = assignmentOf(line)
      if (current.version !== body.expectedVersion) {
        return yield* new SmsCampaignVersionConflict({ resourceId, expectedVersion: body.expectedVersion, currentVersion: current.version })
      }
      const found = yield* Effect.mapError(registry.find({ campaignId: body.campaignId, organizationId: project.organizationId }), unavailable)
      if (Option.isNone(found)) return yield* new SmsCampaignNotFound({ campaignId: body.campaignId })
      const campaign = found.value
      if (campaign.organizationId !== project.organizationId) {
        return yield* new SmsCampaignOrganizationMismatch({ campaignId: body.campaignId })
      }
      if (campaign.status !== "ready") return yield* new SmsCampaignNotReady({ campaignId: body.campaignId, status: campaign.status })
      const phoneNumber = line.phoneNumber ?? ""
      const attached = yield* Effect.mapError(registry.attach({ campaignId: campaign.campaignId, phoneNumber }), unavailable)
      if (!attached) return yield* new SmsCampaignCapacityExceeded({ campaignId: campaign.campaignId, capacity: campaign.capacity })
      const result = yield* Effect.result(record({
        projectId,
        resourceId,
        expectedVersion: body.expectedVersion,
        campaign: { id: campaign.campaignId, organizationId: campaign.organizationId },
        type: "sms.campaign.assign"
      }))
      if (Result.isFailure(result)) {
        // Lost the version race after attaching: give the capacity back.
        yield* Effect.ignore(registry.detach({ campaignId: campaign.campaignId, phoneNumber }))
        return yield* Effect.fail(result.failure)
      }
      if (current.campaign !== null && current.campaign.id !== campaign.campaignId) {
        yield* Effect.ignore(registry.detach({ campaignId: current.campaign.id, phoneNumber }))
      }
      return result.success
    })

    /** Detaches the line's campaign: eligibility is blocked at once; the registry is told first. */
    const unassign = fn("SmsCampaigns.unassign")(function*(
      projectId: ProjectId,
      principal: Principal,
      resourceId: string,
      rawExpectedVersion: string | undefined
    ) {
      const expectedVersion = parseExpectedVersion(rawExpectedVersion)
      if (Option.isNone(expectedVersion)) {
        return yield* new SmsCampaignInvalidRequest({ message: "expectedVersion must be a positive integer" })
      }
      yield* gate.open(projectId, principal, "write")
      const line = yield* smsLine(yield* resources.find(projectId, resourceId), resourceId)
      const current = assignmentOf(line)
      if (current.version !== expectedVersion.value) {
        return yield* new SmsCampaignVersionConflict({ resourceId, expectedVersion: expectedVersion.value, currentVersion: current.version })
      }
      if (current.campaign === null) return yield* new SmsCampaignNotFound({ campaignId: "(none assigned)" })
      yield* Effect.mapError(registry.detach({ campaignId: current.campaign.id, phoneNumber: line.phoneNumber ?? "" }), unavailable)
      return yield* record({ projectId, resourceId, expectedVersion: expectedVersion.value, campaign: null, type: "sms.campaign.unassign" })
    })

    return { get, assign, unassign } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer, EventPublisher.layer]))
}
