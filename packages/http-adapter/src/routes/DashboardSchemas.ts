/**
 * The Dashboard API's request bodies and response data (docs/api-notes/dashboard-api.md), one
 * schema per operation for all three content types (form fields are coerced by `DashboardBody`).
 * Every field is bounded. The same schemas describe the operations in `/api/openapi.json`.
 */
import { Billing } from "@switchboard/core"
import { AccountServiceKey, KeyName, PhoneNumberInput, SixDigitCode } from "@switchboard/core/accounts"
import { Invitation, OrganizationRole } from "@switchboard/core/organizations"
import { PlatformName, PlatformStatesSchema } from "@switchboard/core/projects"
import { BoundedString, Email, NullableTimestamp, OrganizationId, ProjectId, Timestamp } from "@switchboard/core/shared"
import { Schema } from "effect"

/** A path or absolute URL to go back to after sign-in (checked to be same-origin before use). */
const ReturnTo = Schema.String.pipe(Schema.check(Schema.isMaxLength(2048)))

// ---------------------------------------------------------------------------------------------
// Sign-in component (`/api/auth/*`)
// ---------------------------------------------------------------------------------------------

export const SignUpBody = Schema.Struct({
  email: Email,
  password: Schema.RedactedFromValue(BoundedString(1, 1024)),
  name: Schema.optional(BoundedString(1, 256)),
  firstName: Schema.optional(BoundedString(1, 256)),
  lastName: Schema.optional(BoundedString(1, 256)),
  returnTo: Schema.optional(ReturnTo)
}).annotate({ identifier: "SignUpRequest" })

export const SignInBody = Schema.Struct({
  email: Email,
  password: Schema.RedactedFromValue(BoundedString(1, 1024)),
  /** The TOTP code, required once the account has a verified factor. */
  code: Schema.optional(Schema.String.pipe(Schema.check(Schema.isMaxLength(16)))),
  returnTo: Schema.optional(ReturnTo)
}).annotate({ identifier: "SignInRequest" })

export const SignOutBody = Schema.Struct({ returnTo: Schema.optional(ReturnTo) }).annotate({ identifier: "SignOutRequest" })

export const SessionUser = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  name: Schema.String,
  picture: Schema.String
}).annotate({ identifier: "SessionUser" })

export const SessionInfo = Schema.Struct({
  session: Schema.Struct({
    createdAt: Timestamp,
    expiresAt: Timestamp,
    authenticatedAt: Timestamp
  }),
  user: SessionUser,
  /** Send it as `X-CSRF-Token` (or the `_csrf` form field) with state-changing requests. */
  csrfToken: Schema.String
}).annotate({ identifier: "SessionInfo" })

export const AccessTokenData = Schema.Struct({
  token: Schema.String,
  tokenType: Schema.Literal("Bearer"),
  expiresIn: Schema.Int,
  expiresAt: Timestamp,
  scope: Schema.String
}).annotate({ identifier: "DashboardAccessToken" })

// ---------------------------------------------------------------------------------------------
// Dashboard API
// ---------------------------------------------------------------------------------------------

export const Health = Schema.Struct({
  status: Schema.Literal("ok"),
  version: Schema.String,
  releaseLine: Schema.Literals(["stable", "beta"])
}).annotate({ identifier: "Health" })

/** Readiness (`GET /api/health/ready`): the database decides; the delivery backlog is reported. */
export const Readiness = Schema.Struct({
  status: Schema.Literals(["ready", "not_ready"]),
  database: Schema.Struct({ ok: Schema.Boolean, latencyMs: Schema.Number }),
  deliveries: Schema.Struct({
    pending: Schema.Int,
    deadLettered: Schema.Int,
    /** How long the longest-waiting due delivery has waited (0: none is overdue). */
    backlogAgeSeconds: Schema.Int
  }),
  /** Requests this process is serving now, this one included (shutdown waits for them). */
  requestsInFlight: Schema.Int
}).annotate({ identifier: "Readiness" })

export const Profile = Schema.Struct({
  id: Schema.String,
  email: Schema.optional(Schema.String),
  name: Schema.String,
  picture: Schema.String
}).annotate({ identifier: "Profile" })

export const DashboardProject = Schema.Struct({
  id: ProjectId,
  name: Schema.String,
  slug: Schema.String,
  organizationId: Schema.String,
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotate({ identifier: "DashboardProject" })

export const CreateProjectBody = Schema.Struct({
  name: BoundedString(1, 256),
  organizationId: Schema.optional(OrganizationId)
}).annotate({ identifier: "CreateDashboardProjectRequest" })

export const AutoScaleBody = Schema.Struct({ autoScale: Schema.Boolean }).annotate({ identifier: "IMessageAutoScaleRequest" })
export const AutoScale = Schema.Struct({ autoScale: Schema.Boolean }).annotate({ identifier: "IMessageAutoScale" })

const SlackSecret = Schema.RedactedFromValue(BoundedString(1, 512))
export const SlackBody = Schema.Struct({
  enabledFeatures: Schema.Array(BoundedString(1, 64)).pipe(Schema.check(Schema.isMaxLength(32))),
  clientId: BoundedString(1, 256),
  clientSecret: SlackSecret,
  signingSecret: SlackSecret,
  appId: BoundedString(1, 256)
}).annotate({ identifier: "ProjectSlackIntegrationRequest" })

export const SlackIntegration = Schema.Struct({
  enabledFeatures: Schema.Array(Schema.String),
  clientId: Schema.String,
  clientSecret: Schema.Literal("[redacted]"),
  signingSecret: Schema.Literal("[redacted]"),
  appId: Schema.String,
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotate({ identifier: "ProjectSlackIntegration" })

export const TogglePlatformBody = Schema.Struct({
  platformId: PlatformName,
  enabled: Schema.Boolean
}).annotate({ identifier: "TogglePlatformRequest" })

export const PlatformStates = PlatformStatesSchema

export const ProjectSecret = Schema.Struct({ projectSecret: Schema.String }).annotate({ identifier: "ProjectSecret" })

export const CreateWebhookBody = Schema.Struct({ webhookUrl: BoundedString(1, 2048) }).annotate({ identifier: "CreateProjectWebhookRequest" })
export const ProjectWebhook = Schema.Struct({
  id: Schema.String,
  webhookUrl: Schema.String,
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotate({ identifier: "ProjectWebhook" })
export const CreatedProjectWebhook = Schema.Struct({
  ...ProjectWebhook.fields,
  signingSecret: Schema.String
}).annotate({ identifier: "CreatedProjectWebhook" })
export const DeletedProjectWebhook = Schema.Struct({ id: Schema.String }).annotate({ identifier: "DeletedProjectWebhook" })

export const ProjectMember = Schema.Struct({
  accountId: Schema.String,
  email: Schema.String,
  role: OrganizationRole,
  joinedAt: Timestamp
}).annotate({ identifier: "ProjectMember" })

export const InvitationBody = Schema.Struct({
  email: Email,
  role: Schema.optional(OrganizationRole)
}).annotate({ identifier: "CreateProjectInvitationRequest" })
export const CreatedInvitation = Schema.Struct({ invitation: Invitation, token: Schema.String }).annotate({
  identifier: "CreatedProjectInvitation"
})

export const Subscription = Billing.BillingOverview
export const CheckoutBody = Schema.Struct({
  projectId: Schema.optional(ProjectId),
  organizationId: Schema.optional(OrganizationId)
}).annotate({ identifier: "DashboardCheckoutRequest" })
/** `subscribeOrganization`: a plan of the catalog's `organization` category and the starting quantities of its fixed charges (else their defaults). */
export const OrganizationSubscribeBody = Schema.Struct({
  planCode: Billing.PlanCode,
  fixedCharges: Schema.optional(Schema.Array(Billing.HeldFixedCharge).pipe(
    Schema.check(Schema.isMaxLength(Billing.MAX_PLAN_CHANGE_ADDITIONS)),
    Schema.check(Schema.makeFilter((xs) => new Set(xs.map((x) => x.fixedChargeCode)).size === xs.length || "each fixed charge may be named once"))
  ))
}).annotate({ identifier: "DashboardOrganizationSubscribeRequest" })
export const OrganizationFixedChargeBody = Billing.AdjustFixedChargeQuantityRequest
export const OrganizationBilling = Billing.OrganizationBillingOverview
export const Checkout = Billing.CheckoutResponse
export const PaymentMethod = Billing.PaymentMethodResponse
export const PaymentSetup = Billing.SetupIntentResponse

const Answer = (max: number) => Schema.optional(Schema.NullOr(BoundedString(1, max)))
export const OnboardingBody = Schema.Struct({
  companyName: Answer(256),
  role: Answer(256),
  useCase: Answer(2048),
  teamSize: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 10_000_000 })))))
}).annotate({ identifier: "OnboardingDetailsRequest" })
export const OnboardingDetails = Schema.Struct({
  companyName: Schema.NullOr(Schema.String),
  role: Schema.NullOr(Schema.String),
  useCase: Schema.NullOr(Schema.String),
  teamSize: Schema.NullOr(Schema.Int),
  updatedAt: NullableTimestamp
}).annotate({ identifier: "OnboardingDetails" })

export const OtpSendBody = Schema.Struct({ phoneNumber: PhoneNumberInput }).annotate({ identifier: "SendOtpRequest" })
export const OtpSent = Schema.Struct({
  channel: Schema.Literal("sms"),
  expiresAt: Timestamp,
  resendAvailableAt: Timestamp
}).annotate({ identifier: "OtpSent" })
export const OtpVerifyBody = Schema.Struct({ phoneNumber: PhoneNumberInput, code: SixDigitCode }).annotate({ identifier: "VerifyOtpRequest" })
export const OtpVerified = Schema.Struct({
  phoneNumber: Schema.String,
  phoneVerifiedAt: Timestamp
}).annotate({ identifier: "OtpVerified" })

export const CreateServiceKeyBody = Schema.Struct({ name: KeyName, expiresAt: NullableTimestamp }).annotate({ identifier: "CreateDashboardServiceKeyRequest" })
export const ServiceKeys = Schema.Array(AccountServiceKey)
export const CreatedServiceKey = Schema.Struct({ serviceKey: AccountServiceKey, secret: Schema.String }).annotate({
  identifier: "CreatedDashboardServiceKey"
})

export const IdentitySnapshot = Schema.Struct({
  distinctId: Schema.String,
  email: Schema.optional(Schema.String),
  name: Schema.String,
  organizationIds: Schema.Array(Schema.String),
  projectCount: Schema.Int,
  createdAt: Timestamp
}).annotate({ identifier: "IdentitySnapshot" })

export const Diagnostics = Schema.Struct({
  version: Schema.String,
  releaseLine: Schema.Literals(["stable", "beta"]),
  uptimeSeconds: Schema.Number,
  database: Schema.Struct({ ok: Schema.Boolean, latencyMs: Schema.Number, migrations: Schema.Array(Schema.String) }),
  deliveries: Schema.Struct({ pending: Schema.Int, deadLettered: Schema.Int })
}).annotate({ identifier: "SystemDiagnostics" })

export const PrivacyRequestBody = Schema.Struct({ email: Email }).annotate({ identifier: "PrivacyRequest" })
export const PrivacyRequestReceived = Schema.Struct({
  requestId: Schema.String,
  status: Schema.Literal("received")
}).annotate({ identifier: "PrivacyRequestReceived" })

const Uri = BoundedString(1, 2048)
export const OAuthClientType = Schema.Literals(["confidential", "public"])
export const CreateOAuthAppBody = Schema.Struct({
  name: BoundedString(1, 128),
  logoUri: Schema.optional(Schema.NullOr(Uri)),
  homepageUri: Schema.optional(Schema.NullOr(Uri)),
  redirectUris: Schema.Array(Uri).pipe(Schema.check(Schema.isMaxLength(10))),
  clientType: OAuthClientType,
  scopes: Schema.Array(BoundedString(1, 64)).pipe(Schema.check(Schema.isMaxLength(32)))
}).annotate({ identifier: "CreateOAuthAppRequest" })
export const UpdateOAuthAppBody = Schema.Struct({
  name: Schema.optional(BoundedString(1, 128)),
  logoUri: Schema.optional(Schema.NullOr(Uri)),
  homepageUri: Schema.optional(Schema.NullOr(Uri)),
  redirectUris: Schema.optional(Schema.Array(Uri).pipe(Schema.check(Schema.isMaxLength(10)))),
  scopes: Schema.optional(Schema.Array(BoundedString(1, 64)).pipe(Schema.check(Schema.isMaxLength(32))))
}).annotate({ identifier: "UpdateOAuthAppRequest" })
export const OAuthAppView = Schema.Struct({
  clientId: Schema.String,
  name: Schema.String,
  logoUri: Schema.NullOr(Schema.String),
  homepageUri: Schema.NullOr(Schema.String),
  redirectUris: Schema.Array(Schema.String),
  clientType: OAuthClientType,
  scopes: Schema.Array(Schema.String),
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotate({ identifier: "OAuthApp" })
export const OAuthAppWithSecret = Schema.Struct({
  app: OAuthAppView,
  /** Shown once: at creation (confidential apps) and at each rotation. */
  clientSecret: Schema.NullOr(Schema.String)
}).annotate({ identifier: "OAuthAppWithSecret" })
export const OAuthConsent = Schema.Struct({
  clientId: Schema.String,
  name: Schema.String,
  logoUri: Schema.NullOr(Schema.String),
  homepageUri: Schema.NullOr(Schema.String),
  scopes: Schema.Array(Schema.String),
  grantedAt: Timestamp
}).annotate({ identifier: "OAuthConsent" })
export const Withdrawn = Schema.Struct({ clientId: Schema.String, withdrawn: Schema.Literal(true) }).annotate({
  identifier: "OAuthConsentWithdrawn"
})
export const Deleted = Schema.Struct({ clientId: Schema.String, deleted: Schema.Literal(true) }).annotate({
  identifier: "OAuthAppDeleted"
})
