/**
 * The Billing feature's adapters for the standalone server (docs/api-notes/billing.md):
 *
 * - the plan catalog, read once at start from `PLANS_FILE` (default: `plans/sample.json` shipped
 *   with this package, found relative to this module so the working directory does not matter)
 *   and validated (`validateCatalog`); an unreadable or invalid catalog fails the layer with a
 *   `BillingCatalogInvalid` whose message says which file and why — the server refuses to start;
 * - a simulated `PaymentProvider`: cards are added on a local checkout page
 *   (`/billing/checkout/<token>`, routes/BillingRoutes.ts) — a card that charges off-session, one
 *   that needs the customer (each payment is authorised on `/billing/payments/<token>`), one that is
 *   declined; no card at all is the third state. Tokens are HMACs under the server secret, so any
 *   server process can serve the pages. Tests can script the next outcomes (`SimulatedPayments`).
 */
import {
  BillingCatalog,
  BillingCatalogInvalid,
  type ChargeOutcome,
  PaymentProvider,
  validateCatalog
} from "@switchboard/core/billing"
import { base64url, constantTimeEqual } from "@switchboard/core/internal"
import { mac, ServerSecret } from "@switchboard/core/shared"
import { Context, DateTime, Duration, Effect, Result, Layer, Option, Ref } from "effect"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { fileURLToPath } from "node:url"
import type { ServerConfigShape } from "../http/ServerConfig.js"

/** The sample catalog that ships with the server (the default PLANS_FILE). */
export const SAMPLE_PLANS_FILE = fileURLToPath(new URL("../../plans/sample.json", import.meta.url))

/** Reads and validates a catalog file. */
export const loadCatalog = (file: string) =>
  Effect.suspend(() => {
    const path = resolve(file)
    let text: string
    try {
      text = readFileSync(path, "utf8")
    } catch (e) {
      return Effect.fail(new BillingCatalogInvalid({
        source: path,
        message: `PLANS_FILE ${path} cannot be read: ${(e as Error).message}`
      }))
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (e) {
      return Effect.fail(new BillingCatalogInvalid({ source: path, message: `PLANS_FILE ${path} is not valid JSON: ${(e as Error).message}` }))
    }
    return Result.match(validateCatalog(json), {
      onFailure: (reason) => Effect.fail(new BillingCatalogInvalid({ source: path, message: `PLANS_FILE ${path} is not a valid plan catalog: ${reason}` })),
      onSuccess: (catalog) => Effect.succeed(catalog)
    })
  })

export const BillingCatalogFromFile = (file: string) =>
  Layer.effect(BillingCatalog, Effect.map(loadCatalog(file), (catalog) => ({ catalog })))

// ---------------------------------------------------------------------------------------------
// Signed page tokens of the simulated provider
// ---------------------------------------------------------------------------------------------

/** An HMAC under the server secret, truncated to 128 bits (22 base64url characters). */
const tokenMac = (kind: string, payload: string) =>
  Effect.map(mac(`billing-simulated:${kind}`, payload), (bytes) => base64url(bytes.slice(0, 16)))

/**
 * `<subject>.<expiry, base 36 ms>.<mac>`: what a page is for (an organization, or an operation's
 * payment) and until when. Short enough for a path segment (the router caps them at 100 characters).
 */
export const signPageToken = (kind: "checkout" | "payment", subject: string, expiresAt: DateTime.Utc) =>
  Effect.gen(function*() {
    const payload = `${subject}.${DateTime.toEpochMillis(expiresAt).toString(36)}`
    return `${payload}.${yield* tokenMac(kind, payload)}`
  })

/** The subject of a valid, unexpired token of `kind`; none otherwise. */
export const verifyPageToken = (kind: "checkout" | "payment", token: string) =>
  Effect.gen(function*() {
    const match = /^([a-z0-9_]{1,64})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{22})$/.exec(token)
    if (match === null) return Option.none<string>()
    const [, subject, expiry, signature] = match as unknown as [string, string, string, string]
    if (!constantTimeEqual(yield* tokenMac(kind, `${subject}.${expiry}`), signature)) return Option.none<string>()
    const now = yield* DateTime.now
    return parseInt(expiry, 36) > DateTime.toEpochMillis(now) ? Option.some(subject) : Option.none<string>()
  })

/** The CSRF token of a page: bound to its URL token. */
export const csrfOf = (token: string) => tokenMac("csrf", token)

// ---------------------------------------------------------------------------------------------
// The simulated provider
// ---------------------------------------------------------------------------------------------

/** The test cards of the checkout page. */
export const simulatedCards = {
  "4242424242424242": { brand: "visa", last4: "4242", behaviour: "off_session", providerRef: "pm_sim_charges", label: "charges without the customer" },
  "4000002760003184": { brand: "visa", last4: "3184", behaviour: "requires_action", providerRef: "pm_sim_requires_action", label: "needs the customer to authorise each payment" },
  "4000000000000002": { brand: "visa", last4: "0002", behaviour: "off_session", providerRef: "pm_sim_declines", label: "is declined" }
} as const

/** Scripts the simulated provider's next charge outcomes (tests). */
export class SimulatedPayments extends Context.Service<SimulatedPayments, {
  readonly script: (...outcomes: ReadonlyArray<ChargeOutcome>) => Effect.Effect<void>
}>()("http/SimulatedPayments") {}

const CHECKOUT_TTL = Duration.hours(1)

export const SimulatedPaymentProvider = (config: ServerConfigShape): Layer.Layer<PaymentProvider | SimulatedPayments, never, ServerSecret> =>
  Layer.unwrap(Effect.gen(function*() {
    const secret = yield* ServerSecret
    const withSecret = Effect.provideService(ServerSecret, secret)
    const queue = yield* Ref.make<ReadonlyArray<ChargeOutcome>>([])
    const provider = PaymentProvider.of({
      createCheckout: ({ organizationId }) =>
        withSecret(Effect.gen(function*() {
          const expiresAt = DateTime.addDuration(yield* DateTime.now, CHECKOUT_TTL)
          return { checkoutUrl: `${config.dashboardUrl}/billing/checkout/${yield* signPageToken("checkout", organizationId, expiresAt)}` }
        })),
      createSetupIntent: ({ organizationId }) =>
        withSecret(Effect.gen(function*() {
          const expiresAt = DateTime.addDuration(yield* DateTime.now, CHECKOUT_TTL)
          const token = yield* signPageToken("checkout", organizationId, expiresAt)
          return { clientSecret: `seti_sim_${token}`, publishableKey: "pk_test_switchboard_simulated" }
        })),
      charge: (args) =>
        withSecret(Effect.gen(function*() {
          const scripted = yield* Ref.modify(queue, (q) => [q[0], q.slice(1)] as const)
          if (scripted !== undefined) return scripted
          if (args.paymentMethod.providerRef === simulatedCards["4000000000000002"].providerRef) {
            return { _tag: "Declined", reason: "card_declined" } satisfies ChargeOutcome
          }
          if (args.paymentMethod.behaviour === "requires_action") {
            const token = yield* signPageToken("payment", args.reference, args.expiresAt)
            return { _tag: "RequiresAction", actionUrl: `${config.dashboardUrl}/billing/payments/${token}` } satisfies ChargeOutcome
          }
          return { _tag: "Succeeded" } satisfies ChargeOutcome
        })),
      // Nothing is held at the simulated provider: the payment page asks core for the operation's state.
      cancel: () => Effect.void
    })
    return Layer.mergeAll(
      Layer.succeed(PaymentProvider, provider),
      Layer.succeed(SimulatedPayments, { script: (...outcomes) => Ref.update(queue, (q) => [...q, ...outcomes]) })
    )
  }))

export const BillingServerAdapters = (config: ServerConfigShape) =>
  Layer.mergeAll(
    BillingCatalogFromFile(Option.getOrElse(config.plansFile, () => SAMPLE_PLANS_FILE)),
    SimulatedPaymentProvider(config)
  )
