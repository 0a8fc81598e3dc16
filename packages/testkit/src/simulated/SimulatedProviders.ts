/**
 * Deterministic simulated providers for every provisioning port of core: the standalone server
 * ships them, and tests use them. Settings make them slow (`delayMs`), fail (`fail`: transient
 * failures are retried by the worker, permanent ones fail the operation) or run out of capacity
 * (`numbersPerAreaCode`: 0 = an empty inventory, so number purchases keep running).
 *
 * Numbers are fictional: `+1 NPA 555 01xx` (the block North American numbering reserves for
 * fiction), handed out in order per area code, released ones first. Bots are `sb_sim_bot_<n>`;
 * email domains verify after `emailVerifyAfterChecks` checks. State is per process; a number held
 * elsewhere (another process, the voice line provider) is refused by the store's unique index and
 * the worker simply buys the next one.
 *
 * 10DLC campaigns are named by their id: `missing…` does not exist, `pending…` is not approved,
 * `foreign…` belongs to another organization, `full…` has no capacity; any other id is a ready
 * campaign of the caller's organization taking `campaignCapacity` numbers.
 */
import {
  CampaignRegistry,
  type DnsRecord,
  EmailDomainProvider,
  NumberProvider,
  ProviderFailure,
  TelegramProvider,
  type WhatsappProvider
} from "@switchboard/core/platforms"
import { Effect, Layer, Option } from "effect"
import { defaultSimulatedWhatsappSettings, makeSimulatedWhatsapp, type SimulatedWhatsappSettings } from "./SimulatedWhatsapp.js"

export interface SimulatedProviderSettings {
  /** Every provider call takes this long. */
  readonly delayMs: number
  /** `transient`: every provisioning call fails and is retried; `permanent`: it fails the operation. */
  readonly fail: "never" | "transient" | "permanent"
  /** Numbers per area code (at most 100); 0 empties the inventory. */
  readonly numbersPerAreaCode: number
  readonly areaCodes: ReadonlyArray<string>
  /** Verification checks an email domain needs before it verifies (0 = at once). */
  readonly emailVerifyAfterChecks: number
  /** Numbers one simulated 10DLC campaign takes. */
  readonly campaignCapacity: number
  /** The simulated WhatsApp pools (`SimulatedWhatsapp.ts`). */
  readonly whatsapp?: SimulatedWhatsappSettings
}

export const defaultSimulatedProviderSettings: SimulatedProviderSettings = {
  delayMs: 0,
  fail: "never",
  numbersPerAreaCode: 100,
  // High area codes: the voice feature's simulated line provider counts up from 201 (core's voice/Lines.ts).
  areaCodes: ["617", "646", "702", "718", "720", "786", "818", "917", "929", "978"],
  emailVerifyAfterChecks: 1,
  campaignCapacity: 2
}

export const simulatedSmsNumber = (areaCode: string, n: number): string => `+1${areaCode}55501${String(n).padStart(2, "0")}`

export const makeSimulatedProviders = (
  settings: SimulatedProviderSettings = defaultSimulatedProviderSettings
): Layer.Layer<NumberProvider | TelegramProvider | EmailDomainProvider | CampaignRegistry | WhatsappProvider> =>
  Layer.sync(NumberProvider, () => {
    const next = new Map<string, number>()
    const free = new Map<string, Array<string>>()
    const areaCodes = [...new Set(settings.areaCodes)].sort()
    const capacity = Math.max(0, Math.min(100, settings.numbersPerAreaCode))
    const take = (areaCode: string): string | undefined => {
      const released = free.get(areaCode)
      if (released !== undefined && released.length > 0) return released.shift()
      const n = next.get(areaCode) ?? 0
      if (n >= capacity) return undefined
      next.set(areaCode, n + 1)
      return simulatedSmsNumber(areaCode, n)
    }
    return NumberProvider.of({
      countries: Effect.succeed([{ countryCode: "US", callingCode: "+1", displayName: "United States" }]),
      areaCodes: () => Effect.succeed(areaCodes),
      purchase: ({ areaCode }) =>
        Effect.andThen(
          delay(settings),
          Effect.suspend(() => {
            const failed = failure(settings, "numbers")
            if (failed !== undefined) return Effect.fail(failed)
            const candidates = areaCode === undefined ? areaCodes : areaCodes.filter((a) => a === areaCode)
            for (const a of candidates) {
              const phoneNumber = take(a)
              if (phoneNumber !== undefined) return Effect.succeed(Option.some({ phoneNumber }))
            }
            return Effect.succeed(Option.none())
          })
        ),
      release: (phoneNumber) =>
        Effect.sync(() => {
          const areaCode = phoneNumber.slice(2, 5)
          if (!areaCodes.includes(areaCode)) return
          const list = free.get(areaCode) ?? []
          if (!list.includes(phoneNumber)) list.push(phoneNumber)
          free.set(areaCode, list)
        })
    })
  }).pipe(Layer.merge(Layer.sync(TelegramProvider, () => {
    let n = 0
    return TelegramProvider.of({
      createBot: ({ operationId }) =>
        Effect.andThen(
          delay(settings),
          Effect.suspend(() => {
            const failed = failure(settings, "telegram")
            if (failed !== undefined) return Effect.fail(failed)
            n += 1
            return Effect.succeed({
              botId: `sb_sim_bot_${n}`,
              username: `switchboard_sim_${n}_bot`,
              setupUrl: `https://t.me/switchboard_sim_${n}_bot?start=${operationId}`
            })
          })
        ),
      deleteBot: () => Effect.void
    })
  })), Layer.merge(Layer.sync(EmailDomainProvider, () => {
    const checks = new Map<string, number>()
    return EmailDomainProvider.of({
      register: (domain) =>
        Effect.andThen(
          delay(settings),
          Effect.suspend(() => {
            const failed = failure(settings, "email")
            if (failed !== undefined) return Effect.fail(failed)
            checks.set(domain, 0)
            return Effect.succeed(dnsRecordsFor(domain))
          })
        ),
      verify: (domain) =>
        Effect.andThen(
          delay(settings),
          Effect.sync(() => {
            const seen = (checks.get(domain) ?? 0) + 1
            checks.set(domain, seen)
            return seen > settings.emailVerifyAfterChecks
          })
        ),
      remove: (domain) => Effect.sync(() => void checks.delete(domain))
    })
  })), Layer.merge(Layer.sync(CampaignRegistry, () => {
    const attached = new Map<string, Set<string>>()
    const capacityOf = (campaignId: string) => (campaignId.startsWith("full") ? 0 : settings.campaignCapacity)
    return CampaignRegistry.of({
      find: ({ campaignId, organizationId }) =>
        Effect.andThen(
          delay(settings),
          Effect.succeed(
            campaignId.startsWith("missing") ? Option.none() : Option.some({
              campaignId,
              organizationId: campaignId.startsWith("foreign") ? "another-organization" : organizationId,
              status: campaignId.startsWith("pending") ? "pending" as const : "ready" as const,
              capacity: capacityOf(campaignId)
            })
          )
        ),
      attach: ({ campaignId, phoneNumber }) =>
        Effect.andThen(
          delay(settings),
          Effect.suspend(() => {
            const failed = failure(settings, "campaigns")
            if (failed !== undefined) return Effect.fail(failed)
            const set = attached.get(campaignId) ?? new Set<string>()
            if (!set.has(phoneNumber) && set.size >= capacityOf(campaignId)) return Effect.succeed(false)
            set.add(phoneNumber)
            attached.set(campaignId, set)
            return Effect.succeed(true)
          })
        ),
      detach: ({ campaignId, phoneNumber }) => Effect.sync(() => void attached.get(campaignId)?.delete(phoneNumber))
    })
  })), Layer.merge(makeSimulatedWhatsapp(settings, settings.whatsapp ?? defaultSimulatedWhatsappSettings)))

/** The records a simulated email domain asks for (deterministic per domain). */
export const dnsRecordsFor = (domain: string): ReadonlyArray<DnsRecord> => [
  { type: "TXT", name: `_switchboard.${domain}`, value: `switchboard-verification=${domain.length}${domain.replace(/[^a-z0-9]/g, "")}` },
  { type: "CNAME", name: `sb1._domainkey.${domain}`, value: "sb1.dkim.switchboard.invalid" },
  { type: "MX", name: domain, value: "10 inbound.switchboard.invalid" }
]

const delay = (s: SimulatedProviderSettings) => (s.delayMs > 0 ? Effect.sleep(s.delayMs) : Effect.void)

const failure = (s: SimulatedProviderSettings, provider: string): ProviderFailure | undefined =>
  s.fail === "never"
    ? undefined
    : new ProviderFailure({ provider, retryable: s.fail === "transient", message: `the simulated ${provider} provider is set to fail` })
