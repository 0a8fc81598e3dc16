/**
 * Platform provisioning for the /v1 API (docs/provisioning.md): operations and
 * resources, SMS numbers, Telegram bots, email domains.
 *
 * Every provisioning request checks the project (a closing one refuses: `ProjectClosing`) and
 * stores a `pending` operation with its event in one transaction, with the project row locked (so
 * "one unfinished Telegram bot per project" holds under concurrency); the worker
 * (`ProvisioningWorker.ts`) does the rest. `cancelOperation` and the worker's commit both lock the
 * operation row: exactly one of them wins. Releasing a resource gives it back to its provider first,
 * then retires it in one transaction (answered inline: 200 with a succeeded operation).
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import type { Principal } from "../credentials/Access.js"
import { EventPublisher } from "../events/EventsFeature.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { canonicalJson } from "../shared/Idempotency.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { createdAtPage } from "../shared/PageToken.js"
import { Transactor } from "../shared/Ports.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { fn } from "../internal/Traced.js"
import { ImessagePool } from "./ImessagePorts.js"
import { apply } from "./OperationMachine.js"
import { makeOperationRecords } from "./OperationRecords.js"
import { makePricedResources } from "./PricedResources.js"
import { makeWhatsappRelease } from "./WhatsappSteps.js"
import {
  EmailDomainAlreadyConnected,
  InvalidPlatformRequest,
  OperationNotCancellable,
  OperationNotFound,
  PlatformProviderUnavailable,
  ResourceNotFound,
  TelegramProvisionInProgress
} from "./PlatformErrors.js"
import { EmailDomainProvider, NumberProvider, OperationsRepo, ResourcesRepo, TelegramProvider } from "./PlatformPorts.js"
import type {
  ListOperationsQuery,
  ListResourcesQuery,
  OperationRecord,
  ResourceRecord,
  ResourceType
} from "./PlatformSchema.js"
import { supportedPlatforms } from "./PlatformSchema.js"
import { isVisible, operationView, publishChanges, resourceView } from "./PlatformViews.js"

const DEFAULT_PAGE_SIZE = 50

export class Provisioning extends Context.Service<Provisioning>()("core/Provisioning", {
  make: Effect.gen(function*() {
    const ops = yield* OperationsRepo
    const resources = yield* ResourcesRepo
    const tx = yield* Transactor
    const gate = yield* makeProjectGate
    const publisher = yield* EventPublisher
    const serverSecret = yield* ServerSecret
    const numbers = yield* NumberProvider
    const telegram = yield* TelegramProvider
    const email = yield* EmailDomainProvider
    const releaseWhatsapp = yield* makeWhatsappRelease
    const priced = yield* makePricedResources
    const imessagePool = yield* ImessagePool

    const ownOperation = (projectId: string, operationId: string, found: Option.Option<OperationRecord>) =>
      Option.isSome(found) && found.value.projectId === projectId
        ? Effect.succeed(found.value)
        : Effect.fail(new OperationNotFound({ operationId }))

    const visibleResource = (resourceId: string, found: Option.Option<ResourceRecord>) =>
      Option.isSome(found) && isVisible(found.value)
        ? Effect.succeed(found.value)
        : Effect.fail(new ResourceNotFound({ resourceId }))

    const { finished, submit } = yield* makeOperationRecords

    // Operations ---------------------------------------------------------------------------------

    const getOperation = fn("Provisioning.getOperation")(function*(
      projectId: ProjectId,
      principal: Principal,
      operationId: string
    ) {
      yield* gate.open(projectId, principal, "read")
      const op = yield* ownOperation(projectId, operationId, yield* ops.find(operationId))
      const resource = op.resourceId === null ? Option.none() : yield* resources.find(projectId, op.resourceId)
      return {
        operation: operationView(op),
        ...(Option.isSome(resource) && isVisible(resource.value) ? { resource: resourceView(resource.value) } : {})
      }
    })

    const listOperations = fn("Provisioning.listOperations")(function*(
      projectId: ProjectId,
      principal: Principal,
      query: ListOperationsQuery
    ) {
      yield* gate.open(projectId, principal, "read")
      const states = query.state === undefined ? undefined : [...query.state].sort()
      const list = `operations:${projectId}:${canonicalJson({
        states: states ?? null,
        type: query.type ?? null,
        resourceId: query.resourceId ?? null,
        endedAfter: query.endedAfter?.epochMilliseconds ?? null
      })}`
      const { page, nextPageToken } = yield* createdAtPage({
        list,
        pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE,
        pageToken: query.pageToken,
        fetch: (after, limit) =>
          ops.list({
            projectId,
            states,
            type: query.type,
            resourceId: query.resourceId,
            endedAfter: query.endedAfter,
            after: after && { createdAt: after.createdAt, operationId: after.id },
            limit
          }),
        positionOf: (op) => ({ createdAt: op.createdAt, id: op.operationId }),
        invalidToken: (message) => new InvalidPlatformRequest({ parameter: "pageToken", message })
      }).pipe(Effect.provideService(ServerSecret, serverSecret))
      return { operations: page.map(operationView), nextPageToken }
    })

    const cancelOperation = fn("Provisioning.cancelOperation")(function*(
      projectId: ProjectId,
      principal: Principal,
      operationId: string
    ) {
      yield* gate.open(projectId, principal, "write")
      return yield* tx.withTransaction(Effect.gen(function*() {
        const op = yield* ownOperation(projectId, operationId, yield* ops.lock(operationId))
        const now = yield* DateTime.now
        const t = apply(op, { _tag: "CancelRequested", at: now })
        if (t._tag === "Rejected") {
          return yield* new OperationNotCancellable({ operationId, state: op.state, why: t.reason })
        }
        yield* ops.update(t.operation)
        yield* publishChanges(publisher, projectId, { operations: [t.operation] }, now)
        return operationView(t.operation)
      }))
    })

    // Resources ----------------------------------------------------------------------------------

    const listResources = fn("Provisioning.listResources")(function*(
      projectId: ProjectId,
      principal: Principal,
      query: ListResourcesQuery
    ) {
      yield* gate.open(projectId, principal, "read")
      const states = query.state === undefined ? undefined : [...query.state].sort()
      const list = `resources:${projectId}:${canonicalJson({
        states: states ?? null,
        type: query.type ?? null,
        ability: query.ability ?? null
      })}`
      const { page, nextPageToken } = yield* createdAtPage({
        list,
        pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE,
        pageToken: query.pageToken,
        fetch: (after, limit) =>
          Effect.map(
            resources.list({
              projectId,
              states,
              type: query.type,
              ability: query.ability,
              after: after && { createdAt: after.createdAt, resourceId: after.id },
              limit
            }),
            // Retired resources that are gone (returned lines) stay out; the page may come up short,
            // which the contract allows (only a missing nextPageToken ends the list).
            (rows) => rows
          ),
        positionOf: (r) => ({ createdAt: r.createdAt, id: r.resourceId }),
        invalidToken: (message) => new InvalidPlatformRequest({ parameter: "pageToken", message })
      }).pipe(Effect.provideService(ServerSecret, serverSecret))
      return { resources: page.filter(isVisible).map(resourceView), nextPageToken }
    })

    const getResource = fn("Provisioning.getResource")(function*(
      projectId: ProjectId,
      principal: Principal,
      resourceId: string
    ) {
      yield* gate.open(projectId, principal, "read")
      return resourceView(yield* visibleResource(resourceId, yield* resources.find(projectId, resourceId)))
    })

    /**
     * Gives the resource back to its provider, then retires it (its fixed charge stops) and records a
     * succeeded release. With `onlyType`, a resource of another type is "not found" (the typed release
     * routes, like releaseImessageDedicatedLine).
     */
    const releaseResource = fn("Provisioning.releaseResource")(function*(
      projectId: ProjectId,
      principal: Principal,
      resourceId: string,
      onlyType?: ResourceType
    ) {
      yield* gate.open(projectId, principal, "write")
      const found = yield* resources.find(projectId, resourceId)
      if (Option.isNone(found) || found.value.state !== "active" || (onlyType !== undefined && found.value.type !== onlyType)) {
        return yield* new ResourceNotFound({ resourceId })
      }
      const r = found.value
      if (r.phoneNumber !== null && r.type === "sms_number") yield* numbers.release(r.phoneNumber)
      if (r.type === "telegram_bot" && typeof r.detail["botId"] === "string") yield* telegram.deleteBot(r.detail["botId"])
      if (r.type === "email_domain" && typeof r.detail["domain"] === "string") yield* email.remove(r.detail["domain"])
      yield* releaseWhatsapp(r)
      if (r.type === "imessage_line" && r.phoneNumber !== null) yield* imessagePool.releaseDedicated(r.phoneNumber)
      return yield* tx.withTransaction(Effect.gen(function*() {
        const retired = yield* resources.retire({ projectId, resourceId, now: yield* DateTime.now })
        if (Option.isNone(retired)) return yield* new ResourceNotFound({ resourceId })
        yield* priced.adjust(projectId, r.type, -1)
        return yield* finished({ projectId, type: "resource.release", resourceType: r.type, resourceId, changed: [retired.value] })
      }))
    })

    // SMS numbers ---------------------------------------------------------------------------------

    const provider = <A>(self: Effect.Effect<A, { readonly provider: string; readonly message: string }>) =>
      Effect.mapError(self, (e) => new PlatformProviderUnavailable({ provider: e.provider, message: e.message }))

    /** The platforms a project can use (the same for every project), to a caller who may see it. */
    const listPlatforms = fn("Provisioning.listPlatforms")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read", { cached: true })
      return supportedPlatforms
    })

    const listNumberCountries = fn("Provisioning.listNumberCountries")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read", { cached: true })
      return { countries: yield* provider(numbers.countries) }
    })

    const listNumberAreaCodes = fn("Provisioning.listNumberAreaCodes")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read", { cached: true })
      const areaCodes = [...new Set(yield* provider(numbers.areaCodes("US")))].sort()
      return { countryCode: "US" as const, areaCodes }
    })

    /** Buys one US local number: the operation runs until the provider has one (empty inventory keeps it running). */
    const purchaseSmsNumber = fn("Provisioning.purchaseSmsNumber")(function*(
      projectId: ProjectId,
      principal: Principal,
      body: { readonly countryCode: "US"; readonly areaCode?: string | undefined }
    ) {
      if (body.areaCode !== undefined) {
        const covered = yield* provider(numbers.areaCodes("US"))
        if (!covered.includes(body.areaCode)) {
          return yield* new InvalidPlatformRequest({ parameter: "areaCode", message: `area code ${body.areaCode} has no coverage` })
        }
      }
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write", { lock: true })
        return yield* submit({
          projectId,
          resourceType: "sms_number",
          params: { countryCode: "US", ...(body.areaCode === undefined ? {} : { areaCode: body.areaCode }) }
        })
      }))
    })

    // Telegram and email --------------------------------------------------------------------------

    /** Starts a managed Telegram bot; one unfinished per project. */
    const connectTelegramBot = fn("Provisioning.connectTelegramBot")(function*(projectId: ProjectId, principal: Principal) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write", { lock: true })
        const running = yield* ops.findUnfinished({ projectId, resourceType: "telegram_bot" })
        if (Option.isSome(running)) {
          return yield* new TelegramProvisionInProgress({ operationId: running.value.operationId, projectId })
        }
        return yield* submit({ projectId, resourceType: "telegram_bot", params: {} })
      }))
    })

    /** Reserves a (normalized) domain and starts its setup; one unfinished or live connection per domain. */
    const connectEmailDomain = fn("Provisioning.connectEmailDomain")(function*(
      projectId: ProjectId,
      principal: Principal,
      rawDomain: string
    ) {
      const domain = rawDomain.toLowerCase().replace(/\.$/, "")
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write", { lock: true })
        const pending = yield* ops.findUnfinished({ resourceType: "email_domain", subject: domain })
        const live = yield* resources.findActiveBySubject("email_domain", domain)
        if (Option.isSome(pending) || Option.isSome(live)) return yield* new EmailDomainAlreadyConnected({ domain })
        return yield* submit({ projectId, resourceType: "email_domain", params: { domain }, subject: domain })
      }))
    })

    return {
      listPlatforms,
      getOperation,
      listOperations,
      cancelOperation,
      listResources,
      getResource,
      releaseResource,
      listNumberCountries,
      listNumberAreaCodes,
      purchaseSmsNumber,
      connectTelegramBot,
      connectEmailDomain
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer, EventPublisher.layer]))
}
