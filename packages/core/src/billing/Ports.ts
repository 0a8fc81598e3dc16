/**
 * The billing context's ports (docs/architecture.md#rules-of-the-road): the store (`BillingRepo`),
 * the plan catalog (`BillingCatalog`, operator data loaded at start) and the payment provider
 * (`PaymentProvider`). `Context.Tag`s with no implementation.
 */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { OrganizationId, ProjectId } from "../shared/Identifiers.js"
import type {
  BillingOperationFailure, BillingOperationKind, BillingOperationResult, BillingPlanCatalog, FixedChargeAddition,
  HeldFixedCharge, PaymentStatus, PreviewLine
} from "./Schema.js"

// ---------------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------------

/** A downgrade (or lateral move) waiting for the period end (docs/api-notes/billing.md). */
export interface ScheduledChangeRecord {
  readonly operationId: string
  readonly planCode: string
  /** The epoch day it applies on: the first day of the next period. */
  readonly effectiveDay: number
  readonly additions: ReadonlyArray<FixedChargeAddition>
}

/**
 * One category's subscription of a project. Dates are epoch days (billing/Proration.ts); the
 * current period is `[periodStart, periodEnd]` (inclusive) of the current plan's interval under
 * anniversary billing anchored at `anchorDay` (the project's creation date).
 */
export interface SubscriptionRecord {
  readonly projectId: ProjectId
  readonly organizationId: OrganizationId
  readonly category: string
  readonly planCode: string
  readonly source: "default" | "purchase"
  readonly anchorDay: number
  readonly periodStart: number
  readonly periodEnd: number
  /** The day the current plan started within the current period (an upgrade starts one mid-period). */
  readonly planStartDay: number
  /** Held fixed charges (quantity > 0), by code ascending. */
  readonly heldFixedCharges: ReadonlyArray<HeldFixedCharge>
  /** The in-advance base fee invoiced for the current period, and what was credited of it. */
  readonly baseFeeBilledCents: number
  readonly baseFeeCreditedCents: number
  /** Units of each metric in the current period (since the plan started). */
  readonly usage: Readonly<Record<string, number>>
  /** Usage of the current period already invoiced progressively (docs/api-notes/billing.md). */
  readonly progressiveBilledCents: number
  /** Usage amounts of the periods (and plan spans) already closed. */
  readonly closedUsageCents: number
  /** The lifetime usage amount at the last threshold check (docs/api-notes/billing.md `U0`). */
  readonly thresholdCheckedCents: number
  /** Usage was recorded since the last threshold check. */
  readonly usageDirty: boolean
  readonly scheduledChange: ScheduledChangeRecord | null
  /** Counts every change; the operation result's `version`. */
  readonly version: number
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

/**
 * An organization's own subscription to a plan of the `organization` category (Catalog.ts
 * `ORGANIZATION_CATEGORY`; OrganizationBilling.ts): at most one per organization, written when it
 * buys one. Its periods follow the plan's interval under anniversary billing anchored at
 * `anchorDay` (the day it was bought), as a project's do.
 */
export interface OrganizationSubscriptionRecord {
  readonly organizationId: OrganizationId
  readonly planCode: string
  readonly anchorDay: number
  /** The last day of the periods invoiced so far: the scheduler renews it once that day is past. */
  readonly paidThroughDay: number
  /** Held fixed charges (quantity > 0), by code ascending. */
  readonly heldFixedCharges: ReadonlyArray<HeldFixedCharge>
  /** Counts every change (the overview's `entitlementsVersion`). */
  readonly version: number
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

/** What a billing operation asked for. */
export type OperationRequest =
  | {
    readonly type: "change_plan"
    readonly category: string
    readonly planCode: string
    readonly additions: ReadonlyArray<FixedChargeAddition>
  }
  | {
    readonly type: "adjust_fixed_charge_quantity"
    readonly category: string
    readonly fixedChargeCode: string
    readonly quantity: number
  }

/**
 * An upgrade (or quantity increase) waiting for its payment (docs/api-notes/billing.md
 * `on_payment`): the amounts computed on day `day`, applied unchanged once paid.
 */
export interface AwaitingPayment {
  readonly day: number
  /** The subscription version the amounts were computed on. */
  readonly subscriptionVersion: number
  readonly amountCents: number
  readonly currency: string
  readonly deadline: DateTime.Utc
  readonly actionUrl: string
  /** The invoice due now, as computed (wire form of `PreviewInvoice`). */
  readonly invoice: unknown
  /** The addition lines (wire form of `PreviewLine[]`). */
  readonly additions: unknown
  readonly unusedTimeCredit: number
}

export interface OperationRecord {
  readonly operationId: string
  readonly projectId: ProjectId
  readonly organizationId: OrganizationId
  readonly kind: BillingOperationKind
  readonly status: "pending" | "succeeded" | "failed"
  readonly request: OperationRequest
  /** The Idempotency-Key it was created with (scoped to the caller) and the request's fingerprint. */
  readonly idempotencyScope: string
  readonly idempotencyKey: string
  readonly fingerprint: string
  readonly awaitingPayment: AwaitingPayment | null
  /** Encoded `BillingOperationResult` / `BillingOperationFailure` (wire form). */
  readonly result: typeof BillingOperationResult.Encoded | null
  readonly failure: typeof BillingOperationFailure.Encoded | null
  readonly submittedAt: DateTime.Utc
  readonly resolvedAt: DateTime.Utc | null
}

export interface InvoiceRecord {
  readonly invoiceId: string
  readonly organizationId: OrganizationId
  readonly projectId: ProjectId | null
  /**
   * `<prefix>-<n>`, n counting the organization's visible (non-zero) invoices from 1 without gaps;
   * `<prefix>-00000` for a zero-total invoice, which is never listed.
   */
  readonly number: string
  readonly kind: "subscription" | "one_off" | "credit"
  /** Unique when set: a period closes once (`<project>:<category>:<periodStart>`), an operation bills once. */
  readonly uniqueKey: string | null
  readonly issuedAt: DateTime.Utc
  readonly paymentStatus: PaymentStatus
  /** Collection attempts by the scheduler (it tries a pending invoice once, off-session). */
  readonly paymentAttempts: number
  readonly currency: string
  readonly feesCents: number
  readonly creditsCents: number
  readonly totalCents: number
  /** Wire form of `PreviewLine[]`. */
  readonly lines: ReadonlyArray<typeof PreviewLine.Encoded>
}

/** How a stored card can be charged (docs/api-notes/billing.md `paymentMethod`). */
export type CardBehaviour = "off_session" | "requires_action"

export interface StoredPaymentMethod {
  readonly brand: string
  readonly last4: string
  readonly expiresMonth: number
  readonly expiresYear: number
  readonly behaviour: CardBehaviour
  /** The provider's handle of the card. */
  readonly providerRef: string
}

/** An organization's billing account: its card on file, credit balance and invoice counter. */
export interface BillingAccountRecord {
  readonly organizationId: OrganizationId
  readonly paymentMethod: StoredPaymentMethod | null
  readonly creditBalanceCents: number
  readonly invoiceCount: number
}

/** A usage record as stored once applied (its id is unique per project: a repeat is not applied again). */
export interface UsageRecordRow {
  readonly recordId: string
  readonly metricCode: string
  readonly category: string
  readonly quantity: number
  readonly occurredAt: DateTime.Utc
  readonly recordedAt: DateTime.Utc
}

/** A project the store knows, as billing needs it. */
export interface BillableProject {
  readonly projectId: ProjectId
  readonly organizationId: OrganizationId
  readonly createdAt: DateTime.Utc
}

// ---------------------------------------------------------------------------------------------
// The store
// ---------------------------------------------------------------------------------------------

export class BillingRepo extends Context.Service<BillingRepo, {
  readonly listSubscriptions: (projectId: ProjectId) => Effect.Effect<ReadonlyArray<SubscriptionRecord>>
  /** The subscription, locked until the surrounding transaction ends. */
  readonly lockSubscription: (projectId: ProjectId, category: string) => Effect.Effect<Option.Option<SubscriptionRecord>>
  /** Inserts unless the project already has a subscription in that category; true when inserted. */
  readonly insertSubscription: (subscription: SubscriptionRecord) => Effect.Effect<boolean>
  readonly updateSubscription: (subscription: SubscriptionRecord) => Effect.Effect<void>
  /**
   * Subscriptions that need the scheduler: the period ended at or before `now`, or usage was
   * recorded since the last threshold check. Projects that are deleted are left out.
   */
  readonly dueSubscriptions: (args: { readonly now: DateTime.Utc; readonly limit: number }) => Effect.Effect<
    ReadonlyArray<{ readonly projectId: ProjectId; readonly category: string }>
  >
  /**
   * Projects (not deleted) lacking a subscription in one of `categories`, oldest first; only those
   * of `organizationId` when given.
   */
  readonly unsubscribedProjects: (args: {
    readonly categories: ReadonlyArray<string>
    readonly organizationId?: OrganizationId
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<BillableProject>>

  /** Inserts an operation; if the caller's Idempotency-Key is taken, the operation holding it. */
  readonly insertOperation: (operation: OperationRecord) => Effect.Effect<Option.Option<OperationRecord>>
  readonly findOperationByKey: (scope: string, key: string) => Effect.Effect<Option.Option<OperationRecord>>
  readonly findOperation: (operationId: string) => Effect.Effect<Option.Option<OperationRecord>>
  readonly lockOperation: (operationId: string) => Effect.Effect<Option.Option<OperationRecord>>
  readonly updateOperation: (operation: OperationRecord) => Effect.Effect<void>
  /** The project's latest operations, newest first (by submission, then id), at most `limit`. */
  readonly listOperations: (projectId: ProjectId, limit: number) => Effect.Effect<ReadonlyArray<OperationRecord>>
  /** The project's operations waiting for their payment. */
  readonly waitingOperations: (projectId: ProjectId) => Effect.Effect<ReadonlyArray<OperationRecord>>
  /** Pending operations: not yet started (`awaitingPayment` null), or waiting past `deadlineBefore`. */
  readonly pendingOperations: (args: {
    readonly deadlineBefore: DateTime.Utc
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<string>>

  /** Inserts an invoice; false (nothing written) when its `uniqueKey` is already taken. */
  readonly insertInvoice: (invoice: InvoiceRecord) => Effect.Effect<boolean>
  /** The organization's invoices with a non-zero total, newest first. */
  readonly listInvoices: (organizationId: OrganizationId) => Effect.Effect<ReadonlyArray<InvoiceRecord>>
  readonly findInvoiceByKey: (uniqueKey: string) => Effect.Effect<Option.Option<InvoiceRecord>>
  /** Ids of pending invoices with a positive total never tried yet, oldest first. */
  readonly collectibleInvoices: (limit: number) => Effect.Effect<ReadonlyArray<string>>
  /** The invoice, locked until the surrounding transaction ends. */
  readonly lockInvoice: (invoiceId: string) => Effect.Effect<Option.Option<InvoiceRecord>>
  /** Writes an invoice's payment status and attempts. */
  readonly updateInvoicePayment: (invoice: InvoiceRecord) => Effect.Effect<void>

  /**
   * Inserts the project's usage records whose id is free and returns the ids inserted (a taken id
   * — from an earlier batch, or a concurrent one that committed first — is left as it is).
   */
  readonly insertUsageRecords: (projectId: ProjectId, records: ReadonlyArray<UsageRecordRow>) => Effect.Effect<ReadonlyArray<string>>

  readonly findOrganizationSubscription: (organizationId: OrganizationId) => Effect.Effect<Option.Option<OrganizationSubscriptionRecord>>
  /** The organization's subscription, locked until the surrounding transaction ends. */
  readonly lockOrganizationSubscription: (organizationId: OrganizationId) => Effect.Effect<Option.Option<OrganizationSubscriptionRecord>>
  /** Writes the organization's subscription (inserted, or replacing the one it has). */
  readonly saveOrganizationSubscription: (subscription: OrganizationSubscriptionRecord) => Effect.Effect<void>
  /** Organizations whose subscription is invoiced only through a day that ended by `now`. */
  readonly dueOrganizationSubscriptions: (args: { readonly now: DateTime.Utc; readonly limit: number }) => Effect.Effect<
    ReadonlyArray<OrganizationId>
  >

  readonly findAccount: (organizationId: OrganizationId) => Effect.Effect<Option.Option<BillingAccountRecord>>
  /** The account (created empty when missing), locked until the surrounding transaction ends. */
  readonly lockAccount: (organizationId: OrganizationId) => Effect.Effect<BillingAccountRecord>
  readonly updateAccount: (account: BillingAccountRecord) => Effect.Effect<void>
}>()("core/BillingRepo") {}

// ---------------------------------------------------------------------------------------------
// The catalog and the payment provider
// ---------------------------------------------------------------------------------------------

/** The plan catalog in use (validated: see `Catalog.ts`). */
export class BillingCatalog extends Context.Service<BillingCatalog, {
  readonly catalog: BillingPlanCatalog
}>()("core/BillingCatalog") {}

/** The outcome of a charge. */
export type ChargeOutcome =
  | { readonly _tag: "Succeeded" }
  /** The customer must act (3-D Secure, a hosted page): the payment settles later. */
  | { readonly _tag: "RequiresAction"; readonly actionUrl: string }
  | { readonly _tag: "Declined"; readonly reason: string }
  /** The provider could not say whether money moved. */
  | { readonly _tag: "Unknown"; readonly reason: string }

/**
 * The payment provider (docs/api-notes/billing.md): it collects cards (a hosted checkout page or a
 * setup intent) and charges them. A payment that needs the customer settles later: the provider
 * reports it with `BillingService.settlePayment`. The standalone server ships a simulated provider.
 */
export class PaymentProvider extends Context.Service<PaymentProvider, {
  /** A page where the customer adds a card for the organization. */
  readonly createCheckout: (args: { readonly organizationId: OrganizationId }) => Effect.Effect<{ readonly checkoutUrl: string }>
  readonly createSetupIntent: (args: { readonly organizationId: OrganizationId }) => Effect.Effect<{
    readonly clientSecret: string
    readonly publishableKey: string
  }>
  /** Charges the card; `reference` identifies the charge (a retry with it is not charged twice). */
  readonly charge: (args: {
    readonly organizationId: OrganizationId
    readonly reference: string
    readonly amountCents: number
    readonly currency: string
    readonly paymentMethod: StoredPaymentMethod
    /** For a payment that needs the customer: until when it may complete. */
    readonly expiresAt: DateTime.Utc
  }) => Effect.Effect<ChargeOutcome>
  /** Gives up a payment that is still waiting for the customer. */
  readonly cancel: (args: { readonly reference: string }) => Effect.Effect<void>
}>()("core/PaymentProvider") {}
