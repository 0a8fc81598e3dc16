/**
 * Billing in the console: the project's current plans and usage, a plan change that is
 * **previewed before it is confirmed** (what is due now, what comes next, when it takes effect;
 * the confirm form carries an idempotency key minted with the preview, so a double click makes one
 * operation), the operation's outcome, the project's past operations, the organization's invoices,
 * and its payment method added through the (simulated) checkout.
 */
import { BillingService, PaymentMethods, type PreviewProjectChangeResponse } from "@switchboard/core/billing"
import { principalScope } from "@switchboard/core/credentials"
import { DashboardProjects } from "@switchboard/core/dashboard"
import { base64url, sha256Hex } from "@switchboard/core/internal"
import { BoundedString } from "@switchboard/core/shared"
import { Effect, Option, Schema } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { envelopeFailure } from "../http/Surfaces.js"
import { BillingKicker } from "../v1/BillingApi.js"
import { badge, csrfField, emptyState, html, table, when } from "./ConsoleHtml.js"
import { action, type ConsoleCtx, page, redirect, show, type View } from "./ConsoleKit.js"
import { makeProjectChrome, projectIdOf, projectTabs } from "./ConsoleProjects.js"
import type { ConsoleRouter } from "./ConsoleRoutes.js"

const originOf = (url: string) => {
  try {
    return new URL(url).origin
  } catch {
    return ""
  }
}

export const money = (cents: number, currency: string) => `${(cents / 100).toFixed(2)} ${currency}`

const PlanForm = Schema.Struct({ plan: BoundedString(3, 140) })
const ConfirmForm = Schema.Struct({ plan: BoundedString(3, 140), key: BoundedString(16, 64) })

/** `category:planCode` from the plan select. */
const planOf = (value: string) => {
  const i = value.indexOf(":")
  return i < 1 ? undefined : { category: value.slice(0, i), planCode: value.slice(i + 1) }
}

const previewHtml = (p: PreviewProjectChangeResponse) =>
  html`<dl class="facts"><dt>Due now</dt><dd><strong>${money(p.dueNow.totalCents, p.dueNow.currency)}</strong></dd>
<dt>Next charge</dt><dd>${p.nextCharge === null ? "—" : `${money(p.nextCharge.amountCents, p.nextCharge.currency)} on ${when(p.nextCharge.at)}`}</dd>
${p.planChange === undefined ? "" : html`<dt>Takes effect</dt><dd>${p.planChange.timing.replace("_", " ")}${p.planChange.effectiveAt === null ? "" : ` (${when(p.planChange.effectiveAt)})`}</dd>`}
</dl>
${table("Lines due now", ["Line", "Units", "Amount"], p.dueNow.lines.map((l) => [l.name, l.units, money(l.amountCents, p.dueNow.currency)]), "Nothing is due now.")}`

export const billingRoutes = (router: ConsoleRouter) =>
  Effect.gen(function*() {
    const billing = yield* BillingService
    const payments = yield* PaymentMethods
    const projects = yield* DashboardProjects
    const chrome = yield* makeProjectChrome
    const config = yield* ServerConfig
    const dashboardOrigin = originOf(config.dashboardUrl)

    const billingView = (ctx: ConsoleCtx, extra?: { readonly preview: PreviewProjectChangeResponse; readonly plan: string; readonly key: string }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const project = yield* projects.open(projectId, ctx.principal, "read")
        yield* billing.openProject(ctx.principal, projectId, "read")
        const overview = yield* billing.overview(projectId)
        const catalog = billing.listPlans()
        const invoices = yield* billing.listInvoices(project.organizationId).pipe(Effect.catch(() => Effect.succeed([])))
        const method = yield* payments.get(project.organizationId)
        const history = yield* billing.listOperations(projectId, 20)
        const operationId = ctx.query.get("operation")
        const operation = operationId === null ? Option.none() : yield* Effect.option(billing.getOperation(projectId, operationId.slice(0, 100)))
        const base = `/console/projects/${projectId}/billing`
        const planName = (value: string) => {
          const p = planOf(value)
          const found = p === undefined ? undefined : catalog[p.category]?.find((x) => x.planCode === p.planCode)
          return found === undefined ? value : `${found.name} (${p!.category})`
        }
        return {
          title: "Billing",
          lede: "The project's plans and usage this period, plan changes, and the organization's card and invoices.",
          ...(yield* chrome(ctx, project, [{ label: "Billing" }])),
          tabs: projectTabs(projectId, base),
          body: html`
${
            Option.match(operation, {
              onNone: () => "",
              onSome: (op) =>
                html`<p class="${op.status === "failed" ? "message" : "notice"}" role="status">Plan change ${op.operationId}: ${op.status}${
                  op.status === "failed" ? ` (${op.failure.code})` : ""
                }.</p>`
            })
          }
<section class="card" aria-labelledby="plans"><h2 id="plans">Current plans</h2>
${
            table("Subscriptions", ["Category", "Plan", "Status", "Price", "Period ends", "Scheduled change"], overview.subscriptions.map((s) => [
              s.categoryDisplayName ?? s.category,
              s.planName,
              badge(s.status, s.status === "active" ? "ok" : "bad"),
              `${money(s.baseAmountCents, s.currency)} ${s.interval}`,
              when(s.currentPeriodEnd),
              s.scheduledChange === null ? "—" : `${s.scheduledChange.planCode} (${s.scheduledChange.timing.replace("_", " ")})`
            ]), emptyState("No subscriptions yet.", html`Choose a plan under <a href="#change">Change plan</a>: you see what is due before anything changes.`))
          }
${
            overview.usage.length === 0 ? "" : html`<h3>Usage this period</h3>`
          }${
            overview.usage.length === 0 ? "" : table("Usage", ["Metric", "Units", "Amount"], overview.usage.map((u) => [u.displayName, String(u.units), money(u.amountCents, u.currency)]), "")
          }</section>
<section class="card" aria-labelledby="change"><h2 id="change">Change plan</h2>
${
            extra === undefined
              ? html`<form method="post" action="${base}/preview">${csrfField(ctx.csrf)}
<label for="plan">New plan</label><select id="plan" name="plan">${
                // The project's own categories (listPlans leaves the organization's plans out).
                Object.entries(catalog).map(([category, plans]) =>
                  html`<optgroup label="${category}">${
                    plans.map((p) => html`<option value="${category}:${p.planCode}">${p.name} — ${money(p.baseAmountCents, p.currency)} ${p.interval}</option>`)
                  }</optgroup>`
                )
              }</select>
<button type="submit">Preview the change</button></form>`
              : html`<h3>Preview: ${planName(extra.plan)}</h3>${previewHtml(extra.preview)}
<form method="post" action="${base}/change" class="row">${csrfField(ctx.csrf)}
<input type="hidden" name="plan" value="${extra.plan}"><input type="hidden" name="key" value="${extra.key}">
<button type="submit">Confirm the change</button> <a href="${base}">Cancel</a></form>`
          }</section>
<section class="card" aria-labelledby="operations"><h2 id="operations">Billing operations</h2>
${
            table("Billing operations", ["Operation", "Kind", "Submitted", "Status", "Outcome"], history.map((op) => [
              html`<code>${op.operationId}</code>`,
              op.kind.replaceAll("_", " "),
              when(op.submittedAt),
              badge(op.status, op.status === "succeeded" ? "ok" : op.status === "failed" ? "bad" : "plain"),
              op.status === "failed"
                ? `${op.failure.code.replaceAll("_", " ")}${op.failure.detail === null ? "" : ` (${op.failure.detail.replaceAll("_", " ")})`}`
                : op.status === "succeeded"
                ? op.result.effectiveAt === null ? `applied ${when(op.resolvedAt)}` : `takes effect ${when(op.result.effectiveAt)}`
                : "in progress"
            ]), "No plan changes yet.")
          }</section>
<section class="card" aria-labelledby="payment"><h2 id="payment">Payment method</h2>
<p>${
            method.paymentMethod === null
              ? "No card on file."
              : `${method.paymentMethod.brand ?? "Card"} ending ${method.paymentMethod.last4 ?? "????"}, expires ${method.paymentMethod.expiresMonth ?? "?"}/${method.paymentMethod.expiresYear ?? "?"}`
          }</p>
<form method="post" action="${base}/checkout">${csrfField(ctx.csrf)}<button type="submit" class="secondary">${method.cardOnFile ? "Replace the card" : "Add a card"}</button></form></section>
<section class="card" aria-labelledby="invoices"><h2 id="invoices">Invoices of the organization</h2>
${
            table("Invoices", ["Number", "Issued", "Kind", "Total", "Payment"], invoices.map((i) => [
              i.number,
              when(i.issuedAt),
              i.kind,
              money(i.totalCents, i.currency),
              badge(i.paymentStatus, i.paymentStatus === "succeeded" ? "ok" : i.paymentStatus === "failed" ? "bad" : "plain")
            ]), "No invoices yet.")
          }</section>`
        } satisfies View
      })

    const base = "/console/projects/:projectId/billing"
    yield* router.get(base, page((ctx) => billingView(ctx)))
    yield* router.post(`${base}/preview`, action(billingView, (ctx, form) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const body = yield* form.as(PlanForm)
        const plan = planOf(body.plan)
        if (plan === undefined) return yield* invalidPlan
        const project = yield* projects.open(projectId, ctx.principal, "read")
        const preview = yield* billing.preview(projectId, plan, project)
        const key = base64url(globalThis.crypto.getRandomValues(new Uint8Array(18)))
        return show(yield* billingView(ctx, { preview, plan: body.plan, key }), "Nothing changes until you confirm.")
      })))
    yield* router.post(`${base}/change`, action(billingView, (ctx, form) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const body = yield* form.as(ConfirmForm)
        const plan = planOf(body.plan)
        if (plan === undefined) return yield* invalidPlan
        const { created, operation } = yield* billing.submit({
          principal: ctx.principal,
          projectId,
          kind: "change_plan",
          request: { type: "change_plan", category: plan.category, planCode: plan.planCode, additions: [] },
          idempotency: { scope: principalScope(ctx.principal), key: `console:${body.key}`, fingerprint: yield* sha256Hex(`console:${body.plan}`) }
        })
        if (created) {
          const kicker = yield* Effect.serviceOption(BillingKicker)
          if (Option.isSome(kicker)) yield* kicker.value.kick(operation.operationId)
        }
        return redirect(`/console/projects/${projectId}/billing?operation=${operation.operationId}`)
      })))
    yield* router.post(`${base}/checkout`, action(billingView, (ctx) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const project = yield* projects.open(projectId, ctx.principal, "write")
        const checkout = yield* payments.checkout(project.organizationId)
        // The checkout is served by this server: stay on the address the browser uses.
        const url = new URL(checkout.checkoutUrl)
        return redirect(url.origin === dashboardOrigin ? `${url.pathname}${url.search}` : checkout.checkoutUrl)
      })))
  })

const invalidPlan = envelopeFailure(422, "VALIDATION_FAILED", "plan: choose a plan from the list.")

export const billingRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/console/projects/:projectId/billing"],
  ["POST", "/console/projects/:projectId/billing/preview"],
  ["POST", "/console/projects/:projectId/billing/change"],
  ["POST", "/console/projects/:projectId/billing/checkout"]
]
