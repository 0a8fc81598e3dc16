/**
 * Billing (docs/api-notes/billing.md): the one service the adapters call, composed of its use
 * cases, each in its own module —
 *
 * - `BillingSubscriptions.ts`: materialising subscriptions, closing periods, usage thresholds;
 * - `BillingInvoices.ts`: issuing and collecting invoices;
 * - `BillingOverview.ts`: the reads (overview, terms, plans, invoices, operations);
 * - `BillingPreviews.ts`: what a change would cost;
 * - `BillingOperations.ts`: plan changes and quantities as operations, decided by the pure
 *   reducer of `OperationDecision.ts` and written by `BillingChanges.ts`;
 * - `BillingUsage.ts`: recording metered usage (by hosts, and batches of records over /v1);
 * - `BillingScheduler.ts`: the period-end `tick`;
 * - `OrganizationBilling.ts`: an organization's own subscription (overview, preview, buying it and
 *   setting its fixed-charge quantities).
 *
 * The access checks of a billing route (which project or organization the caller may reach) are
 * here; the credential rules are decided before (BillingAccess.ts).
 */
import { Context, Effect, Layer, Option } from "effect"
import { EventPublisher } from "../events/EventsFeature.js"
import type { Principal } from "../credentials/Access.js"
import { OrganizationsRepo } from "../organizations/OrganizationsPorts.js"
import { ProjectClosing, ProjectDeleted, ProjectNotFound, ProjectOrganizationNotFound } from "../projects/Errors.js"
import { makeProjectGate, type ProjectUse } from "../projects/ProjectGate.js"
import { ProjectsRepo } from "../projects/Ports.js"
import type { AccountId, OrganizationId, ProjectId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { fn } from "../internal/Traced.js"
import { makeBillingChanges } from "./BillingChanges.js"
import { makeBillingInvoices } from "./BillingInvoices.js"
import { makeBillingOperations } from "./BillingOperations.js"
import { makeBillingOverview } from "./BillingOverview.js"
import { makeBillingPreviews } from "./BillingPreviews.js"
import { makeBillingScheduler } from "./BillingScheduler.js"
import { makeBillingSubscriptions } from "./BillingSubscriptions.js"
import { makeBillingUsage } from "./BillingUsage.js"
import { makeOrganizationBilling } from "./OrganizationBilling.js"

export { PAYMENT_WINDOW, toInvoice } from "./BillingInvoices.js"
export { toBillingOperation } from "./BillingChanges.js"

export class BillingService extends Context.Service<BillingService>()("core/Billing", {
  make: Effect.gen(function*() {
    const projects = yield* ProjectsRepo
    const organizations = yield* OrganizationsRepo
    const gate = yield* makeProjectGate
    const invoices = yield* makeBillingInvoices
    const subscriptions = yield* makeBillingSubscriptions(invoices)
    const previews = yield* makeBillingPreviews(subscriptions)
    const reads = yield* makeBillingOverview(subscriptions)
    const changes = yield* makeBillingChanges({ invoices, subscriptions })
    const operations = yield* makeBillingOperations({ subscriptions, previews, changes })
    const usage = yield* makeBillingUsage(subscriptions)
    const organizationBilling = yield* makeOrganizationBilling(invoices)
    const scheduler = yield* makeBillingScheduler({ invoices, subscriptions, operations, organizations: organizationBilling })

    /** A project under `/v1/projects/{projectId}/billing`: the caller must see it (see ProjectGate). */
    const openProject = fn("Billing.openProject")(function*(principal: Principal, projectId: ProjectId, use: ProjectUse) {
      return yield* gate.open(projectId, principal, use)
    })

    /**
     * A project under `/v1/organizations/{organizationId}/billing/projects/{projectId}`: the account
     * must be a member of the organization (404 otherwise) and the project one of its projects.
     */
    const openOrganizationProject = fn("Billing.openOrganizationProject")(function*(
      accountId: AccountId,
      organizationId: OrganizationId,
      projectId: ProjectId,
      use: ProjectUse
    ) {
      yield* openOrganization(accountId, organizationId)
      const found = yield* projects.findById(projectId)
      if (Option.isNone(found) || found.value.organizationId !== organizationId) return yield* new ProjectNotFound({ projectId })
      const record = found.value
      if (record.state === "deleted") return yield* new ProjectDeleted({ projectId })
      if (record.state === "closing" && use === "write") return yield* new ProjectClosing({ projectId })
      return record
    })

    const openOrganization = fn("Billing.openOrganization")(function*(accountId: AccountId, organizationId: OrganizationId) {
      const role = yield* organizations.roleOf(organizationId, accountId)
      if (Option.isNone(role)) return yield* new ProjectOrganizationNotFound({ organizationId })
    })

    return {
      catalog: subscriptions.catalog,
      organizationOverview: organizationBilling.overview,
      previewOrganizationChange: organizationBilling.preview,
      subscribeOrganization: organizationBilling.subscribe,
      adjustOrganizationFixedCharge: organizationBilling.adjustFixedCharge,
      listPlans: reads.listPlans,
      openProject,
      openOrganization,
      openOrganizationProject,
      overview: reads.overview,
      terms: reads.terms,
      preview: previews.preview,
      listInvoices: reads.listInvoices,
      getOperation: reads.getOperation,
      listOperations: reads.listOperations,
      submit: operations.submit,
      process: operations.process,
      settlePayment: operations.settlePayment,
      paymentOf: operations.paymentOf,
      recordUsage: usage.recordUsage,
      recordUsageBatch: usage.recordUsageBatch,
      tick: scheduler.tick,
      /**
       * Materialises the project's subscriptions (billing creates them on first use), for a caller
       * who may write to the project — never before the caller is known to see it.
       */
      ensureSubscriptions: (projectId: ProjectId, principal: Principal) =>
        Effect.andThen(openProject(principal, projectId, "write"), Effect.map(subscriptions.subscriptionsOf(projectId), ({ subs }) => subs))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer, EventPublisher.layer]))
}
