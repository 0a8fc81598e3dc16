/**
 * The Dashboard API's request bodies and response data (API.md §2), one schema per operation for
 * all three content types (form fields are coerced by `DashboardBody`). Every field is bounded.
 * The same schemas describe the operations in `/api/openapi.json`.
 */
import { Billing } from "@switchboard/core"
import { AccountServiceKey, KeyName, PhoneNumberInput, SixDigitCode } from "@switchboard/core/accounts"
import { Invitation, OrganizationRole } from "@switchboard/core/organizations"
import { PlatformName, PlatformStatesSchema } from "@switchboard/core/projects"
import { BoundedString, Email, NullableTimestamp, OrganizationId, ProjectId, Timestamp } from "@switchboard/core/shared"
import { Schema } from "effect"

const strict = { parseOptions: { onExcessProperty: "error" as const } }

/** A path or absolute URL to go back to after sign-in (checked to be same-origin before use). */
const ReturnTo = Schema.String.pipe(Schema.maxLength(2048))

// ---------------------------------------------------------------------------------------------
// Sign-in component (`/api/auth/*`)
// ---------------------------------------------------------------------------------------------

export const SignUpBody = Schema.Struct({
  email: Email,
  password: Schema.Redacted(BoundedString(1, 1024)),
  name: Schema.optional(BoundedString(1, 256)),
  firstName: Schema.optional(BoundedString(1, 256)),
  lastName: Schema.optional(BoundedString(1, 256)),
  returnTo: Schema.optional(ReturnTo)
}).annotations({ identifier: "SignUpRequest", ...strict })

export const SignInBody = Schema.Struct({
  email: Email,
  password: Schema.Redacted(BoundedString(1, 1024)),
  /** The TOTP code, required once the account has a verified factor. */
  code: Schema.optional(Schema.String.pipe(Schema.maxLength(16))),
  returnTo: Schema.optional(ReturnTo)
}).annotations({ identifier: "SignInRequest", ...strict })

export const SignOutBody = Schema.Struct({ returnTo: Schema.optional(ReturnTo) }).annotations({ identifier: "SignOutRequest", ...strict })

export const SessionUser = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  name: Schema.String,
  picture: Schema.String
}).annotations({ identifier: "SessionUser" })

export const SessionInfo = Schema.Struct({
  session: Schema.Struct({
    createdAt: Timestamp,
    expiresAt: Timestamp,
    authenticatedAt: Timestamp
  }),
  user: SessionUser,
  /** Send it as `X-CSRF-Token` (or the `_csrf` form field) with state-changing requests. */
  csrfToken: Schema.String
}).annotations({ identifier: "SessionInfo" })

export const AccessTokenData = Schema.Struct({
  token: Schema.String,
  tokenType: Schema.Literal("Bearer"),
  expiresIn: Schema.Int,
  expiresAt: Timestamp,
  scope: Schema.String
}).annotations({ identifier: "DashboardAccessToken" })

// ---------------------------------------------------------------------------------------------
// Dashboard API
// ---------------------------------------------------------------------------------------------

export const Health = Schema.Struct({
  status: Schema.Literal("ok"),
  version: Schema.String,
  releaseLine: Schema.Literal("stable", "beta")
}).annotations({ identifier: "Health" })

/** Readiness (`GET /api/health/ready`): the database decides; the delivery backlog is reported. */
export const Readiness = Schema.Struct({
  status: Schema.Literal("ready", "not_ready"),
  database: Schema.Struct({ ok: Schema.Boolean, latencyMs: Schema.Number }),
  deliveries: Schema.Struct({
    pending: Schema.Int,
    deadLettered: Schema.Int,
    /** How long the longest-waiting due delivery has waited (0: none is overdue). */
    backlogAgeSeconds: Schema.Int
  }),
  /** Requests this process is serving now, this one included (shutdown waits for them). */
  requestsInFlight: Schema.Int
}).annotations({ identifier: "Readiness" })

export const Profile = Schema.Struct({
  id: Schema.String,
  email: Schema.optional(Schema.String),
  name: Schema.String,
  picture: Schema.String
}).annotations({ identifier: "Profile" })

export const DashboardProject = Schema.Struct({
  id: ProjectId,
  name: Schema.String,
  slug: Schema.String,
  organizationId: Schema.String,
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotations({ identifier: "DashboardProject" })

export const CreateProjectBody = Schema.Struct({
  name: BoundedString(1, 256),
  organizationId: Schema.optional(OrganizationId)
}).annotations({ identifier: "CreateDashboardProjectRequest", ...strict })

export const AutoScaleBody = Schema.Struct({ autoScale: Schema.Boolean }).annotations({
  identifier: "IMessageAutoScaleRequest",
  ...strict
})
export const AutoScale = Schema.Struct({ autoScale: Schema.Boolean }).annotations({ identifier: "IMessageAutoScale" })

const SlackSecret = Schema.Redacted(BoundedString(1, 512))
export const SlackBody = Schema.Struct({
  enabledFeatures: Schema.Array(BoundedString(1, 64)).pipe(Schema.maxItems(32)),
  clientId: BoundedString(1, 256),
  clientSecret: SlackSecret,
  signingSecret: SlackSecret,
  appId: BoundedString(1, 256)
}).annotations({ identifier: "ProjectSlackIntegrationRequest", ...strict })

export const SlackIntegration = Schema.Struct({
  enabledFeatures: Schema.Array(Schema.String),
  clientId: Schema.String,
  clientSecret: Schema.Literal("[redacted]"),
  signingSecret: Schema.Literal("[redacted]"),
  appId: Schema.String,
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotations({ identifier: "ProjectSlackIntegration" })

export const TogglePlatformBody = Schema.Struct({
  platformId: PlatformName,
  enabled: Schema.Boolean
}).annotations({ identifier: "TogglePlatformRequest", ...strict })

export const PlatformStates = PlatformStatesSchema

export const ProjectSecret = Schema.Struct({ projectSecret: Schema.String }).annotations({ identifier: "ProjectSecret" })

export const CreateWebhookBody = Schema.Struct({ webhookUrl: BoundedString(1, 2048) }).annotations({
  identifier: "CreateProjectWebhookRequest",
  ...strict
})
export const ProjectWebhook = Schema.Struct({
  id: Schema.String,
  webhookUrl: Schema.String,
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotations({ identifier: "ProjectWebhook" })
export const CreatedProjectWebhook = Schema.Struct({
  ...ProjectWebhook.fields,
  signingSecret: Schema.String
}).annotations({ identifier: "CreatedProjectWebhook" })
export const DeletedProjectWebhook = Schema.Struct({ id: Schema.String }).annotations({ identifier: "DeletedProjectWebhook" })

export const ProjectMember = Schema.Struct({
  accountId: Schema.String,
  email: Schema.String,
  role: OrganizationRole,
  joinedAt: Timestamp
}).annotations({ identifier: "ProjectMember" })

export const InvitationBody = Schema.Struct({
  email: Email,
  role: Schema.optional(OrganizationRole)
}).annotations({ identifier: "CreateProjectInvitationRequest", ...strict })
export const CreatedInvitation = Schema.Struct({ invitation: Invitation, token: Schema.String }).annotations({
  identifier: "CreatedProjectInvitation"
})

export const Subscription = Billing.BillingOverview
export const CheckoutBody = Schema.Struct({
  projectId: Schema.optional(ProjectId),
  organizationId: Schema.optional(OrganizationId)
}).annotations({ identifier: "DashboardCheckoutRequest", ...strict })
/** `subscribeOrganization`: a plan of the catalog's `organization` category and the starting quantities of its fixed charges (else their defaults). */
export const OrganizationSubscribeBody = Schema.Struct({
  planCode: Billing.PlanCode,
  fixedCharges: Schema.optional(Schema.Array(Billing.HeldFixedCharge).pipe(
    Schema.maxItems(Billing.MAX_PLAN_CHANGE_ADDITIONS),
    Schema.filter((xs) => new Set(xs.map((x) => x.fixedChargeCode)).size === xs.length || "each fixed charge may be named once")
  ))
}).annotations({ identifier: "DashboardOrganizationSubscribeRequest", ...strict })
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
  teamSize: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.between(1, 10_000_000))))
}).annotations({ identifier: "OnboardingDetailsRequest", ...strict })
export const OnboardingDetails = Schema.Struct({
  companyName: Schema.NullOr(Schema.String),
  role: Schema.NullOr(Schema.String),
  useCase: Schema.NullOr(Schema.String),
  teamSize: Schema.NullOr(Schema.Int),
  updatedAt: NullableTimestamp
}).annotations({ identifier: "OnboardingDetails" })

export const OtpSendBody = Schema.Struct({ phoneNumber: PhoneNumberInput }).annotations({ identifier: "SendOtpRequest", ...strict })
export const OtpSent = Schema.Struct({
  channel: Schema.Literal("sms"),
  expiresAt: Timestamp,
  resendAvailableAt: Timestamp
}).annotations({ identifier: "OtpSent" })
export const OtpVerifyBody = Schema.Struct({ phoneNumber: PhoneNumberInput, code: SixDigitCode }).annotations({
  identifier: "VerifyOtpRequest",
  ...strict
})
export const OtpVerified = Schema.Struct({
  phoneNumber: Schema.String,
  phoneVerifiedAt: Timestamp
}).annotations({ identifier: "OtpVerified" })

export const CreateServiceKeyBody = Schema.Struct({ name: KeyName, expiresAt: NullableTimestamp }).annotations({
  identifier: "CreateDashboardServiceKeyRequest",
  ...strict
})
export const ServiceKeys = Schema.Array(AccountServiceKey)
export const CreatedServiceKey = Schema.Struct({ serviceKey: AccountServiceKey, secret: Schema.String }).annotations({
  identifier: "CreatedDashboardServiceKey"
})

export const IdentitySnapshot = Schema.Struct({
  distinctId: Schema.String,
  email: Schema.optional(Schema.String),
  name: Schema.String,
  organizationIds: Schema.Array(Schema.String),
  projectCount: Schema.Int,
  createdAt: Timestamp
}).annotations({ identifier: "IdentitySnapshot" })

export const Diagnostics = Schema.Struct({
  version: Schema.String,
  releaseLine: Schema.Literal("stable", "beta"),
  uptimeSeconds: Schema.Number,
  database: Schema.Struct({ ok: Schema.Boolean, latencyMs: Schema.Number, migrations: Schema.Array(Schema.String) }),
  deliveries: Schema.Struct({ pending: Schema.Int, deadLettered: Schema.Int })
}).annotations({ identifier: "SystemDiagnostics" })

export const PrivacyRequestBody = Schema.Struct({ email: Email }).annotations({ identifier: "PrivacyRequest", ...strict })
export const PrivacyRequestReceived = Schema.Struct({
  requestId: Schema.String,
  status: Schema.Literal("received")
}).annotations({ identifier: "PrivacyRequestReceived" })

const Uri = BoundedString(1, 2048)
export const OAuthClientType = Schema.Literal("confidential", "public")
export const CreateOAuthAppBody = Schema.Struct({
  name: BoundedString(1, 128),
  logoUri: Schema.optional(Schema.NullOr(Uri)),
  homepageUri: Schema.optional(Schema.NullOr(Uri)),
  redirectUris: Schema.Array(Uri).pipe(Schema.maxItems(10)),
  clientType: OAuthClientType,
  scopes: Schema.Array(BoundedString(1, 64)).pipe(Schema.maxItems(32))
}).annotations({ identifier: "CreateOAuthAppRequest", ...strict })
export const UpdateOAuthAppBody = Schema.Struct({
  name: Schema.optional(BoundedString(1, 128)),
  logoUri: Schema.optional(Schema.NullOr(Uri)),
  homepageUri: Schema.optional(Schema.NullOr(Uri)),
  redirectUris: Schema.optional(Schema.Array(Uri).pipe(Schema.maxItems(10))),
  scopes: Schema.optional(Schema.Array(BoundedString(1, 64)).pipe(Schema.maxItems(32)))
}).annotations({ identifier: "UpdateOAuthAppRequest", ...strict })
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
}).annotations({ identifier: "OAuthApp" })
export const OAuthAppWithSecret = Schema.Struct({
  app: OAuthAppView,
  /** Shown once: at creation (confidential apps) and at each rotation. */
  clientSecret: Schema.NullOr(Schema.String)
}).annotations({ identifier: "OAuthAppWithSecret" })
export const OAuthConsent = Schema.Struct({
  clientId: Schema.String,
  name: Schema.String,
  logoUri: Schema.NullOr(Schema.String),
  homepageUri: Schema.NullOr(Schema.String),
  scopes: Schema.Array(Schema.String),
  grantedAt: Timestamp
}).annotations({ identifier: "OAuthConsent" })
export const Withdrawn = Schema.Struct({ clientId: Schema.String, withdrawn: Schema.Literal(true) }).annotations({
  identifier: "OAuthConsentWithdrawn"
})
export const Deleted = Schema.Struct({ clientId: Schema.String, deleted: Schema.Literal(true) }).annotations({
  identifier: "OAuthAppDeleted"
})
