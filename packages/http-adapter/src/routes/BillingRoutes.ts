/**
 * The simulated payment provider's pages (server/BillingAdapters.ts), served by the server itself:
 *
 * - `GET|POST /billing/checkout/<token>`: add a card for an organization (the `checkoutUrl` of
 *   `createOrganizationPaymentMethodCheckout`): one of three test cards — it charges off-session,
 *   it needs the customer to authorise each payment, it is declined.
 * - `GET|POST /billing/payments/<token>`: authorise (or decline) a payment that needs the customer
 *   (an `on_payment` billing operation); the answer settles the operation.
 *
 * CSRF: no cookie or ambient credential is involved — the signed, expiring URL token is the
 * authority — and every form also carries a token bound to it (an HMAC under the server secret);
 * a POST from another origin (`Origin`, `Sec-Fetch-Site`) is refused. Pages are `no-store`, may not
 * be framed, send no referrer (the URL is a bearer token) and load nothing.
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { BillingService, PaymentMethods } from "@switchboard/core/billing"
import { constantTimeEqual } from "@switchboard/core/internal"
import { type OrganizationId, ServerSecret } from "@switchboard/core/shared"
import { DateTime, Effect, Option, Result, Schema } from "effect"
import { ServerConfig, type ServerConfigShape } from "../http/ServerConfig.js"
import { csrfOf, simulatedCards, verifyPageToken } from "../server/BillingAdapters.js"

const escape = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

const pageHeaders = {
  "cache-control": "no-store",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff"
}

const page = (title: string, body: string, status = 200) =>
  HttpServerResponse.text(
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Switchboard</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d2330}
fieldset{border:1px solid #ccd;border-radius:.5rem;padding:1rem}label{display:block;margin:.5rem 0}
button{font:inherit;padding:.5rem 1.2rem;margin:.8rem .5rem 0 0;border-radius:.4rem;border:1px solid #345;background:#fff}
button.primary{background:#234;color:#fff}.note{color:#667;font-size:.9rem}</style></head>
<body><main><h1>${escape(title)}</h1>${body}
<p class="note">Simulated payment provider of this Switchboard server: no real card is stored or charged.</p></main></body></html>`,
    { status, contentType: "text/html; charset=utf-8", headers: pageHeaders }
  )

const notFound = () => page("Link expired", "<p>This link is not valid or has expired. Ask for a new one.</p>", 404)
const refused = (message: string) => page("Request refused", `<p>${escape(message)}</p>`, 403)

const CheckoutForm = Schema.Struct({ csrf: Schema.String, card: Schema.Literals(Object.keys(simulatedCards) as [keyof typeof simulatedCards]) })
const PaymentForm = Schema.Struct({ csrf: Schema.String, decision: Schema.Literals(["approve", "decline"]) })

/** A form POST from this server's own pages: no other origin (the token is the authority). */
const sameOrigin = (request: HttpServerRequest.HttpServerRequest, config: ServerConfigShape) => {
  const site = request.headers["sec-fetch-site"]
  if (site !== undefined && site !== "same-origin" && site !== "none") return false
  const origin = request.headers["origin"]
  // Our pages send no referrer, so a browser's form post from them says `Origin: null`; the
  // browser's own `Sec-Fetch-Site` (which no page can set) then tells where it came from.
  if (origin === undefined || (origin === "null" && site === "same-origin")) return true
  const host = request.headers["host"]
  const allowed = new Set([new URL(config.dashboardUrl).origin, new URL(config.apiUrl).origin])
  if (host !== undefined) {
    allowed.add(`http://${host}`)
    allowed.add(`https://${host}`)
  }
  return allowed.has(origin)
}

const money = (cents: number, currency: string) => `${(cents / 100).toFixed(2)} ${currency}`

export const BillingRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    const secret = yield* ServerSecret
    const billing = yield* BillingService
    const payments = yield* PaymentMethods
    const signed = <A, E>(self: Effect.Effect<A, E, ServerSecret>) => Effect.provideService(self, ServerSecret, secret)
    const tokenParam = Effect.map(HttpRouter.params, (p) => p.token ?? "")

    /** Reads a small urlencoded form; anything else → none. */
    const readForm = <A, I>(schema: Schema.Codec<A, I>) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!/^application\/x-www-form-urlencoded/i.test(request.headers["content-type"] ?? "")) return Option.none<A>()
        if (Number(request.headers["content-length"] ?? "0") > 4096) return Option.none<A>()
        const text = yield* Effect.orElseSucceed(request.text, () => "")
        if (text.length > 4096) return Option.none<A>()
        return Schema.decodeUnknownOption(schema)(Object.fromEntries(new URLSearchParams(text)))
      })

    const checkoutPage = Effect.gen(function*() {
      const token = yield* tokenParam
      const organizationId = yield* signed(verifyPageToken("checkout", token))
      if (Option.isNone(organizationId)) return notFound()
      const csrf = yield* signed(csrfOf(token))
      const current = yield* payments.get(organizationId.value as OrganizationId)
      const options = Object.entries(simulatedCards).map(([number, card], i) =>
        `<label><input type="radio" name="card" value="${number}"${i === 0 ? " checked" : ""}> ${escape(card.brand.toUpperCase())} ${
          escape(number.replace(/(\d{4})(?=\d)/g, "$1 "))} — ${escape(card.label)}</label>`).join("\n")
      return page("Add a card", `
<p>${current.cardOnFile ? `The card on file (•••• ${escape(current.paymentMethod?.last4 ?? "")}) will be replaced.` : "No card is on file yet."}</p>
<form method="post" action="/billing/checkout/${escape(token)}">
<input type="hidden" name="csrf" value="${escape(csrf)}">
<fieldset><legend>Test card</legend>
${options}
</fieldset>
<button class="primary" type="submit">Save card</button>
</form>`)
    })

    const saveCard = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const token = yield* tokenParam
      const organizationId = yield* signed(verifyPageToken("checkout", token))
      if (Option.isNone(organizationId)) return notFound()
      if (!sameOrigin(request, config)) return refused("This form can only be sent from its own page.")
      const form = yield* readForm(CheckoutForm)
      if (Option.isNone(form) || !constantTimeEqual(form.value.csrf, yield* signed(csrfOf(token)))) {
        return refused("The form is not valid; open the link again.")
      }
      const card = simulatedCards[form.value.card]
      const year = new Date(DateTime.toEpochMillis(yield* DateTime.now)).getUTCFullYear() + 3
      yield* payments.attach(organizationId.value as OrganizationId, {
        brand: card.brand, last4: card.last4, expiresMonth: 12, expiresYear: year, behaviour: card.behaviour, providerRef: card.providerRef
      })
      return page("Card saved", `<p>${escape(card.brand.toUpperCase())} •••• ${escape(card.last4)} is now the card on file. You can close this page.</p>`)
    })

    const paymentPage = Effect.gen(function*() {
      const token = yield* tokenParam
      const operationId = yield* signed(verifyPageToken("payment", token))
      if (Option.isNone(operationId)) return notFound()
      const found = yield* billing.paymentOf(operationId.value)
      if (Option.isNone(found)) return notFound()
      const { operation, payment, planCode } = found.value
      if (payment === null) return page("Payment", `<p>This payment is no longer waiting: the operation ${escape(operation.status)}.</p>`)
      const csrf = yield* signed(csrfOf(token))
      return page("Authorise a payment", `
<p>${escape(money(payment.amountCents, payment.currency))}${planCode === null ? "" : ` for the plan <strong>${escape(planCode)}</strong>`}.</p>
<p class="note">Authorise before ${escape(DateTime.formatIso(payment.deadline))}.</p>
<form method="post" action="/billing/payments/${escape(token)}">
<input type="hidden" name="csrf" value="${escape(csrf)}">
<button class="primary" type="submit" name="decision" value="approve">Authorise</button>
<button type="submit" name="decision" value="decline">Decline</button>
</form>`)
    })

    const settle = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const token = yield* tokenParam
      const operationId = yield* signed(verifyPageToken("payment", token))
      if (Option.isNone(operationId)) return notFound()
      if (!sameOrigin(request, config)) return refused("This form can only be sent from its own page.")
      const form = yield* readForm(PaymentForm)
      if (Option.isNone(form) || !constantTimeEqual(form.value.csrf, yield* signed(csrfOf(token)))) {
        return refused("The form is not valid; open the link again.")
      }
      const result = yield* Effect.result(billing.settlePayment(operationId.value, form.value.decision === "approve" ? "succeeded" : "failed"))
      if (Result.isFailure(result)) return notFound()
      const op = result.success
      return page(
        op.status === "succeeded" ? "Payment authorised" : "Payment not made",
        `<p>The billing operation ${escape(op.operationId)} ${escape(op.status)}${
          op.status === "failed" && op.failure !== null ? ` (${escape(op.failure.code)}${op.failure.detail === null ? "" : `: ${escape(op.failure.detail)}`})` : ""}.</p>`
      )
    })

    yield* router.add("GET", "/billing/checkout/:token", checkoutPage)
    yield* router.add("POST", "/billing/checkout/:token", saveCard)
    yield* router.add("GET", "/billing/payments/:token", paymentPage)
    yield* router.add("POST", "/billing/payments/:token", settle)
  }))

export const billingRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/billing/checkout/:token"],
  ["POST", "/billing/checkout/:token"],
  ["GET", "/billing/payments/:token"],
  ["POST", "/billing/payments/:token"]
]
