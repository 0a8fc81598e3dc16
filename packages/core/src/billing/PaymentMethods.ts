/**
 * An organization's payment method (docs/api-notes/billing.md: payment method, checkout, setup
 * intent), through the `PaymentProvider` port. The card itself lives with the provider; the account
 * keeps what the provider reported (brand, last 4 digits, expiry, whether it can be charged
 * off-session) once the customer added it (`attach`, called by the provider's checkout completion).
 */
import { Context, Effect, Layer, Option } from "effect"
import type { OrganizationId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { BillingRepo, PaymentProvider, type StoredPaymentMethod } from "./Ports.js"
import type { PaymentMethodResponse } from "./Schema.js"
import { fn } from "../internal/Traced.js"

export class PaymentMethods extends Context.Service<PaymentMethods>()("core/PaymentMethods", {
  make: Effect.gen(function*() {
    const repo = yield* BillingRepo
    const provider = yield* PaymentProvider
    const tx = yield* Transactor

    /** The card on file, if any (the public contract's `GetOrganizationPaymentMethodResponse`). */
    const get = fn("PaymentMethods.get")(function*(organizationId: OrganizationId) {
      const account = yield* repo.findAccount(organizationId)
      const method = Option.flatMap(account, (a) => Option.fromNullishOr(a.paymentMethod))
      return Option.match(method, {
        onNone: () => ({ cardOnFile: false, paymentMethod: null }),
        onSome: (m) => ({
          cardOnFile: true,
          paymentMethod: { brand: m.brand, expiresMonth: m.expiresMonth, expiresYear: m.expiresYear, last4: m.last4 }
        })
      }) satisfies PaymentMethodResponse
    })

    /** A page where the customer adds a card (the URL is not the card: `get` tells when it is saved). */
    const checkout = fn("PaymentMethods.checkout")(function*(organizationId: OrganizationId) {
      return yield* provider.createCheckout({ organizationId })
    })

    const setupIntent = fn("PaymentMethods.setupIntent")(function*(organizationId: OrganizationId) {
      return yield* provider.createSetupIntent({ organizationId })
    })

    /** The provider saved a card for the organization: it replaces the one on file. */
    const attach = fn("PaymentMethods.attach")(function*(organizationId: OrganizationId, method: StoredPaymentMethod) {
      yield* tx.withTransaction(Effect.gen(function*() {
        const account = yield* repo.lockAccount(organizationId)
        yield* repo.updateAccount({ ...account, paymentMethod: method })
      }))
    })

    /** The card was removed at the provider. */
    const detach = fn("PaymentMethods.detach")(function*(organizationId: OrganizationId) {
      yield* tx.withTransaction(Effect.gen(function*() {
        const account = yield* repo.lockAccount(organizationId)
        yield* repo.updateAccount({ ...account, paymentMethod: null })
      }))
    })

    return { get, checkout, setupIntent, attach, detach } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
