import { SqlClient } from "effect/sql"
import { Effect } from "effect"

/**
 * An organization's own subscription (core billing/OrganizationBilling.ts): at most one per
 * organization, to a plan of the catalog's `organization` category. The record is jsonb, like a
 * project's subscription (migration 0013), with the end of the periods invoiced so far beside it
 * for the scheduler; the SSO entitlement reads its `planCode`.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table billing_organization_subscriptions (
      organization_id text collate "C" primary key references organizations (organization_id),
      paid_through_ends_at timestamptz not null,
      record jsonb not null
    )`
  // The scheduler: subscriptions whose invoiced periods ended (renewal).
  yield* sql`create index billing_organization_subscriptions_due on billing_organization_subscriptions (paid_through_ends_at)`
})
