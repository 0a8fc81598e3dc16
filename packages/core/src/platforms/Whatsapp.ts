/**
 * WhatsApp provisioning for the /v1 API (docs/provisioning.md): the project's WhatsApp
 * settings and Embedded Signup configuration, its WhatsApp Business Account (one per project),
 * senders (a customer's Meta number through Embedded Signup, or one of the project's own lines),
 * dedicated lines, and the WhatsApp ownership codes its numbers receive.
 *
 * Connecting a sender and buying a dedicated line are provisions run by the operation worker
 * (`WhatsappSteps.ts`): the request checks, under the project row's lock, that nothing conflicts
 * (one live or unfinished sender per number), then stores a pending operation. Disconnecting the
 * WABA runs inline: the account is marked `disconnecting` (so a second disconnect is refused), the
 * provider deregisters every sender and unsubscribes the app, then one transaction retires the
 * senders, removes the connection and records a succeeded `whatsapp.account.disconnect`. If the
 * provider fails, the account is marked connected again; a process that dies in between leaves a
 * `disconnecting` mark that a new disconnect takes over after a minute (`WhatsappAccountMachine.ts`).
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { BillingRepo } from "../billing/Ports.js"
import type { Principal } from "../credentials/Access.js"
import { EventPublisher } from "../events/EventsFeature.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import type { OrganizationId, ProjectId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import { fn } from "../internal/Traced.js"
import { makeOperationRecords } from "./OperationRecords.js"
import { PlatformProviderUnavailable, ResourceNotFound } from "./PlatformErrors.js"
import { applyWaba, wabaStateOf } from "./WhatsappAccountMachine.js"
import { OperationsRepo, ResourcesRepo } from "./PlatformPorts.js"
import type { ResourceRecord } from "./PlatformSchema.js"
import { Provisioning } from "./Provisioning.js"
import {
  PlatformEntitlementRequired,
  WhatsappAccountDisconnecting,
  WhatsappAccountProvisioning,
  WhatsappDisplayNameUnavailable,
  WhatsappSenderConnected,
  WhatsappSenderProvisioning,
  WhatsappVerificationCodeNotFound,
  WhatsappVerificationWindowExpired,
  WhatsappVoipSourceNotEligible,
  WhatsappWabaNotConnected
} from "./WhatsappErrors.js"
import { VerificationCodesRepo, WhatsappAccountsRepo, WhatsappProvider, WhatsappSettings } from "./WhatsappPorts.js"
import type { ProjectPlatformSettings, WhatsappBusinessAccount, WhatsappAccountRecord } from "./WhatsappSchema.js"

/** How far back `receivedAfter` of the verification-code read may reach. */
export const VERIFICATION_WINDOW_MS = 120_000

const providerUnavailable = (e: { readonly provider: string; readonly message: string }) =>
  new PlatformProviderUnavailable({ provider: e.provider, message: e.message })

export const accountView = (a: WhatsappAccountRecord, senderCount: number): WhatsappBusinessAccount => ({
  wabaId: a.wabaId,
  businessId: a.businessId,
  businessName: a.businessName,
  accountName: a.accountName,
  alerts: [],
  connectedAt: a.connectedAt,
  ...(a.maxPhoneNumbersPerBusiness === null ? {} : { maxPhoneNumbersPerBusiness: a.maxPhoneNumbersPerBusiness }),
  outboundCapacity: a.outboundCapacity,
  restriction: null,
  reviewStatus: a.reviewStatus,
  senderCount,
  ...(a.subscribedAt === null ? {} : { subscribedAt: a.subscribedAt })
})

export class Whatsapp extends Context.Service<Whatsapp>()("core/Whatsapp", {
  make: Effect.gen(function*() {
    const accounts = yield* WhatsappAccountsRepo
    const resources = yield* ResourcesRepo
    const ops = yield* OperationsRepo
    const codes = yield* VerificationCodesRepo
    const provider = yield* WhatsappProvider
    const billing = yield* BillingRepo
    const tx = yield* Transactor
    const gate = yield* makeProjectGate
    const provisioning = yield* Provisioning
    const { finished, submit } = yield* makeOperationRecords

    /** A card on the organization's file, when the settings ask for one (402 otherwise). */
    const requirePaymentMethod = (organizationId: OrganizationId) =>
      Effect.gen(function*() {
        if (!(yield* WhatsappSettings).requirePaymentMethod) return
        const account = yield* billing.findAccount(organizationId)
        if (Option.isNone(account) || account.value.paymentMethod === null) {
          return yield* new PlatformEntitlementRequired({
            feature: "payment_method",
            message: "The organization needs a payment method on file before connecting WhatsApp."
          })
        }
      })

    const activeSenders = (projectId: string) =>
      resources.list({ projectId, type: "whatsapp_sender", states: ["active"], limit: 10_000 })

    const connected = (projectId: string) =>
      Effect.flatMap(accounts.find(projectId), (found) =>
        Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new WhatsappWabaNotConnected({ projectId })))

    /** One live or unfinished sender per number (`subject`). */
    const senderFree = (subject: string) =>
      Effect.gen(function*() {
        const live = yield* resources.findActiveBySubject("whatsapp_sender", subject)
        if (Option.isSome(live)) return yield* new WhatsappSenderConnected({ resourceId: live.value.resourceId })
        const running = yield* ops.findUnfinished({ resourceType: "whatsapp_sender", subject })
        if (Option.isSome(running)) return yield* new WhatsappSenderProvisioning({ operationId: running.value.operationId })
      })

    const platformSettings = fn("Whatsapp.platformSettings")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read", { cached: true })
      const s = yield* WhatsappSettings
      return (s.mode === "dedicated" ? { mode: "dedicated" } : { mode: "shared", maxUserAssignments: s.maxUserAssignments }) as ProjectPlatformSettings
    })

    const signupConfig = fn("Whatsapp.signupConfig")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read", { cached: true })
      const s = yield* WhatsappSettings
      return { configId: s.signupConfigId, graphVersion: s.graphVersion, scopes: s.scopes }
    })

    const getAccount = fn("Whatsapp.getAccount")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read")
      const account = yield* connected(projectId)
      return accountView(account, (yield* activeSenders(projectId)).length)
    })

    /** The WABA's numbers as Meta lists them, marked `photon` when the project holds the number. */
    const listAccountPhoneNumbers = fn("Whatsapp.listAccountPhoneNumbers")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read")
      const account = yield* connected(projectId)
      const numbers = yield* Effect.mapError(provider.listPhoneNumbers(account.wabaId), providerUnavailable)
      const senders = yield* activeSenders(projectId)
      return {
        phoneNumbers: numbers.map((n) => {
          const sender = senders.find((r) => r.detail["phoneNumberId"] === n.phoneNumberId)
          const own = sender !== undefined && sender.detail["ownership"] === "photon"
          return {
            phoneNumberId: n.phoneNumberId,
            displayPhoneNumber: n.displayPhoneNumber,
            verifiedName: n.verifiedName,
            ownership: own ? "photon" as const : "meta" as const,
            ...(sender === undefined ? {} : { resourceId: sender.resourceId })
          }
        })
      }
    })

    /** Embedded Signup: connects one of the customer's Meta numbers as a sender (a provision). */
    const connectBusiness = fn("Whatsapp.connectBusiness")(function*(
      projectId: ProjectId,
      principal: Principal,
      body: { readonly code: string; readonly phoneNumberId: string; readonly wabaId: string }
    ) {
      const project = yield* gate.open(projectId, principal, "write")
      yield* requirePaymentMethod(project.organizationId)
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write", { lock: true })
        const subject = `${projectId}:meta:${body.phoneNumberId}`
        yield* senderFree(subject)
        return yield* submit({
          projectId,
          resourceType: "whatsapp_sender",
          params: { kind: "meta", code: body.code, wabaId: body.wabaId, phoneNumberId: body.phoneNumberId, subject },
          subject
        })
      }))
    })

    /** Registers an active SMS-capable line of the project as a sender on its connected WABA (a provision). */
    const createVoipSender = fn("Whatsapp.createVoipSender")(function*(
      projectId: ProjectId,
      principal: Principal,
      body: { readonly voipResourceId: string; readonly displayName?: string | undefined }
    ) {
      const project = yield* gate.open(projectId, principal, "write")
      yield* requirePaymentMethod(project.organizationId)
      if (body.displayName !== undefined) {
        const free = yield* Effect.mapError(provider.displayNameAvailable(body.displayName), providerUnavailable)
        if (!free) return yield* new WhatsappDisplayNameUnavailable({ displayName: body.displayName })
      }
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write", { lock: true })
        const account = yield* connected(projectId)
        if (wabaStateOf(account)._tag === "Disconnecting") return yield* new WhatsappAccountDisconnecting({ projectId })
        const voip = yield* resources.find(projectId, body.voipResourceId)
        if (Option.isNone(voip) || !eligibleVoip(voip.value)) {
          return yield* new WhatsappVoipSourceNotEligible({ resourceId: body.voipResourceId })
        }
        const subject = `${projectId}:voip:${body.voipResourceId}`
        yield* senderFree(subject)
        return yield* submit({
          projectId,
          resourceType: "whatsapp_sender",
          params: { kind: "voip", voipResourceId: body.voipResourceId, displayName: body.displayName ?? project.name, subject },
          subject
        })
      }))
    })

    /** Disconnects every sender, unsubscribes the app and removes the WABA connection (inline, 200). */
    const disconnectAccount = fn("Whatsapp.disconnectAccount")(function*(projectId: ProjectId, principal: Principal) {
      const account = yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write", { lock: true })
        const account = yield* connected(projectId)
        const now = yield* DateTime.now
        const t = applyWaba(wabaStateOf(account), { _tag: "DisconnectRequested", at: DateTime.toEpochMillis(now) })
        if (t._tag === "Rejected") return yield* new WhatsappAccountDisconnecting({ projectId })
        const running = yield* ops.findUnfinished({ projectId, resourceType: "whatsapp_sender" })
        if (Option.isSome(running)) return yield* new WhatsappAccountProvisioning({ projectId, operationId: running.value.operationId })
        yield* accounts.upsert({ ...account, state: "disconnecting", updatedAt: now })
        return account
      }))
      const senders = yield* activeSenders(projectId)
      yield* Effect.forEach(senders, (r) =>
        provider.deregisterSender({ wabaId: account.wabaId, phoneNumberId: String(r.detail["phoneNumberId"] ?? "") }), { discard: true }).pipe(
        Effect.andThen(provider.unsubscribeApp(account.wabaId)),
        Effect.tapError(() =>
          Effect.flatMap(DateTime.now, (now) => accounts.upsert({ ...account, state: "connected", updatedAt: now }))),
        Effect.mapError(providerUnavailable)
      )
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "read", { lock: true })
        const now = yield* DateTime.now
        const retired = yield* Effect.forEach(senders, (r) => resources.retire({ projectId, resourceId: r.resourceId, now }))
        yield* accounts.remove(projectId)
        return yield* finished({
          projectId,
          type: "whatsapp.account.disconnect",
          resourceType: "whatsapp_sender",
          changed: retired.flatMap(Option.toArray)
        })
      }))
    })

    /** The newest WhatsApp ownership code a held number received after `receivedAfter` (within 2 minutes). */
    const verificationCode = fn("Whatsapp.verificationCode")(function*(
      projectId: ProjectId,
      principal: Principal,
      resourceId: string,
      receivedAfter: DateTime.Utc
    ) {
      yield* gate.open(projectId, principal, "read")
      const found = yield* resources.find(projectId, resourceId)
      if (Option.isNone(found) || found.value.state !== "active") return yield* new ResourceNotFound({ resourceId })
      const now = yield* DateTime.now
      if (DateTime.toEpochMillis(receivedAfter) < DateTime.toEpochMillis(now) - VERIFICATION_WINDOW_MS || DateTime.toEpochMillis(receivedAfter) > DateTime.toEpochMillis(now)) {
        return yield* new WhatsappVerificationWindowExpired({ receivedAfter: DateTime.formatIso(receivedAfter) })
      }
      const latest = yield* codes.latestWhatsappCode({ projectId, resourceId, after: receivedAfter })
      if (Option.isNone(latest)) return yield* new WhatsappVerificationCodeNotFound({ resourceId })
      return latest.value
    })

    /** Starts a provision of one dedicated WhatsApp line (always 202; waits while there is no capacity). */
    const provisionDedicatedLine = fn("Whatsapp.provisionDedicatedLine")(function*(projectId: ProjectId, principal: Principal) {
      const project = yield* gate.open(projectId, principal, "write")
      if (!(yield* WhatsappSettings).dedicatedLines) {
        return yield* new PlatformEntitlementRequired({
          feature: "whatsapp_dedicated_lines.can_purchase",
          message: "The project's plan does not include dedicated WhatsApp lines."
        })
      }
      yield* requirePaymentMethod(project.organizationId)
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write", { lock: true })
        return yield* submit({ projectId, resourceType: "whatsapp_line", params: {} })
      }))
    })

    /** Gives a dedicated WhatsApp line back (200 with a succeeded `resource.release`). */
    const releaseDedicatedLine = fn("Whatsapp.releaseDedicatedLine")(function*(
      projectId: ProjectId,
      principal: Principal,
      resourceId: string
    ) {
      yield* gate.open(projectId, principal, "write")
      const found = yield* resources.find(projectId, resourceId)
      if (Option.isNone(found) || found.value.type !== "whatsapp_line") return yield* new ResourceNotFound({ resourceId })
      return yield* provisioning.releaseResource(projectId, principal, resourceId)
    })

    return {
      platformSettings,
      signupConfig,
      getAccount,
      listAccountPhoneNumbers,
      connectBusiness,
      createVoipSender,
      disconnectAccount,
      verificationCode,
      provisionDedicatedLine,
      releaseDedicatedLine
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Provisioning.layer, Ids.layer, EventPublisher.layer]))
}

/** A line that can carry a WhatsApp sender: active, with a number, able to receive SMS (the ownership code). */
export const eligibleVoip = (r: ResourceRecord): boolean =>
  r.state === "active" && r.phoneNumber !== null && r.abilities.includes("sms")
