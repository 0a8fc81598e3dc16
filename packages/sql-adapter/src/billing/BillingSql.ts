/**
 * The Billing feature's SQL repository (docs/api-notes/billing.md; migration 0013). Subscriptions
 * and operations are jsonb records with the columns their lookups need beside them; every
 * read-then-write locks its row (`for update`) in the caller's transaction. What makes the
 * scheduler exact with several processes: each subscription's work runs with its row locked and
 * re-checks what is due, and an invoice's `unique_key` (a period boundary, an operation) can be
 * written once.
 */
import { SqlClient } from "effect/sql"
import {
  BillingRepo,
  type BillingAccountRecord,
  type InvoiceRecord,
  type OperationRecord,
  type OrganizationSubscriptionRecord,
  type SubscriptionRecord
} from "@switchboard/core/billing"
import { OrganizationId, ProjectId, Timestamp } from "@switchboard/core/shared"
import { Array as Arr, DateTime, Effect, Layer, Option, Schema } from "effect"
import { DbTime, firstRow, orDie, parseJson, recordsOf, type Rows, rowsOf, toDate } from "../shared/Sql.js"

const Int = Schema.Number
/** A `bigint` column: `pg` returns it as a string. */
const BigIntColumn = Schema.Union([Schema.Number, Schema.NumberFromString])

const Held = Schema.Struct({ fixedChargeCode: Schema.String, quantity: Int })

const SubscriptionJson = Schema.Struct({
  projectId: ProjectId,
  organizationId: OrganizationId,
  category: Schema.String,
  planCode: Schema.String,
  source: Schema.Literals(["default", "purchase"]),
  anchorDay: Int,
  periodStart: Int,
  periodEnd: Int,
  planStartDay: Int,
  heldFixedCharges: Schema.Array(Held),
  baseFeeBilledCents: Int,
  baseFeeCreditedCents: Int,
  usage: Schema.Record(Schema.String, Int),
  progressiveBilledCents: Int,
  closedUsageCents: Int,
  thresholdCheckedCents: Int,
  usageDirty: Schema.Boolean,
  scheduledChange: Schema.NullOr(Schema.Struct({
    operationId: Schema.String,
    planCode: Schema.String,
    effectiveDay: Int,
    additions: Schema.Array(Schema.Struct({ fixedChargeCode: Schema.String, quantity: Int }))
  })),
  version: Int,
  createdAt: Timestamp,
  updatedAt: Timestamp
})

const OrganizationSubscriptionJson = Schema.Struct({
  organizationId: OrganizationId,
  planCode: Schema.String,
  anchorDay: Int,
  paidThroughDay: Int,
  heldFixedCharges: Schema.Array(Held),
  version: Int,
  createdAt: Timestamp,
  updatedAt: Timestamp
})

const Request = Schema.Union([Schema.Struct({
  type: Schema.Literal("change_plan"),
  category: Schema.String,
  planCode: Schema.String,
  additions: Schema.Array(Schema.Struct({ fixedChargeCode: Schema.String, quantity: Int }))
}), Schema.Struct({
  type: Schema.Literal("adjust_fixed_charge_quantity"),
  category: Schema.String,
  fixedChargeCode: Schema.String,
  quantity: Int
})])

const OperationJson = Schema.Struct({
  operationId: Schema.String,
  projectId: ProjectId,
  organizationId: OrganizationId,
  kind: Schema.Literals(["change_plan", "adjust_fixed_charge_quantity"]),
  status: Schema.Literals(["pending", "succeeded", "failed"]),
  request: Request,
  idempotencyScope: Schema.String,
  idempotencyKey: Schema.String,
  fingerprint: Schema.String,
  awaitingPayment: Schema.NullOr(Schema.Struct({
    day: Int,
    subscriptionVersion: Int,
    amountCents: Int,
    currency: Schema.String,
    deadline: Timestamp,
    actionUrl: Schema.String,
    invoice: Schema.Unknown,
    additions: Schema.Unknown,
    unusedTimeCredit: Int
  })),
  result: Schema.NullOr(Schema.Unknown),
  failure: Schema.NullOr(Schema.Unknown),
  submittedAt: Timestamp,
  resolvedAt: Schema.NullOr(Timestamp)
})

const InvoiceRow = Schema.Struct({
  invoiceId: Schema.String,
  organizationId: OrganizationId,
  projectId: Schema.NullOr(ProjectId),
  number: Schema.String,
  kind: Schema.Literals(["subscription", "one_off", "credit"]),
  uniqueKey: Schema.NullOr(Schema.String),
  issuedAt: DbTime,
  paymentStatus: Schema.Literals(["pending", "succeeded", "failed"]),
  paymentAttempts: Int,
  currency: Schema.String,
  feesCents: BigIntColumn,
  creditsCents: BigIntColumn,
  totalCents: BigIntColumn,
  lines: Schema.Unknown
})

const PaymentMethodJson = Schema.Struct({
  brand: Schema.String,
  last4: Schema.String,
  expiresMonth: Int,
  expiresYear: Int,
  behaviour: Schema.Literals(["off_session", "requires_action"]),
  providerRef: Schema.String
})

const AccountRow = Schema.Struct({
  organizationId: OrganizationId,
  paymentMethod: Schema.NullOr(Schema.Unknown),
  creditBalanceCents: BigIntColumn,
  invoiceCount: Int
})

const encodeSubscription = Schema.encodeEffect(SubscriptionJson)
const encodeOperation = Schema.encodeEffect(OperationJson)
const encodeOrganizationSubscription = Schema.encodeEffect(OrganizationSubscriptionJson)
const decodePaymentMethod = Schema.decodeUnknownEffect(Schema.NullOr(PaymentMethodJson))

const periodEndsAt = (s: SubscriptionRecord) => new Date((s.periodEnd + 1) * 86_400_000)

const invoiceCols = [
  "invoice_id", "organization_id", "project_id", "number", "kind", "unique_key", "issued_at", "payment_status",
  "payment_attempts", "currency", "fees_cents", "credits_cents", "total_cents", "lines"
].join(", ")

export const BillingReposSql = Layer.effect(
  BillingRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const subscriptions: (statement: Rows) => Effect.Effect<ReadonlyArray<SubscriptionRecord>> = recordsOf(SubscriptionJson)
    // `OperationJson` checks the columns lookups rely on; the nested result, failure and invoice are
    // written here from a typed record and read back as written, so their schema stays loose.
    const operationRecords = recordsOf(OperationJson)
    const operations = (statement: Rows) => operationRecords(statement) as Effect.Effect<ReadonlyArray<OperationRecord>>
    const invoiceRows = rowsOf(InvoiceRow)
    const invoices = (statement: Rows) =>
      invoiceRows(statement).pipe(Effect.map((rows) =>
        rows.map((r): InvoiceRecord => ({ ...r, lines: parseJson(r.lines) as InvoiceRecord["lines"] }))
      ))
    const accountRows = rowsOf(AccountRow)
    const accounts = (statement: Rows) =>
      accountRows(statement).pipe(Effect.flatMap((rows) =>
        orDie(Effect.forEach(rows, (r) =>
          Effect.map(decodePaymentMethod(parseJson(r.paymentMethod)), (paymentMethod): BillingAccountRecord => ({ ...r, paymentMethod }))))
      ))
    const organizationSubscriptions: (statement: Rows) => Effect.Effect<ReadonlyArray<OrganizationSubscriptionRecord>> =
      recordsOf(OrganizationSubscriptionJson)
    const subscriptionText = (s: SubscriptionRecord) => Effect.map(orDie(encodeSubscription(s)), JSON.stringify)
    const operationText = (o: OperationRecord) => Effect.map(orDie(encodeOperation(o)), JSON.stringify)

    return BillingRepo.of({
      listSubscriptions: (projectId) =>
        subscriptions(sql`select record from billing_subscriptions where project_id = ${projectId} order by category`),
      lockSubscription: (projectId, category) =>
        Effect.map(
          subscriptions(sql`
            select record from billing_subscriptions where project_id = ${projectId} and category = ${category}
            for update`),
          firstRow
        ),
      insertSubscription: (sub) =>
        Effect.flatMap(subscriptionText(sub), (record) =>
          orDie(sql<{ projectId: string }>`
            insert into billing_subscriptions (project_id, category, organization_id, period_ends_at, usage_dirty, record)
            values (${sub.projectId}, ${sub.category}, ${sub.organizationId}, ${periodEndsAt(sub)}, ${sub.usageDirty}, ${record}::jsonb)
            on conflict (project_id, category) do nothing
            returning project_id`)).pipe(Effect.map((rows) => rows.length === 1)),
      updateSubscription: (sub) =>
        Effect.flatMap(subscriptionText(sub), (record) =>
          orDie(sql`
            update billing_subscriptions
            set period_ends_at = ${periodEndsAt(sub)}, usage_dirty = ${sub.usageDirty}, record = ${record}::jsonb
            where project_id = ${sub.projectId} and category = ${sub.category}`)).pipe(Effect.asVoid),
      dueSubscriptions: ({ limit, now }) =>
        orDie(sql<{ projectId: string; category: string }>`
          select s.project_id, s.category from billing_subscriptions s
          join projects p on p.project_id = s.project_id
          where p.state <> 'deleted' and (s.period_ends_at <= ${toDate(now)} or s.usage_dirty)
          order by s.period_ends_at
          limit ${limit}`).pipe(Effect.map((rows) =>
          rows.map((r) => ({ projectId: ProjectId.make(r.projectId), category: r.category }))
        )),
      unsubscribedProjects: ({ categories, limit, organizationId }) =>
        categories.length === 0 ? Effect.succeed([]) : orDie(sql<{ projectId: string; organizationId: string; createdAt: Date }>`
          select p.project_id, p.organization_id, p.created_at from projects p
          where p.state <> 'deleted'
            ${organizationId === undefined ? sql`` : sql`and p.organization_id = ${organizationId}`}
            and (select count(*) from billing_subscriptions s
                 where s.project_id = p.project_id and ${sql.in("s.category", categories)}) < ${categories.length}
          order by p.created_at, p.project_id
          limit ${limit}`).pipe(Effect.map((rows) =>
          rows.map((r) => ({
            projectId: ProjectId.make(r.projectId),
            organizationId: OrganizationId.make(r.organizationId),
            createdAt: DateTime.makeUnsafe(r.createdAt)
          }))
        )),

      insertOperation: (op) =>
        Effect.flatMap(operationText(op), (record) =>
          orDie(sql<{ operationId: string }>`
            insert into billing_operations
              (operation_id, project_id, organization_id, status, idempotency_scope, idempotency_key, payment_deadline, submitted_at, record)
            values (${op.operationId}, ${op.projectId}, ${op.organizationId}, ${op.status}, ${op.idempotencyScope},
                    ${op.idempotencyKey}, ${op.awaitingPayment === null ? null : toDate(op.awaitingPayment.deadline)},
                    ${toDate(op.submittedAt)}, ${record}::jsonb)
            on conflict (idempotency_scope, idempotency_key) do nothing
            returning operation_id`)).pipe(
          Effect.flatMap((rows) =>
            rows.length === 1
              ? Effect.succeed(Option.none<OperationRecord>())
              : Effect.map(
                operations(sql`
                  select record from billing_operations
                  where idempotency_scope = ${op.idempotencyScope} and idempotency_key = ${op.idempotencyKey}`),
                firstRow
              ))
        ),
      findOperationByKey: (scope, key) =>
        Effect.map(
          operations(sql`select record from billing_operations where idempotency_scope = ${scope} and idempotency_key = ${key}`),
          firstRow
        ),
      findOperation: (operationId) =>
        Effect.map(operations(sql`select record from billing_operations where operation_id = ${operationId}`), firstRow),
      lockOperation: (operationId) =>
        Effect.map(operations(sql`select record from billing_operations where operation_id = ${operationId} for update`), firstRow),
      updateOperation: (op) =>
        Effect.flatMap(operationText(op), (record) =>
          orDie(sql`
            update billing_operations
            set status = ${op.status},
                payment_deadline = ${op.awaitingPayment === null ? null : toDate(op.awaitingPayment.deadline)},
                record = ${record}::jsonb
            where operation_id = ${op.operationId}`)).pipe(Effect.asVoid),
      listOperations: (projectId, limit) =>
        operations(sql`
          select record from billing_operations where project_id = ${projectId}
          order by submitted_at desc, operation_id desc
          limit ${limit}`),
      waitingOperations: (projectId) =>
        operations(sql`
          select record from billing_operations
          where project_id = ${projectId} and status = 'pending' and payment_deadline is not null
          order by submitted_at`),
      pendingOperations: ({ deadlineBefore, limit }) =>
        orDie(sql<{ operationId: string }>`
          select operation_id from billing_operations
          where status = 'pending' and (payment_deadline is null or payment_deadline <= ${toDate(deadlineBefore)})
          order by submitted_at
          limit ${limit}`).pipe(Effect.map((rows) => rows.map((r) => r.operationId))),

      insertInvoice: (inv) =>
        orDie(sql<{ invoiceId: string }>`
          insert into billing_invoices ${sql.insert({
            invoiceId: inv.invoiceId,
            organizationId: inv.organizationId,
            projectId: inv.projectId,
            number: inv.number,
            kind: inv.kind,
            uniqueKey: inv.uniqueKey,
            issuedAt: toDate(inv.issuedAt),
            paymentStatus: inv.paymentStatus,
            paymentAttempts: inv.paymentAttempts,
            currency: inv.currency,
            feesCents: inv.feesCents,
            creditsCents: inv.creditsCents,
            totalCents: inv.totalCents,
            lines: JSON.stringify(inv.lines)
          })}
          on conflict (unique_key) do nothing
          returning invoice_id`).pipe(Effect.map((rows) => rows.length === 1)),
      listInvoices: (organizationId) =>
        invoices(sql`
          select ${sql.literal(invoiceCols)} from billing_invoices
          where organization_id = ${organizationId} and total_cents <> 0
          order by issued_at desc, invoice_id desc`),
      findInvoiceByKey: (uniqueKey) =>
        Effect.map(invoices(sql`select ${sql.literal(invoiceCols)} from billing_invoices where unique_key = ${uniqueKey}`), firstRow),
      collectibleInvoices: (limit) =>
        orDie(sql<{ invoiceId: string }>`
          select invoice_id from billing_invoices
          where payment_status = 'pending' and payment_attempts = 0 and total_cents > 0
          order by issued_at
          limit ${limit}`).pipe(Effect.map((rows) => rows.map((r) => r.invoiceId))),
      lockInvoice: (invoiceId) =>
        Effect.map(
          invoices(sql`select ${sql.literal(invoiceCols)} from billing_invoices where invoice_id = ${invoiceId} for update`),
          firstRow
        ),
      updateInvoicePayment: (inv) =>
        orDie(sql`
          update billing_invoices set payment_status = ${inv.paymentStatus}, payment_attempts = ${inv.paymentAttempts}
          where invoice_id = ${inv.invoiceId}`).pipe(Effect.asVoid),

      insertUsageRecords: (projectId, records) =>
        !Arr.isReadonlyArrayNonEmpty(records) ? Effect.succeed([]) : orDie(sql<{ recordId: string }>`
          insert into billing_usage_records ${sql.insert(Arr.map(records, (r) => ({
            projectId,
            recordId: r.recordId,
            metricCode: r.metricCode,
            category: r.category,
            quantity: r.quantity,
            occurredAt: toDate(r.occurredAt),
            recordedAt: toDate(r.recordedAt)
          })))}
          on conflict (project_id, record_id) do nothing
          returning record_id`).pipe(Effect.map((rows) => rows.map((r) => r.recordId))),

      findOrganizationSubscription: (organizationId) =>
        Effect.map(
          organizationSubscriptions(sql`select record from billing_organization_subscriptions where organization_id = ${organizationId}`),
          firstRow
        ),
      lockOrganizationSubscription: (organizationId) =>
        Effect.map(
          organizationSubscriptions(sql`
            select record from billing_organization_subscriptions where organization_id = ${organizationId} for update`),
          firstRow
        ),
      saveOrganizationSubscription: (sub) =>
        Effect.flatMap(Effect.map(orDie(encodeOrganizationSubscription(sub)), JSON.stringify), (record) =>
          orDie(sql`
            insert into billing_organization_subscriptions (organization_id, paid_through_ends_at, record)
            values (${sub.organizationId}, ${new Date((sub.paidThroughDay + 1) * 86_400_000)}, ${record}::jsonb)
            on conflict (organization_id) do update set paid_through_ends_at = excluded.paid_through_ends_at, record = excluded.record`))
          .pipe(Effect.asVoid),
      dueOrganizationSubscriptions: ({ limit, now }) =>
        orDie(sql<{ organizationId: string }>`
          select organization_id from billing_organization_subscriptions
          where paid_through_ends_at <= ${toDate(now)}
          order by paid_through_ends_at, organization_id
          limit ${limit}`).pipe(Effect.map((rows) => rows.map((r) => OrganizationId.make(r.organizationId)))),
      findAccount: (organizationId) =>
        Effect.map(
          accounts(sql`
            select organization_id, payment_method, credit_balance_cents, invoice_count
            from billing_accounts where organization_id = ${organizationId}`),
          firstRow
        ),
      lockAccount: (organizationId) =>
        Effect.gen(function*() {
          yield* orDie(sql`insert into billing_accounts (organization_id) values (${organizationId}) on conflict do nothing`)
          const rows = yield* accounts(sql`
            select organization_id, payment_method, credit_balance_cents, invoice_count
            from billing_accounts where organization_id = ${organizationId}
            for update`)
          return rows[0]!
        }),
      updateAccount: (account) =>
        orDie(sql`
          update billing_accounts
          set payment_method = ${account.paymentMethod === null ? null : JSON.stringify(account.paymentMethod)}::jsonb,
              credit_balance_cents = ${account.creditBalanceCents}, invoice_count = ${account.invoiceCount}
          where organization_id = ${account.organizationId}`).pipe(Effect.asVoid)
    })
  })
)
