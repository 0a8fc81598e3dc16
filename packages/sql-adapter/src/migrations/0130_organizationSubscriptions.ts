import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * An organization's own subscription (core billing/OrganizationBilling.ts): at most one per
 * organization, to a plan of the catalog's `organization` category. The record is jsonb, like a
 * project's subscription (migration 0013); the SSO entitlement reads its `planCode`.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table billing_organization_subscriptions (
      organization_id text collate "C" primary key references organizations (organization_id),
      record jsonb not null
    )`
})
