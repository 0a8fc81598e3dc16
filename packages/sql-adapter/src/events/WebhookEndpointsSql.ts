/**
 * Webhook endpoints in SQL (migration 0014): destinations and management webhooks, versioned
 * rows with sealed secrets; a live management webhook's URL is unique per project.
 */
import { SqlClient } from "effect/sql"
import { type WebhookEndpoint, type WebhooksRepo, WebhookUrlTaken } from "@switchboard/core/events"
import { Effect, Option } from "effect"
import { die, isUniqueViolation, orDie, toDate, toDateOrNull } from "../shared/Sql.js"
import { buffer, endpointRows } from "./WebhookRows.js"

type EndpointMethods =
  | "insertEndpoint" | "findEndpoint" | "lockEndpoint" | "updateEndpoint" | "listEndpoints" | "countLiveEndpoints"
  | "subscribers" | "outboxHead"

export const makeWebhookEndpointsSql = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const findEndpoint = (kind: WebhookEndpoint["kind"], projectId: string, endpointId: string, lock: boolean) =>
    endpointRows(sql`
      select * from webhook_endpoints
      where endpoint_id = ${endpointId} and kind = ${kind} and project_id = ${projectId}
      ${lock ? sql`for update` : sql``}`).pipe(Effect.map((rows) => Option.fromNullishOr(rows[0])))

  const endpoints: Pick<WebhooksRepo["Service"], EndpointMethods> = {
    insertEndpoint: (e) =>
      sql`insert into webhook_endpoints ${sql.insert({
        endpointId: e.endpointId,
        kind: e.kind,
        projectId: e.projectId,
        url: e.url,
        name: e.name,
        description: e.description,
        status: e.status,
        enabledEvents: JSON.stringify(e.enabledEvents),
        apiVersion: e.apiVersion,
        secretSealed: buffer(e.secret),
        previousSecretSealed: e.previousSecret === null ? null : buffer(e.previousSecret),
        previousSecretExpiresAt: toDateOrNull(e.previousSecretExpiresAt),
        createdAt: toDate(e.createdAt),
        updatedAt: toDate(e.updatedAt),
        deletedAt: toDateOrNull(e.deletedAt),
        startsAfterPosition: e.startsAfterPosition
      })}`.pipe(
        Effect.asVoid,
        Effect.catchIf(isUniqueViolation, () => Effect.fail(new WebhookUrlTaken({ webhookUrl: e.url }))),
        Effect.catchTag("SqlError", die)
      ),
    findEndpoint: (kind, projectId, endpointId) => findEndpoint(kind, projectId, endpointId, false),
    lockEndpoint: (kind, projectId, endpointId) => findEndpoint(kind, projectId, endpointId, true),
    updateEndpoint: (e) =>
      orDie(sql`
        update webhook_endpoints set
          url = ${e.url},
          name = ${e.name},
          description = ${e.description},
          status = ${e.status},
          enabled_events = ${JSON.stringify(e.enabledEvents)},
          secret_sealed = ${buffer(e.secret)},
          previous_secret_sealed = ${e.previousSecret === null ? null : buffer(e.previousSecret)},
          previous_secret_expires_at = ${toDateOrNull(e.previousSecretExpiresAt)},
          updated_at = ${toDate(e.updatedAt)},
          deleted_at = ${toDateOrNull(e.deletedAt)}
        where endpoint_id = ${e.endpointId}`).pipe(Effect.asVoid),
    listEndpoints: ({ after, kind, limit, projectId }) =>
      endpointRows(sql`
        select * from webhook_endpoints
        where project_id = ${projectId} and kind = ${kind} and deleted_at is null
          ${after === undefined ? sql`` : sql`and (created_at, endpoint_id) > (${toDate(after.createdAt)}, ${after.id})`}
        order by created_at, endpoint_id
        limit ${limit}`),
    countLiveEndpoints: (kind, projectId) =>
      orDie(sql<{ count: number }>`
        select count(*)::int as count from webhook_endpoints
        where project_id = ${projectId} and kind = ${kind} and deleted_at is null`).pipe(Effect.map((rows) => rows[0]?.count ?? 0)),
    subscribers: (projectIds) =>
      projectIds.length === 0 ? Effect.succeed([]) : endpointRows(sql`
        select * from webhook_endpoints
        where ${sql.in("project_id", projectIds)} and deleted_at is null and status = 'enabled'`),
    // The primary key's last entry: one index probe, whatever the outbox's size.
    outboxHead: orDie(sql<{ head: number | string | null }>`select max(position) as head from events`).pipe(
      Effect.map((rows) => Number(rows[0]?.head ?? 0))
    )
  }
  return endpoints
})
