/**
 * The operation worker's WhatsApp steps (docs/provisioning.md), called by `ProvisioningWorker`
 * outside any transaction for `whatsapp_sender` and `whatsapp_line` provisions:
 *
 * - a Meta number (`connectWhatsappBusiness`): exchange the Embedded Signup code, check the WABA is
 *   the project's (or the project has none yet), subscribe the app; the commit stores the sender
 *   and the project's WABA connection in one transaction;
 * - one of the project's own lines (`createWhatsappVoipSender`): register it on the connected WABA;
 * - a dedicated line (`provisionWhatsappDedicatedLine`): take one from the provider's capacity (none
 *   keeps the operation running, tried again later).
 */
import { DateTime, Effect, Option } from "effect"
import { IdKinds } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { type ProviderFailure, ResourcesRepo } from "./PlatformPorts.js"
import { PlatformProviderUnavailable } from "./PlatformErrors.js"
import type { OperationRecord, ResourceRecord } from "./PlatformSchema.js"
import type { ProvisioningOutcome } from "./ProvisioningOutcome.js"
import { applyWaba, wabaStateOf } from "./WhatsappAccountMachine.js"
import { WhatsappAccountsRepo, WhatsappProvider } from "./WhatsappPorts.js"

const str = (v: unknown): string => (typeof v === "string" ? v : "")

export const makeWhatsappSteps = Effect.gen(function*() {
  const provider = yield* WhatsappProvider
  const accounts = yield* WhatsappAccountsRepo
  const resources = yield* ResourcesRepo
  const ids = yield* Ids

  const failedBy = (e: ProviderFailure): ProvisioningOutcome =>
    e.retryable ? { _tag: "Retry", message: e.message } : { _tag: "Fail", code: "provider_failed", detail: e.message }
  const fail = (code: string, detail: string): ProvisioningOutcome => ({ _tag: "Fail", code, detail })
  const healthy = { whatsappHealth: { overallStatus: "available" } }

  /** A new sender resource (a number on the WABA; not a line: its number is in the detail). */
  const sender = (op: OperationRecord, now: DateTime.Utc, detail: Record<string, unknown>) =>
    Effect.map(ids.typeId(IdKinds.resource), (resourceId): ResourceRecord & { readonly subject: string } => ({
      resourceId,
      projectId: op.projectId,
      type: "whatsapp_sender",
      abilities: ["whatsapp"],
      phoneNumber: null,
      subject: str(op.params["subject"]),
      state: "active",
      detail: { ...detail, ...healthy },
      createdAt: now,
      updatedAt: now,
      retiredAt: null
    }))

  const metaSender = (op: OperationRecord, now: DateTime.Utc) =>
    Effect.gen(function*() {
      const wabaId = str(op.params["wabaId"])
      const phoneNumberId = str(op.params["phoneNumberId"])
      const info = yield* provider.exchangeCode({ code: str(op.params["code"]), wabaId, phoneNumberId })
      const existing = yield* accounts.find(op.projectId)
      const t = applyWaba(wabaStateOf(Option.getOrUndefined(existing)), { _tag: "SenderConnected", wabaId })
      if (t._tag === "Rejected") {
        return t.reason === "waba_mismatch"
          ? fail("waba_mismatch", `the project is connected to another WhatsApp Business Account`)
          : fail("waba_disconnecting", "the project's WhatsApp Business Account is being disconnected")
      }
      yield* provider.subscribeApp(wabaId)
      return {
        _tag: "Done",
        resource: yield* sender(op, now, {
          wabaId,
          phoneNumberId,
          phoneNumber: info.displayPhoneNumber,
          displayName: info.verifiedName,
          ownership: "meta"
        }),
        undo: Effect.void,
        // In the commit's transaction: the project's WABA connection (kept if it is this WABA).
        commit: Effect.flatMap(accounts.find(op.projectId), (current) =>
          applyWaba(wabaStateOf(Option.getOrUndefined(current)), { _tag: "SenderConnected", wabaId })._tag === "Rejected"
            ? Effect.void
            : accounts.upsert({
              projectId: op.projectId,
              wabaId,
              businessId: info.businessId,
              businessName: info.businessName,
              accountName: info.accountName,
              reviewStatus: info.reviewStatus,
              outboundCapacity: info.outboundCapacity,
              maxPhoneNumbersPerBusiness: info.maxPhoneNumbersPerBusiness,
              state: "connected",
              connectedAt: Option.isSome(current) ? current.value.connectedAt : now,
              subscribedAt: Option.isSome(current) ? current.value.subscribedAt ?? now : now,
              updatedAt: now
            }))
      } satisfies ProvisioningOutcome
    })

  const voipSender = (op: OperationRecord, now: DateTime.Utc) =>
    Effect.gen(function*() {
      const account = yield* accounts.find(op.projectId)
      if (Option.isNone(account) || account.value.state !== "connected") {
        return fail("waba_not_connected", "the project's WhatsApp Business Account is not connected")
      }
      const voipResourceId = str(op.params["voipResourceId"])
      const voip = yield* resources.find(op.projectId, voipResourceId)
      if (Option.isNone(voip) || voip.value.state !== "active" || voip.value.phoneNumber === null) {
        return fail("voip_source_released", `${voipResourceId} is no longer held by the project`)
      }
      const phoneNumber = voip.value.phoneNumber
      const displayName = str(op.params["displayName"])
      const wabaId = account.value.wabaId
      const { phoneNumberId } = yield* provider.registerSender({ wabaId, phoneNumber, displayName })
      return {
        _tag: "Done",
        resource: yield* sender(op, now, { wabaId, phoneNumberId, phoneNumber, displayName, ownership: "photon", voipResourceId }),
        undo: Effect.ignore(provider.deregisterSender({ wabaId, phoneNumberId }))
      } satisfies ProvisioningOutcome
    })

  const dedicatedLine = (op: OperationRecord, now: DateTime.Utc) =>
    Effect.gen(function*() {
      const line = yield* provider.allocateDedicatedLine({ projectId: op.projectId, operationId: op.operationId })
      if (Option.isNone(line)) return { _tag: "Wait", detail: { waitingFor: "capacity" } } satisfies ProvisioningOutcome
      const { phoneNumber } = line.value
      return {
        _tag: "Done",
        resource: {
          resourceId: yield* ids.typeId(IdKinds.line),
          projectId: op.projectId,
          type: "whatsapp_line",
          abilities: ["whatsapp", "pstn_voice"],
          phoneNumber,
          state: "active",
          detail: { phoneNumber, ...healthy },
          createdAt: now,
          updatedAt: now,
          retiredAt: null
        },
        detail: { waitingFor: null },
        undo: provider.releaseDedicatedLine(phoneNumber)
      } satisfies ProvisioningOutcome
    })

  /** The provider's answer for one claimed WhatsApp provision. */
  const step = (op: OperationRecord, now: DateTime.Utc): Effect.Effect<ProvisioningOutcome> => {
    const run: Effect.Effect<ProvisioningOutcome, ProviderFailure> = op.resourceType === "whatsapp_line"
      ? dedicatedLine(op, now)
      : op.params["kind"] === "voip"
      ? voipSender(op, now)
      : metaSender(op, now)
    return Effect.catchTag(run, "ProviderFailure", (e) => Effect.succeed(failedBy(e)))
  }

  return { step } as const
})

/** Gives a WhatsApp resource back to the provider before `releaseResource` retires it (others: nothing). */
export const makeWhatsappRelease = Effect.map(WhatsappProvider, (provider) => (r: ResourceRecord) => {
  if (r.type === "whatsapp_line" && r.phoneNumber !== null) return provider.releaseDedicatedLine(r.phoneNumber)
  if (r.type === "whatsapp_sender") {
    return provider.deregisterSender({ wabaId: str(r.detail["wabaId"]), phoneNumberId: str(r.detail["phoneNumberId"]) }).pipe(
      Effect.mapError((e) => new PlatformProviderUnavailable({ provider: e.provider, message: e.message }))
    )
  }
  return Effect.void
})
