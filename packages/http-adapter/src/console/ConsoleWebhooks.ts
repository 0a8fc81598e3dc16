/**
 * Webhooks in the console: the project's webhook destinations (/v1) and management
 * webhooks side by side, each with its delivery log — status, attempts, last response, the
 * dead-lettered ones retried, a test event sent, the signing secret rotated (shown once) — and
 * the deliveries per hour as a chart. The events page lists the project's latest events with their
 * payloads, the recent deliveries of every endpoint and the event types; with the page's script,
 * new events appear as they happen through the event channel (docs/event-channel.md: the page asks
 * `…/events/token` for a stream token with the session's authority, then opens `/v1/subscribe`).
 */
import { DashboardProjects } from "@switchboard/core/dashboard"
import {
  eventCatalog,
  EVENT_API_VERSION,
  EventOutbox,
  ManagementWebhooks,
  type StoredOutboxEvent,
  StreamTokens,
  type WebhookDelivery,
  WebhookDestinations,
  webhookApiVersions
} from "@switchboard/core/events"
import { BoundedString, type ProjectId } from "@switchboard/core/shared"
import { DateTime, Effect, Redacted, Schema } from "effect"
import { envelopeFailure } from "../http/Surfaces.js"
import { hourlyChart, perHour } from "./ConsoleCharts.js"
import { badge, buttonForm, csrfField, emptyState, html, idChip, secretBox, table, when } from "./ConsoleHtml.js"
import { action, type ConsoleCtx, type ConsoleFailure, jsonAction, page, param, redirect, show, type View } from "./ConsoleKit.js"
import { makeProjectChrome, projectIdOf, projectTabs } from "./ConsoleProjects.js"
import type { ConsoleRouter } from "./ConsoleRoutes.js"

const CreateDestinationForm = Schema.Struct({
  name: BoundedString(1, 128),
  url: BoundedString(1, 2048),
  events: Schema.Array(BoundedString(1, 128)).pipe(Schema.check(Schema.isMaxLength(256)), Schema.withDecodingDefault(Effect.succeed([])))
})
const CreateManagementForm = Schema.Struct({ webhookUrl: BoundedString(1, 2048) })
const RetryForm = Schema.Struct({ eventId: BoundedString(1, 100), attemptCount: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 }))) })

type Kind = "destinations" | "management"

/** Events read per page, and pages at most, when looking for a project's latest events. */
const EVENT_PAGE = 500
const EVENT_PAGES = 20

const deliverySeries = [
  { label: "delivered", colour: "#15803d" },
  { label: "pending", colour: "#4f46e5" },
  { label: "dead-lettered", colour: "#dc2626" }
]
const seriesOf = (d: WebhookDelivery) => (d.status === "delivered" ? 0 : d.status === "pending" ? 1 : d.status === "dead_lettered" ? 2 : -1)

const statusBadge = (d: WebhookDelivery) =>
  badge(d.inFlight ? "in flight" : d.status.replace("_", "-"), d.status === "delivered" ? "ok" : d.status === "dead_lettered" ? "bad" : "plain")

/**
 * The reads the webhook pages and the project overview share: every live endpoint of a project
 * (destinations and management webhooks), an endpoint's latest deliveries, and the project's
 * latest events.
 */
export const makeWebhookReads = Effect.gen(function*() {
  const destinations = yield* WebhookDestinations
  const management = yield* ManagementWebhooks
  const projects = yield* DashboardProjects
  const outbox = yield* EventOutbox

  /** Every live endpoint of the project, both kinds, as (kind, id, label, url). */
  const endpoints = (ctx: ConsoleCtx, projectId: ProjectId) =>
    Effect.gen(function*() {
      const project = yield* projects.open(projectId, ctx.principal, "read")
      const dests = (yield* destinations.list(projectId, ctx.principal, { pageSize: 100 })).destinations
      const mgmt = yield* management.list(projectId)
      return {
        project,
        list: [
          ...dests.map((d) => ({ kind: "destinations" as Kind, id: d.destinationId as string, label: d.name, url: d.url, status: d.status as string, events: d.enabledEvents.join(", ") })),
          ...mgmt.map((m) => ({ kind: "management" as Kind, id: m.id as string, label: "Management webhook", url: m.webhookUrl, status: "enabled", events: "every project event" }))
        ]
      }
    })

  /** An endpoint's latest deliveries (at most 100), newest first. */
  const deliveriesOf = (ctx: ConsoleCtx, projectId: ProjectId, kind: Kind, id: string): Effect.Effect<ReadonlyArray<WebhookDelivery>, ConsoleFailure> =>
    kind === "destinations"
      ? Effect.map(destinations.listDeliveries(projectId, ctx.principal, id, { pageSize: 100 }), (p) => p.deliveries)
      : Effect.map(management.listDeliveries({ projectId, webhookId: id, pageSize: 100 }), (p) => p.deliveries)

  /** The latest `keep` events, newest first: the outbox is read forward in bounded pages. */
  const latestEvents = (projectId: string, keep: number) =>
    Effect.gen(function*() {
      let after = 0
      let tail: Array<StoredOutboxEvent> = []
      for (let pages = 0; pages < EVENT_PAGES; pages++) {
        const page = yield* outbox.list({ projectId, after, limit: EVENT_PAGE })
        tail = [...tail, ...page].slice(-keep)
        const last = page[page.length - 1]
        if (page.length < EVENT_PAGE || last === undefined) return { events: tail.reverse(), more: false }
        after = last.position
      }
      return { events: tail.reverse(), more: true }
    })

  return { endpoints, deliveriesOf, latestEvents }
})

/** The endpoints' kinds, as the webhook pages' paths name them. */
export type WebhookKind = Kind

/** The deliveries per hour of the last 24 hours, by outcome. */
export const deliveriesChart = (deliveries: ReadonlyArray<WebhookDelivery>, empty?: string) => {
  const now = Date.now()
  return hourlyChart("Deliveries per hour", deliverySeries, perHour(deliveries, (d) => DateTime.toEpochMillis(d.createdAt), seriesOf, 3, now), now, empty)
}

export const webhookRoutes = (router: ConsoleRouter) =>
  Effect.gen(function*() {
    const destinations = yield* WebhookDestinations
    const management = yield* ManagementWebhooks
    const projects = yield* DashboardProjects
    const streamTokens = yield* StreamTokens
    const chrome = yield* makeProjectChrome
    const { deliveriesOf, endpoints, latestEvents } = yield* makeWebhookReads

    const chartOf = (deliveries: ReadonlyArray<WebhookDelivery>) => deliveriesChart(deliveries, "no deliveries in the last 24 hours.")

    const listView = (ctx: ConsoleCtx, created?: { readonly label: string; readonly secret: string }) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const { list, project } = yield* endpoints(ctx, projectId)
        const base = `/console/projects/${projectId}/webhooks`
        const all = (yield* Effect.forEach(list, (e) => deliveriesOf(ctx, projectId, e.kind, e.id))).flat()
        const types = [...eventCatalog.keys()].sort()
        return {
          title: "Webhooks",
          lede: "Endpoints that receive the project's events, signed, each with a log of its deliveries.",
          ...(yield* chrome(ctx, project, [{ label: "Webhooks" }])),
          tabs: projectTabs(projectId, base),
          body: html`
${created === undefined ? "" : secretBox(`Signing secret of ${created.label}`, created.secret)}
<section class="card" aria-labelledby="endpoints"><h2 id="endpoints">Endpoints</h2>
${
            table("Webhook endpoints", ["Name", "URL", "Events", "Status", ""], list.map((e) => [
              html`<a class="name" href="${base}/${e.kind}/${e.id}">${e.label}</a><br>${idChip(e.id, `id of ${e.label}`)}`,
              html`<code>${e.url}</code>`,
              e.events,
              badge(e.status, e.status === "enabled" ? "ok" : "plain"),
              html`<a href="${base}/${e.kind}/${e.id}">Delivery log</a>`
            ]), emptyState("No webhooks yet.", "Add a destination below: give it a name and the HTTPS URL that should receive the project's events. Then send it a test event from its page.", html`<a class="button secondary" href="#new-destination">Add a destination</a>`))
          }
${list.length === 0 ? "" : chartOf(all)}</section>
<div class="grid">
<section class="card" aria-labelledby="new-destination"><h2 id="new-destination">New webhook destination</h2>
<form method="post" action="${base}/destinations">${csrfField(ctx.csrf)}
<label for="dest-name">Name</label><input id="dest-name" name="name" required maxlength="128">
<label for="dest-url">URL</label><input id="dest-url" name="url" type="url" required maxlength="2048" placeholder="https://example.com/hooks">
<fieldset class="choices"><legend>Events (none checked: every event)</legend>${
            types.map((t) => html`<label><input type="checkbox" name="events" value="${t}"> <code>${t}</code></label>`)
          }</fieldset>
<p class="muted">Payload version ${webhookApiVersions.find((v) => v.selectable)?.version ?? EVENT_API_VERSION}.</p>
<button type="submit">Add destination</button></form></section>
<section class="card" aria-labelledby="new-management"><h2 id="new-management">New management webhook</h2>
<p class="muted">Receives every event of the project, signed with its own secret (the management API's webhooks).</p>
<form method="post" action="${base}/management">${csrfField(ctx.csrf)}
<label for="mgmt-url">URL</label><input id="mgmt-url" name="webhookUrl" type="url" required maxlength="2048">
<button type="submit">Add management webhook</button></form></section></div>`
        } satisfies View
      })

    const kindOf = (ctx: ConsoleCtx) => {
      const k = param(ctx, "kind")
      return k === "destinations" || k === "management" ? Effect.succeed(k as Kind) : Effect.fail(envelopeFailure(404, "WEBHOOK_NOT_FOUND", "No such webhook."))
    }

    const endpointView = (ctx: ConsoleCtx, secret?: string) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const kind = yield* kindOf(ctx)
        const id = param(ctx, "endpointId")
        const { list, project } = yield* endpoints(ctx, projectId)
        const endpoint = list.find((e) => e.kind === kind && e.id === id)
        if (endpoint === undefined) return yield* envelopeFailure(404, "WEBHOOK_NOT_FOUND", `No webhook ${id}.`)
        const deliveries = yield* deliveriesOf(ctx, projectId, kind, id)
        const base = `/console/projects/${projectId}/webhooks/${kind}/${id}`
        return {
          title: endpoint.label,
          ...(yield* chrome(ctx, project, [{ label: "Webhooks", href: `/console/projects/${projectId}/webhooks` }, { label: endpoint.label }])),
          tabs: projectTabs(projectId, `/console/projects/${projectId}/webhooks`),
          body: html`
${secret === undefined ? "" : secretBox("New signing secret (the previous one keeps signing for a day)", secret)}
<section class="card" aria-labelledby="endpoint"><h2 id="endpoint">Endpoint</h2><dl class="facts">
<dt>Name</dt><dd class="name">${endpoint.label}</dd><dt>Id</dt><dd>${idChip(endpoint.id, "webhook id")}</dd>
<dt>URL</dt><dd><code>${endpoint.url}</code></dd><dt>Events</dt><dd>${endpoint.events}</dd><dt>Status</dt><dd>${badge(endpoint.status, endpoint.status === "enabled" ? "ok" : "plain")}</dd></dl>
<p class="row">${kind === "destinations" ? buttonForm(ctx.csrf, `${base}/test`, "Send a test event") : ""}
${kind === "destinations" ? buttonForm(ctx.csrf, `${base}/rotate`, "Rotate the signing secret") : ""}
${buttonForm(ctx.csrf, `${base}/delete`, "Delete this webhook", { danger: true })}</p></section>
<section class="card" aria-labelledby="log"><h2 id="log">Delivery log</h2>
${chartOf(deliveries)}
${
            table("Deliveries", ["Event", "Status", "Attempts", "Last response", "Last attempt", "Next attempt", ""], deliveries.map((d) => [
              html`<code>${d.eventType}</code><br><span class="muted">${d.eventId}</span>`,
              statusBadge(d),
              String(d.attemptCount),
              d.lastResponseStatus === null ? (d.lastError ?? "—") : html`HTTP ${d.lastResponseStatus}${d.lastError === null ? "" : html`<br><span class="muted">${d.lastError}</span>`}`,
              when(d.lastAttemptAt),
              when(d.nextAttemptAt),
              d.status === "dead_lettered" || (d.status === "pending" && d.attemptCount > 0 && !d.inFlight)
                ? buttonForm(ctx.csrf, `${base}/retry`, `Retry ${d.eventType}`, { fields: { eventId: d.eventId, attemptCount: String(d.attemptCount) } })
                : ""
            ]), emptyState("No deliveries yet.", kind === "destinations" ? "Send a test event (above) to see how this endpoint answers; every event the project emits is logged here." : "Every event the project emits is logged here once it is delivered."))
          }</section>`
        } satisfies View
      })

    const base = "/console/projects/:projectId/webhooks"
    yield* router.get(base, page((ctx) => listView(ctx)))
    yield* router.post(`${base}/destinations`, action(listView, (ctx, form) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const body = yield* form.as(CreateDestinationForm)
        const created = yield* destinations.create(projectId, ctx.principal, {
          name: body.name,
          url: body.url,
          enabledEvents: body.events.length === 0 ? ["*"] : body.events,
          apiVersion: EVENT_API_VERSION
        } as Parameters<typeof destinations.create>[2])
        return show(yield* listView(ctx, { label: body.name, secret: Redacted.value(created.signingSecret) }), "Destination added.")
      })))
    yield* router.post(`${base}/management`, action(listView, (ctx, form) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const body = yield* form.as(CreateManagementForm)
        yield* projects.open(projectId, ctx.principal, "write")
        const created = yield* management.create({ projectId, webhookUrl: body.webhookUrl })
        return show(yield* listView(ctx, { label: body.webhookUrl, secret: Redacted.value(created.signingSecret) }), "Management webhook added.")
      })))

    const endpoint = `${base}/:kind/:endpointId`
    yield* router.get(endpoint, page((ctx) => endpointView(ctx)))
    yield* router.post(`${endpoint}/retry`, action(endpointView, (ctx, form) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const kind = yield* kindOf(ctx)
        const id = param(ctx, "endpointId")
        const body = yield* form.as(RetryForm)
        if (kind === "destinations") {
          const found = (yield* deliveriesOf(ctx, projectId, kind, id)).find((d) => d.eventId === body.eventId)
          yield* destinations.retryDelivery(projectId, ctx.principal, id, { eventId: body.eventId, eventType: found?.eventType ?? "", expectedAttemptCount: body.attemptCount })
        } else {
          yield* projects.open(projectId, ctx.principal, "write")
          yield* management.retryDelivery({ projectId, webhookId: id, eventId: body.eventId, expectedAttemptCount: body.attemptCount })
        }
        return redirect(`/console/projects/${projectId}/webhooks/${kind}/${id}`, "retried")
      })))
    yield* router.post(`${endpoint}/test`, action(endpointView, (ctx) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const id = param(ctx, "endpointId")
        if ((yield* kindOf(ctx)) !== "destinations") return yield* envelopeFailure(404, "WEBHOOK_NOT_FOUND", "Test events go to webhook destinations.")
        yield* destinations.sendTestEvent(projectId, ctx.principal, id)
        return redirect(`/console/projects/${projectId}/webhooks/destinations/${id}`, "sent")
      })))
    yield* router.post(`${endpoint}/rotate`, action(endpointView, (ctx) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        if ((yield* kindOf(ctx)) !== "destinations") return yield* envelopeFailure(404, "WEBHOOK_NOT_FOUND", "Only destinations rotate their secret.")
        const rotated = yield* destinations.rotateSecret(projectId, ctx.principal, param(ctx, "endpointId"))
        return show(yield* endpointView(ctx, Redacted.value(rotated.signingSecret)), "Signing secret rotated.")
      })))
    yield* router.post(`${endpoint}/delete`, action(endpointView, (ctx) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const id = param(ctx, "endpointId")
        if ((yield* kindOf(ctx)) === "destinations") {
          yield* destinations.delete(projectId, ctx.principal, id)
        } else {
          yield* projects.open(projectId, ctx.principal, "revoke")
          yield* management.remove({ projectId, webhookId: id })
        }
        return redirect(`/console/projects/${projectId}/webhooks`, "deleted")
      })))

    // --- Events: the project's latest events with their payloads, deliveries, the catalog ---------
    yield* router.get("/console/projects/:projectId/events", page((ctx) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const { list, project } = yield* endpoints(ctx, projectId)
        const latest = yield* latestEvents(projectId, 50)
        const recent = (yield* Effect.forEach(list, (e) => Effect.map(deliveriesOf(ctx, projectId, e.kind, e.id), (ds) => ds.map((d) => ({ d, e })))))
          .flat()
          .sort((a, b) => DateTime.toEpochMillis(b.d.createdAt) - DateTime.toEpochMillis(a.d.createdAt))
          .slice(0, 50)
        return {
          title: "Events",
          ...(yield* chrome(ctx, project, [{ label: "Events" }])),
          tabs: projectTabs(projectId, `/console/projects/${projectId}/events`),
          body: html`<section class="card" aria-labelledby="recent"><h2 id="recent">Recent events</h2>
<p class="muted">The project's latest events, newest first; open one to see its payload.${latest.more ? " (Only the first events of a very long log were read.)" : ""}</p>
<div data-live-events data-token-url="/console/projects/${projectId}/events/token" data-csrf="${ctx.csrf}">
<p class="muted" data-live-status aria-live="polite">Reload the page to see newer events.</p>
${
            table("Recent events", ["When", "Event", "Payload"], latest.events.map((r) => [
              when(r.event.timestamp),
              html`<code>${r.event.type}</code><br><span class="muted">${r.event.id}</span>`,
              html`<details><summary>Payload of ${r.event.type}</summary><pre>${JSON.stringify(r.event.data, null, 2)}</pre></details>`
            ]), emptyState("No events yet.", html`Events appear here as the project works: keys made, calls placed, messages sent. <a href="/console/projects/${projectId}/webhooks">Add a webhook</a> and send it a test event to see the first one.`))
          }</div></section>
<section class="card" aria-labelledby="deliveries"><h2 id="deliveries">Recent deliveries</h2>
${
            table("Recent deliveries", ["When", "Event", "Webhook", "Delivery"], recent.map(({ d, e }) => [
              when(d.createdAt),
              html`<code>${d.eventType}</code><br><span class="muted">${d.eventId}</span>`,
              html`<a href="/console/projects/${projectId}/webhooks/${e.kind}/${e.id}">${e.label}</a>`,
              statusBadge(d)
            ]), "No deliveries yet: add a webhook, then its deliveries appear here.")
          }</section>
<section class="card" aria-labelledby="types"><h2 id="types">Event types</h2>
${table("Event types", ["Type", "What"], [...eventCatalog.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([t, spec]) => [html`<code>${t}</code>`, spec.description]), "None.")}</section>`
        } satisfies View
      })))
    // The events page's script: a stream token for the project, to anyone who may read it.
    yield* router.post("/console/projects/:projectId/events/token", jsonAction((ctx) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        yield* projects.open(projectId, ctx.principal, "read")
        return yield* streamTokens.mint(projectId)
      })))
  })

export const webhookRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/console/projects/:projectId/webhooks"],
  ["POST", "/console/projects/:projectId/webhooks/destinations"],
  ["POST", "/console/projects/:projectId/webhooks/management"],
  ["GET", "/console/projects/:projectId/webhooks/:kind/:endpointId"],
  ["POST", "/console/projects/:projectId/webhooks/:kind/:endpointId/retry"],
  ["POST", "/console/projects/:projectId/webhooks/:kind/:endpointId/test"],
  ["POST", "/console/projects/:projectId/webhooks/:kind/:endpointId/rotate"],
  ["POST", "/console/projects/:projectId/webhooks/:kind/:endpointId/delete"],
  ["GET", "/console/projects/:projectId/events"],
  ["POST", "/console/projects/:projectId/events/token"]
]
