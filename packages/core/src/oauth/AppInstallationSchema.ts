/**
 * App installation on the wire and at rest (docs/app-installation.md): an OAuth app's backend asks
 * to be installed (`createAppInstallationRequest`), a customer approves the request in the
 * Dashboard (choosing the project and the permissions), the app is sent back to its `redirectUri`
 * with a single-use `code`, and redeems it (`redeemAppInstallationDelivery`) for a credential shown
 * once. Both calls authenticate with a short-lived client assertion (RFC 7523) signed by a key of
 * the app's registered key set.
 */
import { DateTime, Schema } from "effect"
import { ProjectApiKeyPermissions } from "../credentials/ProjectApiKeySchema.js"
import { BoundedString } from "../shared/Bounds.js"
import { type AccountId, type ApiKeyId, IdKinds, type ProjectId, ProjectId as ProjectIdSchema, typeIdPattern } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/** The app: its OAuth `client_id` (`sb_app_…`). */
export const AppId = Schema.String.pipe(
  Schema.check(Schema.isPattern(typeIdPattern(IdKinds.oauthApp), { message: "must be an app id (sb_app_…)" }))
).annotate({ identifier: "AppId" })
export const InstallationRequestId = Schema.String.pipe(
  Schema.check(Schema.isPattern(typeIdPattern(IdKinds.installationRequest), { message: "must be an installation request id" }))
).annotate({ identifier: "InstallationRequestId" })
export const InstallationId = Schema.String.pipe(
  Schema.check(Schema.isPattern(typeIdPattern(IdKinds.installation), { message: "must be an installation id" }))
).annotate({ identifier: "InstallationId" })

/** A signed JWT (RFC 7523 client assertion). */
export const ClientAssertion = BoundedString(1, 16384).annotate({ identifier: "ClientAssertion" })
/** The single-use delivery code: 43 characters of base64url (256 random bits). */
export const DeliveryCode = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[A-Za-z0-9_-]{43}$/u, { message: "must be 43 characters of A-Z, a-z, 0-9, _ and -" }))
).annotate({ identifier: "DeliveryCode" })
/** The app's settings version: changes whenever the app's settings change. */
export const AppVersion = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[1-9][0-9]*$/u, { message: "must be a positive decimal number" }))
).annotate({ identifier: "AppVersion" })
/** The credential's client id: `client_` + the installation's 26 characters. */
export const InstallationClientId = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(256)),
  Schema.check(Schema.isPattern(/^client_[A-Za-z0-9]+$/u, { message: "must be a client_ id" }))
).annotate({ identifier: "InstallationClientId" })

export const CreateAppInstallationRequestRequest = Schema.Struct({
  appId: AppId,
  clientAssertion: ClientAssertion,
  /** One of the app's registered redirect URIs, exactly. */
  redirectUri: BoundedString(1, 4096),
  /** Returned unchanged to `redirectUri` (the app's CSRF token). */
  state: BoundedString(1, 4096)
}).annotate({ identifier: "CreateAppInstallationRequestRequest" }).pipe(noExcessKeys)

export const CreateAppInstallationRequestResponse = Schema.Struct({
  requestId: InstallationRequestId,
  appId: AppId,
  appVersion: AppVersion,
  redirectUri: Schema.String,
  state: Schema.String,
  createdAt: Timestamp
}).annotate({ identifier: "CreateAppInstallationRequestResponse" })

export const RedeemAppInstallationDeliveryRequest = Schema.Struct({
  appId: AppId,
  clientAssertion: ClientAssertion,
  code: DeliveryCode
}).annotate({ identifier: "RedeemAppInstallationDeliveryRequest" }).pipe(noExcessKeys)

/** The first redemption: the credential, in this answer only. */
export const AppInstallationDelivered = Schema.Struct({
  installationId: InstallationId,
  status: Schema.Literal("created"),
  clientId: InstallationClientId,
  /** A project API key (`sb_sk_…`) of the approved project with the approved permissions. */
  clientSecret: Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(8192)))
}).annotate({ identifier: "AppInstallationDelivered" })

/** A later redemption of the same code: the installation's state, never the credential again. */
export const AppInstallationStatus = Schema.Struct({
  installationId: InstallationId,
  status: Schema.Literals(["delivery_consumed", "recovery_required", "revocation_pending", "revoked"])
}).annotate({ identifier: "AppInstallationStatus" })

export const RedeemAppInstallationDeliveryResponse = Schema.Union([AppInstallationDelivered, AppInstallationStatus])
  .annotate({ identifier: "RedeemAppInstallationDeliveryResponse" })

/** Where a request is. `delivered`: its code was redeemed and the credential made. */
export type InstallationRequestStatus = "pending" | "approved" | "denied" | "delivered"

/** One installation request, from creation to delivery. */
export interface InstallationRequestRecord {
  readonly requestId: string
  readonly appId: string
  /** The app's settings version when the request was made. */
  readonly appVersion: string
  readonly redirectUri: string
  readonly state: string
  readonly createdAt: DateTime.Utc
  /** Until when it can be approved. */
  readonly expiresAt: DateTime.Utc
  /** The account that opened it in the Dashboard first (only it sees and decides it). */
  readonly accountId: AccountId | null
  readonly status: InstallationRequestStatus
  readonly projectId: ProjectId | null
  readonly permissions: ReadonlyArray<string>
  readonly decidedAt: DateTime.Utc | null
  /** SHA-256 of the delivery code (approved requests). */
  readonly codeHash: string | null
  readonly codeExpiresAt: DateTime.Utc | null
  readonly installationId: string | null
  readonly apiKeyId: ApiKeyId | null
  readonly deliveredAt: DateTime.Utc | null
}

/** An app's registered public keys (RFC 7517 JWK Set) for its client assertions. */
export interface AppKeySetRecord {
  readonly appId: string
  readonly keys: ReadonlyArray<Record<string, unknown>>
  readonly updatedAt: DateTime.Utc
}

/** A JWK as sent: an object; `AppKeys` checks it is a public signing key. */
const JwkInput = Schema.Record(Schema.String, Schema.Unknown)
/** `PUT /api/oauth-apps/:clientId/jwks`: 1 to 5 public keys. */
export const AppKeySetBody = Schema.Struct({
  keys: Schema.Array(JwkInput).pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(5)))
}).annotate({ identifier: "AppKeySetBody" }).pipe(noExcessKeys)

/** An app's registered key set as the Dashboard shows it (no keys yet: an empty list and no time). */
export const AppKeySetView = Schema.Struct({
  appId: AppId,
  keys: Schema.Array(JwkInput),
  updatedAt: Schema.NullOr(Timestamp)
}).annotate({ identifier: "AppKeySetView" })

/** The Dashboard's view of a request (and the approval body). */
export const InstallationRequestView = Schema.Struct({
  requestId: InstallationRequestId,
  appId: AppId,
  appName: Schema.String,
  appHomepageUri: Schema.NullOr(Schema.String),
  appVersion: AppVersion,
  redirectUri: Schema.String,
  status: Schema.Literals(["pending", "approved", "denied", "delivered", "expired"]),
  projectId: Schema.NullOr(ProjectIdSchema),
  permissions: Schema.Array(Schema.String),
  createdAt: Timestamp,
  expiresAt: Timestamp
}).annotate({ identifier: "InstallationRequestView" })

export const ApproveInstallationBody = Schema.Struct({
  projectId: ProjectIdSchema,
  permissions: ProjectApiKeyPermissions
}).annotate({ identifier: "ApproveInstallationBody" }).pipe(noExcessKeys)

/** Where to send the customer's browser after a decision (the app's redirect URI with `code` or `error`, and `state`). */
export const InstallationDecision = Schema.Struct({
  requestId: InstallationRequestId,
  status: Schema.Literals(["approved", "denied"]),
  redirectTo: Schema.String
}).annotate({ identifier: "InstallationDecision" })
