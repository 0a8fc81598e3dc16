/**
 * A project's overview, its landing page in the console: what matters at a glance — the API
 * requests it was answered (versioned and management API, counted per hour: docs/console.md), the
 * webhook deliveries and the events it emitted in the last 24 hours, the webhooks that are failing (dead
 * letters, or a last attempt that was refused), the calls in progress, the plans and this period's
 * usage — and, while a step is left, the "Getting started" checklist: create an API key, add a
 * webhook destination, send a first (test) event. Each step is ticked from the project's state
 * (its keys, its endpoints, their deliveries) and links to the console page that does it. The
 * figures come from the same reads as the pages they summarise (the webhook pages' endpoints,
 * deliveries and events; the voice page's calls; the billing page's overview); the requests from
 * the store's hourly counts (`ProjectRequestCounts`), read once the project's own read allowed it.
 */
import { BillingService } from "@switchboard/core/billing"
import { ProjectApiKeys } from "@switchboard/core/credentials"
import { type WebhookDelivery } from "@switchboard/core/events"
import { ProjectRequestCounts, ProjectsService, type RequestCount } from "@switchboard/core/projects"
import { Calls } from "@switchboard/core/voice"
import { DateTime, Effect } from "effect"
import { money } from "./ConsoleBilling.js"
import { hourlyChart, perHour } from "./ConsoleCharts.js"
import { badge, emptyState, html, idChip, table, when } from "./ConsoleHtml.js"
import { type ConsoleCtx, page, type View } from "./ConsoleKit.js"
import { makeProjectChrome, projectIdOf, projectTabs } from "./ConsoleProjects.js"
import type { ConsoleRouter } from "./ConsoleRoutes.js"
import { ended } from "./ConsoleVoice.js"
import { deliveriesChart, makeWebhookReads } from "./ConsoleWebhooks.js"

const DAY = 86_400_000

/** Events read at most to count the last day's (the events page reads the same way). */
const EVENTS_COUNTED = 1000

/** A delivery that failed: dead-lettered, or waiting for a retry after a refused attempt. */
const failed = (d: WebhookDelivery) => d.status === "dead_lettered" || (d.status === "pending" && d.attemptCount > 0 && !d.inFlight)

const requestSeries = [
  { label: "answered (2xx, 3xx)", colour: "#15803d" },
  { label: "refused (4xx)", colour: "#b45309" },
  { label: "failed (5xx)", colour: "#dc2626" }
]
const seriesIndex = { success: 0, client_error: 1, server_error: 2 } as const

/** The requests of the last 24 hours per hour, stacked by outcome (one chart entry per counted request). */
const requestsChart = (rows: ReadonlyArray<RequestCount>, now: number) => {
  const bins = perHour(rows, (r) => DateTime.toEpochMillis(r.hour), (r) => seriesIndex[r.outcome], 3, now, (r) => r.count)
  return hourlyChart("Requests per hour", requestSeries, bins, now, "no API requests in the last 24 hours.")
}

const stat = (label: string, value: string | number, note: ReturnType<typeof html> | string, tone: "plain" | "bad" = "plain") =>
  html`<li class="stat${tone === "bad" ? " bad" : ""}"><span class="label">${label}</span><span class="value">${String(value)}</span><span class="note">${note}</span></li>`

export const overviewRoutes = (router: ConsoleRouter) =>
  Effect.gen(function*() {
    const projects = yield* ProjectsService
    const apiKeys = yield* ProjectApiKeys
    const calls = yield* Calls
    const requestCounts = yield* ProjectRequestCounts
    const billing = yield* BillingService
    const chrome = yield* makeProjectChrome
    const reads = yield* makeWebhookReads

    const overview = (ctx: ConsoleCtx) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const project = yield* projects.get(projectId, ctx.principal)
        const base = `/console/projects/${projectId}`
        const now = Date.now()
        const since = now - DAY
        const keys = yield* apiKeys.list(projectId, ctx.principal)
        const { list: endpoints } = yield* reads.endpoints(ctx, projectId)
        const perEndpoint = yield* Effect.forEach(endpoints, (e) => Effect.map(reads.deliveriesOf(ctx, projectId, e.kind, e.id), (ds) => ({ e, ds })))
        const deliveries = perEndpoint.flatMap((x) => x.ds)
        const lastDay = deliveries.filter((d) => DateTime.toEpochMillis(d.createdAt) >= since)
        const failing = perEndpoint
          .map(({ ds, e }) => ({ e, bad: ds.filter(failed), last: ds.find(failed) }))
          .filter((x) => x.bad.length > 0)
        const latest = yield* reads.latestEvents(projectId, EVENTS_COUNTED)
        const eventsToday = latest.events.filter((r) => DateTime.toEpochMillis(r.event.timestamp) >= since)
        const requests = yield* requestCounts.last24h(projectId, DateTime.makeUnsafe(now) as DateTime.Utc)
        const requestTotal = requests.reduce((n, r) => n + r.count, 0)
        const requestsFailed = requests.reduce((n, r) => n + (r.outcome === "server_error" ? r.count : 0), 0)
        const requestsRefused = requests.reduce((n, r) => n + (r.outcome === "client_error" ? r.count : 0), 0)
        const recentCalls = (yield* calls.list(projectId, ctx.principal, { pageSize: 100 })).calls
        const live = recentCalls.filter((c) => !ended.has(c.status))
        const plans = yield* Effect.gen(function*() {
          yield* billing.openProject(ctx.principal, projectId, "read")
          return yield* billing.overview(projectId)
        }).pipe(Effect.catch(() => Effect.succeed(undefined)))

        // Getting started, each step from the project's state.
        const firstDestination = endpoints.find((e) => e.kind === "destinations")
        const steps = [
          {
            key: "api-key",
            done: keys.length > 0,
            title: "Create an API key",
            text: "Your server calls the versioned API with it (Authorization: Bearer …).",
            href: `${base}/keys#new-key`,
            link: "Create a key"
          },
          {
            key: "webhook",
            done: endpoints.length > 0,
            title: "Add a webhook destination",
            text: "An HTTPS URL of yours that receives the project's events, signed.",
            href: `${base}/webhooks#new-destination`,
            link: "Add a destination"
          },
          {
            key: "test-event",
            done: deliveries.length > 0,
            title: "Send a first (test) event",
            text: "Send a test event to your destination and see its delivery in the log.",
            href: firstDestination === undefined ? `${base}/webhooks` : `${base}/webhooks/destinations/${firstDestination.id}`,
            link: firstDestination === undefined ? "Open webhooks" : `Send a test event to ${firstDestination.label}`
          }
        ]
        const doneCount = steps.filter((s) => s.done).length
        const checklist = doneCount === steps.length ? "" : html`<section class="card" aria-labelledby="getting-started" data-checklist>
<h2 id="getting-started">Getting started</h2>
<p class="muted">${doneCount} of ${steps.length} done.</p>
<div class="progress" aria-hidden="true"><span class="p${doneCount}"></span></div>
<ol class="checklist">${
          steps.map((s, i) =>
            html`<li class="${s.done ? "done" : "todo"}" data-step="${s.key}" data-done="${s.done ? "true" : "false"}"><span class="tick" aria-hidden="true">${s.done ? "✓" : String(i + 1)}</span>
<div class="what"><strong><span class="sr">${s.done ? "Done: " : "To do: "}</span>${s.title}</strong><span class="muted">${s.text}</span></div>
${s.done ? html`<span class="badge ok">Done</span>` : html`<a class="button secondary" href="${s.href}">${s.link}</a>`}</li>`
          )
        }</ol></section>`

        const delivered = lastDay.filter((d) => d.status === "delivered").length
        const failedToday = lastDay.filter(failed).length
        return {
          title: project.name,
          ...(yield* chrome(ctx, project)),
          tabs: projectTabs(projectId, base),
          body: html`
${checklist}
<ul class="stats" aria-label="The last 24 hours">
${
          stat(
            "Requests, last 24 h",
            requestTotal,
            requestTotal === 0 ? "None yet" : `${requestsFailed} failed · ${requestsRefused} refused (4xx)`,
            requestsFailed === 0 ? "plain" : "bad"
          )
        }
${stat("Events, last 24 h", eventsToday.length === EVENTS_COUNTED ? `${EVENTS_COUNTED}+` : eventsToday.length, eventsToday.length === 0 ? "None yet" : html`Latest ${when(eventsToday[0]!.event.timestamp)}`)}
${stat("Deliveries, last 24 h", lastDay.length, lastDay.length === 0 ? "None yet" : `${delivered} delivered · ${failedToday} failing`)}
${stat("Failing webhooks", failing.length, failing.length === 0 ? (endpoints.length === 0 ? "No webhooks yet" : "All delivering") : "With dead letters or refused attempts", failing.length === 0 ? "plain" : "bad")}
${stat("Calls in progress", live.length, html`<a href="${base}/voice">${recentCalls.length === 0 ? "No calls yet" : `${recentCalls.length} recent`}</a>`)}
</ul>
<div class="grid">
<section class="card" aria-labelledby="requests"><h2 id="requests">Requests</h2>
${requestsChart(requests, now)}</section>
<section class="card" aria-labelledby="deliveries"><h2 id="deliveries">Deliveries</h2>
${deliveriesChart(lastDay, endpoints.length === 0 ? "add a webhook destination to see its deliveries here." : "no deliveries in the last 24 hours.")}</section>
</div>
<div class="grid">
<section class="card" aria-labelledby="failing"><h2 id="failing">Failing webhooks</h2>
${
            table("Failing webhooks", ["Webhook", "Failing deliveries", "Last response", ""], failing.map(({ bad, e, last }) => [
              html`<a class="name" href="${base}/webhooks/${e.kind}/${e.id}">${e.label}</a><br><code class="muted">${e.url}</code>`,
              html`${String(bad.length)} ${badge(bad.some((d) => d.status === "dead_lettered") ? "dead letters" : "retrying", "bad")}`,
              last === undefined ? "—" : last.lastResponseStatus === null ? (last.lastError ?? "—") : `HTTP ${last.lastResponseStatus}`,
              html`<a href="${base}/webhooks/${e.kind}/${e.id}">Delivery log<span class="sr"> of ${e.label}</span></a>`
            ]), endpoints.length === 0
              ? emptyState("No webhooks yet.", "Add a destination and its failures show up here.", html`<a class="button secondary" href="${base}/webhooks#new-destination">Add a destination</a>`)
              : html`<p class="muted">None: every webhook's latest deliveries went through.</p>`)
          }</section>
<section class="card" aria-labelledby="plan"><h2 id="plan">Plan and usage</h2>
${
            plans === undefined
              ? html`<p class="muted">Billing is not available to you for this project.</p>`
              : html`${
                table("Plans", ["Category", "Plan", "Status", "Price"], plans.subscriptions.map((sub) => [
                  sub.categoryDisplayName ?? sub.category,
                  html`<span class="name">${sub.planName}</span>`,
                  badge(sub.status, sub.status === "active" ? "ok" : "bad"),
                  `${money(sub.baseAmountCents, sub.currency)} ${sub.interval}`
                ]), emptyState("No plan yet.", "Choose the project's plans on the billing page.", html`<a class="button secondary" href="${base}/billing#change">Choose a plan</a>`))
              }${
                plans.usage.length === 0 ? html`<p class="muted">No usage this period yet.</p>` : html`<h3>Usage this period</h3>${
                  table("Usage this period", ["Metric", "Units", "Amount"], plans.usage.map((u) => [u.displayName, String(u.units), money(u.amountCents, u.currency)]), "")
                }`
              }<p><a href="${base}/billing">Billing</a></p>`
          }</section>
</div>
<section class="card" aria-labelledby="project"><h2 id="project">Project</h2><dl class="facts">
<dt>Project id</dt><dd>${idChip(project.projectId, "project id")}</dd>
<dt>Slug</dt><dd><code>${project.slug}</code></dd>
<dt>State</dt><dd>${badge(project.state, project.state === "active" ? "ok" : "bad")}</dd>
<dt>Created</dt><dd>${when(project.createdAt)}</dd>
<dt>API keys</dt><dd><a href="${base}/keys">${keys.length === 1 ? "1 key" : `${keys.length} keys`}</a></dd>
<dt>Webhooks</dt><dd><a href="${base}/webhooks">${endpoints.length === 1 ? "1 endpoint" : `${endpoints.length} endpoints`}</a></dd></dl>
<p><a href="${base}/settings">Settings</a>: the management secret, closing the project.</p></section>`
        } satisfies View
      })

    yield* router.get("/console/projects/:projectId", page(overview))
  })

export const overviewRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/console/projects/:projectId"]
]
