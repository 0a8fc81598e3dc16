/** What the /v1 WhatsApp suites share: switchable WhatsApp settings and pools, a card on file, inbound messages. */
import { BillingRepo } from "@switchboard/core/billing"
import {
  VerificationCodes,
  WhatsappProvider,
  WhatsappSettings
} from "@switchboard/core/platforms"
import { makeSimulatedWhatsapp } from "@switchboard/testkit/simulated"
import { ProjectsRepo } from "@switchboard/core/projects"
import { type ProjectId, Transactor } from "@switchboard/core/shared"
import { DateTime, Effect, Layer, Option } from "effect"
import { platformTestAdapters } from "./PlatformsHttp.js"
import type { TestServer } from "./TestServer.js"

/** The server's WhatsApp settings: tests change the fields (the server reads them on every request). */
export const whatsappSwitches = { ...WhatsappSettings.defaultValue() } as { -readonly [K in keyof typeof WhatsappSettings.Service]: (typeof WhatsappSettings.Service)[K] }
/** Switches of the test's WhatsApp provider (over core's simulated one). */
export const whatsappPools = { sharedEmpty: false, noCapacity: false }

export const whatsappTestAdapters = () => {
  const simulated = makeSimulatedWhatsapp({ delayMs: 0, fail: "never" })
  const switchable = Layer.effect(
    WhatsappProvider,
    Effect.map(WhatsappProvider, (p) =>
      WhatsappProvider.of({
        ...p,
        sharedLines: Effect.suspend(() => (whatsappPools.sharedEmpty ? Effect.succeed([]) : p.sharedLines)),
        allocateDedicatedLine: (a) => (whatsappPools.noCapacity ? Effect.succeed(Option.none()) : p.allocateDedicatedLine(a))
      }))
  ).pipe(Layer.provide(simulated))
  return Layer.mergeAll(platformTestAdapters(), switchable, Layer.succeed(WhatsappSettings, whatsappSwitches))
}

/** Puts a card on the file of the project's organization. */
export const giveCard = (s: TestServer, projectId: string) =>
  s.run(Effect.gen(function*() {
    const project = Option.getOrThrow(yield* (yield* ProjectsRepo).findById(projectId as ProjectId))
    const billing = yield* BillingRepo
    yield* (yield* Transactor).withTransaction(Effect.gen(function*() {
      const account = yield* billing.lockAccount(project.organizationId)
      yield* billing.updateAccount({
        ...account,
        paymentMethod: { brand: "visa", last4: "4242", expiresMonth: 12, expiresYear: 2040, behaviour: "off_session", providerRef: "pm_test" }
      })
    }))
  }))

/** An inbound message on one of the project's resources, through the filtered-code pipeline. */
export const inbound = (s: TestServer, projectId: string, resourceId: string, body: string, platform = "sms", receivedAt?: number) =>
  s.run(Effect.flatMap(VerificationCodes, (v) =>
    v.recordInbound({
      projectId,
      resourceId,
      platform,
      body,
      receivedAt: receivedAt === undefined ? undefined : DateTime.makeUnsafe(receivedAt) as DateTime.Utc
    })))
