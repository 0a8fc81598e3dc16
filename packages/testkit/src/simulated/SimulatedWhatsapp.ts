/**
 * The deterministic simulated `WhatsappProvider` (core's port), part of `makeSimulatedProviders`: the
 * standalone server ships it and tests use it. The shared settings make it slow (`delayMs`) or fail
 * (`fail`, on the provisioning calls: code exchange, sender registration, line allocation); its own
 * run the pools out (`sharedLines: 0` = the shared pool is exhausted, `dedicatedLines: 0` = no
 * dedicated capacity, so provisions keep running).
 *
 * Embedded Signup codes starting with `invalid` are refused (the operation fails); display names
 * starting with `taken` are unavailable; WABA ids starting with `broken` cannot list their numbers.
 * Numbers are fictional (`+1 628 555 01xx` dedicated lines, `+1 415 555 02xx` shared lines).
 */
import { ProviderFailure, type WhatsappPhoneNumberInfo, WhatsappProvider } from "@switchboard/core/platforms"
import { Effect, Layer, Option } from "effect"

export interface SimulatedWhatsappSettings {
  /** Lines in the shared pool (at most 100); 0 = exhausted. */
  readonly sharedLines: number
  /** Dedicated lines available (at most 100); 0 = no capacity. */
  readonly dedicatedLines: number
}

export const defaultSimulatedWhatsappSettings: SimulatedWhatsappSettings = { sharedLines: 3, dedicatedLines: 100 }

const pad2 = (n: number) => String(n).padStart(2, "0")
const digits = (s: string) => s.replace(/[^0-9]/g, "")

export const makeSimulatedWhatsapp = (
  base: { readonly delayMs: number; readonly fail: "never" | "transient" | "permanent" },
  settings: SimulatedWhatsappSettings = defaultSimulatedWhatsappSettings
): Layer.Layer<WhatsappProvider> =>
  Layer.sync(WhatsappProvider, () => {
    const numbersOf = new Map<string, Array<WhatsappPhoneNumberInfo>>()
    const freed: Array<string> = []
    let nextLine = 0
    const delay = base.delayMs > 0 ? Effect.sleep(base.delayMs) : Effect.void
    const guarded = <A>(what: string, body: () => Effect.Effect<A, ProviderFailure>) =>
      Effect.andThen(
        delay,
        Effect.suspend(() =>
          base.fail === "never"
            ? body()
            : Effect.fail(new ProviderFailure({
              provider: "whatsapp",
              retryable: base.fail === "transient",
              message: `the simulated whatsapp provider is set to fail (${what})`
            }))
        )
      )
    const addNumber = (wabaId: string, n: WhatsappPhoneNumberInfo) => {
      const list = (numbersOf.get(wabaId) ?? []).filter((x) => x.phoneNumberId !== n.phoneNumberId)
      numbersOf.set(wabaId, [...list, n])
    }
    return WhatsappProvider.of({
      exchangeCode: ({ code, phoneNumberId, wabaId }) =>
        guarded("code exchange", () => {
          if (code.startsWith("invalid")) {
            return Effect.fail(new ProviderFailure({ provider: "whatsapp", retryable: false, message: "the Embedded Signup code is not valid" }))
          }
          const last = digits(phoneNumberId).slice(-4).padStart(4, "0")
          const displayPhoneNumber = `+1 650-555-${last}`
          addNumber(wabaId, { phoneNumberId, displayPhoneNumber, verifiedName: `Business ${wabaId}` })
          return Effect.succeed({
            businessId: `biz_${wabaId}`,
            businessName: `Business ${wabaId}`,
            accountName: `WABA ${wabaId}`,
            reviewStatus: "APPROVED" as const,
            outboundCapacity: "1000" as const,
            maxPhoneNumbersPerBusiness: 20,
            displayPhoneNumber,
            verifiedName: `Business ${wabaId}`
          })
        }),
      subscribeApp: () => delay,
      unsubscribeApp: () => delay,
      displayNameAvailable: (displayName) => Effect.as(delay, !displayName.toLowerCase().startsWith("taken")),
      registerSender: ({ displayName, phoneNumber, wabaId }) =>
        guarded("sender registration", () => {
          const phoneNumberId = `sim_pn_${digits(phoneNumber)}`
          addNumber(wabaId, { phoneNumberId, displayPhoneNumber: phoneNumber, verifiedName: displayName })
          return Effect.succeed({ phoneNumberId })
        }),
      deregisterSender: ({ phoneNumberId, wabaId }) =>
        Effect.sync(() => void numbersOf.set(wabaId, (numbersOf.get(wabaId) ?? []).filter((n) => n.phoneNumberId !== phoneNumberId))),
      listPhoneNumbers: (wabaId) =>
        Effect.andThen(
          delay,
          wabaId.startsWith("broken")
            ? Effect.fail(new ProviderFailure({ provider: "whatsapp", retryable: true, message: "Meta did not answer the phone-number lookup" }))
            : Effect.sync(() => [...(numbersOf.get(wabaId) ?? [])])
        ),
      sharedLines: Effect.succeed(
        Array.from({ length: Math.max(0, Math.min(100, settings.sharedLines)) }, (_, i) => `+1415555${pad2(i).padStart(4, "02")}`)
      ),
      allocateDedicatedLine: () =>
        guarded("line allocation", () => {
          const again = freed.shift()
          if (again !== undefined) return Effect.succeed(Option.some({ phoneNumber: again }))
          if (nextLine >= Math.max(0, Math.min(100, settings.dedicatedLines))) return Effect.succeed(Option.none())
          const phoneNumber = `+1628555${pad2(nextLine).padStart(4, "01")}`
          nextLine += 1
          return Effect.succeed(Option.some({ phoneNumber }))
        }),
      releaseDedicatedLine: (phoneNumber) => Effect.sync(() => void (freed.includes(phoneNumber) ? undefined : freed.push(phoneNumber)))
    })
  })
