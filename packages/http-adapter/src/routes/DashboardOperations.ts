/**
 * Every Dashboard API operation (API.md §2) in one table — method, path, tag, who may call it, the
 * request body and the response data — from which the routes are registered, 405 answers are
 * derived, and `GET /api/openapi.json` (OpenAPI 3.1, `info.version` 0.1.0) is written. The
 * sign-in component (`/api/auth/*`) is not part of this API's operation list (SPEC.md § What the
 * service does) and has its own table in `DashboardSignIn.ts`.
 */
import { Schema } from "effect"
import { componentSchemas, asPublished } from "../http/JsonSchemaComponents.js"
import { exampleOf } from "../docs/Examples.js"
import { withoutBuiltinIds } from "../docs/JsonSchemaIds.js"
import * as S from "./DashboardSchemas.js"
import { ApproveInstallationBody, AppKeySetBody, AppKeySetView, InstallationDecision, InstallationRequestView } from "@switchboard/core/oauth"

/** Who may call an operation. */
export type Access =
  /** Anyone, without a credential. */
  | { readonly _tag: "Public" }
  /** A session (every scope) or an OAuth access token holding `scope`. */
  | { readonly _tag: "Scope"; readonly scope: string }
  /** A signed-in session only: OAuth tokens are refused (403). */
  | { readonly _tag: "Session" }
  /** Any valid caller: a session, or an OAuth access token with any scope. */
  | { readonly _tag: "Caller" }

export const Public: Access = { _tag: "Public" }
export const SessionOnly: Access = { _tag: "Session" }
export const AnyCaller: Access = { _tag: "Caller" }
export const scope = (s: string): Access => ({ _tag: "Scope", scope: s })

export type Tag =
  | "Projects" | "Billing" | "Payments" | "Profile" | "Onboarding" | "OTP" | "Account" | "Installations" | "Privacy" | "Analytics"
  | "System"

export interface DashboardOperation {
  readonly operationId: string
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  /** Router form: `:param` segments. */
  readonly path: string
  readonly tag: Tag
  readonly summary: string
  /** What it does, for the reference (`/docs/dashboard`). */
  readonly description: string
  readonly access: Access
  readonly body?: Schema.Codec<any, any>
  readonly data?: Schema.Codec<any, any>
}

const op = (o: DashboardOperation) => o

export const dashboardOperations = [
  op({ operationId: "getHealth", method: "GET", path: "/api/health", tag: "System", summary: "Liveness, version and release line", description: "Answers 200 while the process runs, with its version and release line. Does not touch the database.", access: Public, data: S.Health }),
  op({ operationId: "getReadiness", method: "GET", path: "/api/health/ready", tag: "System", summary: "Readiness: 200 when the database answers, 503 otherwise; reports the webhook delivery backlog", description: "Checks the database with a short query; 503 when it does not answer. Load balancers route on this.", access: Public, data: S.Readiness }),
  op({ operationId: "getOpenApi", method: "GET", path: "/api/openapi.json", tag: "System", summary: "This API description", description: "The OpenAPI 3.1 document of the Dashboard API, generated from the same operation table the routes are registered from.", access: Public }),
  op({ operationId: "getProfile", method: "GET", path: "/api/profile", tag: "Profile", summary: "The caller's profile (email with the email scope)", description: "The signed-in account's id, name and picture; the email address only when the token holds the email scope.", access: scope("profile"), data: S.Profile }),
  op({ operationId: "listProjects", method: "GET", path: "/api/projects", tag: "Projects", summary: "The caller's projects", description: "Every project of every organization the caller is a member of.", access: scope("projects:read"), data: S.DashboardProject }),
  op({ operationId: "createProject", method: "POST", path: "/api/projects", tag: "Projects", summary: "Create a project", description: "Creates a project in one of the caller's organizations. The slug must be free.", access: scope("projects:write"), body: S.CreateProjectBody, data: S.DashboardProject }),
  op({ operationId: "getProject", method: "GET", path: "/api/projects/:id", tag: "Projects", summary: "One project (404 if not a member)", description: "One project by id; 404 when it does not exist or the caller is not a member of its organization.", access: scope("projects:read"), data: S.DashboardProject }),
  op({ operationId: "getIMessageAutoScale", method: "GET", path: "/api/projects/:id/imessage/auto-scale", tag: "Projects", summary: "iMessage auto-scale setting", description: "Whether iMessage lines are added automatically as traffic grows.", access: scope("spectrum:read"), data: S.AutoScale }),
  op({ operationId: "setIMessageAutoScale", method: "PATCH", path: "/api/projects/:id/imessage/auto-scale", tag: "Projects", summary: "Turn iMessage auto-scale on or off", description: "Turns iMessage auto-scale on or off and answers the new setting.", access: scope("spectrum:write"), body: S.AutoScaleBody, data: S.AutoScale }),
  op({ operationId: "getSlackIntegration", method: "GET", path: "/api/projects/:id/slack", tag: "Projects", summary: "The Slack integration, secrets redacted", description: "The Slack integration's settings; secrets are never returned.", access: scope("spectrum:read"), data: S.SlackIntegration }),
  op({ operationId: "putSlackIntegration", method: "PUT", path: "/api/projects/:id/slack", tag: "Projects", summary: "Set the Slack integration (secrets stored sealed, never shown again)", description: "Replaces the Slack integration. Secrets are stored sealed and are not shown again.", access: scope("spectrum:write"), body: S.SlackBody, data: S.SlackIntegration }),
  op({ operationId: "getPlatforms", method: "GET", path: "/api/projects/:id/platforms", tag: "Projects", summary: "Platform states", description: "Whether each messaging platform is on for the project.", access: scope("spectrum:read"), data: S.PlatformStates }),
  op({ operationId: "togglePlatform", method: "POST", path: "/api/projects/:id/platforms/toggle", tag: "Projects", summary: "Turn a platform on or off", description: "Turns one platform on or off and answers every platform's state.", access: scope("spectrum:write"), body: S.TogglePlatformBody, data: S.PlatformStates }),
  op({ operationId: "regenerateProjectSecret", method: "POST", path: "/api/projects/:id/regenerate-secret", tag: "Projects", summary: "New management secret, shown once (session only: a secret minted through an OAuth grant would outlive it)", description: "Replaces the project's management secret and shows the new one once; the old one stops working at once.", access: SessionOnly, data: S.ProjectSecret }),
  op({ operationId: "listProjectWebhooks", method: "GET", path: "/api/projects/:id/webhooks", tag: "Projects", summary: "Management webhooks", description: "The project's management webhooks, without their signing secrets.", access: scope("webhooks:read"), data: S.ProjectWebhook }),
  op({ operationId: "createProjectWebhook", method: "POST", path: "/api/projects/:id/webhooks", tag: "Projects", summary: "Add a management webhook (signing secret shown once)", description: "Registers a webhook URL for the project's events; its signing secret is in this answer only.", access: scope("webhooks:write"), body: S.CreateWebhookBody, data: S.CreatedProjectWebhook }),
  op({ operationId: "deleteProjectWebhook", method: "DELETE", path: "/api/projects/:id/webhooks/:webhookId", tag: "Projects", summary: "Remove a management webhook", description: "Removes a management webhook; its pending deliveries are cancelled.", access: scope("webhooks:write"), data: S.DeletedProjectWebhook }),
  op({ operationId: "listProjectMembers", method: "GET", path: "/api/projects/:id/members", tag: "Projects", summary: "Members of the project's organization", description: "The members of the project's organization with their roles.", access: scope("members:read"), data: S.ProjectMember }),
  op({ operationId: "inviteProjectMember", method: "POST", path: "/api/projects/:id/members/invitations", tag: "Projects", summary: "Invite someone to the project's organization (token shown once)", description: "Invites an email address to the project's organization with a role; the invitation token is shown once.", access: scope("members:write"), body: S.InvitationBody, data: S.CreatedInvitation }),
  op({ operationId: "getProjectSubscription", method: "GET", path: "/api/projects/:id/subscription", tag: "Billing", summary: "Subscription and usage", description: "The project's plan, billing period and usage so far.", access: scope("billing:read"), data: S.Subscription }),
  op({ operationId: "subscribeOrganization", method: "POST", path: "/api/organizations/:organizationId/subscription", tag: "Billing", summary: "Buy the organization's own plan (owners and admins)", description: "Subscribes the organization itself to a plan of the catalog's organization category (for example SSO seats), from today: the first period's in-advance fees are invoiced now, so a card on file is needed when they are not zero. The /v1 getOrganizationBillingOverview shows it; an organization holds one such subscription.", access: scope("billing:write"), body: S.OrganizationSubscribeBody, data: S.OrganizationBilling }),
  op({ operationId: "setOrganizationFixedCharge", method: "PUT", path: "/api/organizations/:organizationId/subscription/fixed-charges/:fixedChargeCode", tag: "Billing", summary: "Set a fixed charge of the organization's own plan (owners and admins)", description: "Sets the quantity of a fixed charge of the organization's own subscription from now on, charged exactly as the /v1 previewOrganizationChange prices it: added in-advance units are invoiced now (prorated to the period end when the charge is prorated); fewer units are not credited.", access: scope("billing:write"), body: S.OrganizationFixedChargeBody, data: S.OrganizationBilling }),
  op({ operationId: "startCheckout", method: "POST", path: "/api/billing/checkout", tag: "Billing", summary: "A checkout page to add a payment method", description: "Starts a checkout session to add a payment method and answers the page to send the person to.", access: scope("billing:write"), body: S.CheckoutBody, data: S.Checkout }),
  op({ operationId: "getProjectPayments", method: "GET", path: "/api/projects/:id/payments", tag: "Payments", summary: "Payment provider setup of the project's organization", description: "The payment method of the project's organization, if any.", access: scope("payments:read"), data: S.PaymentMethod }),
  op({ operationId: "setUpProjectPayments", method: "POST", path: "/api/projects/:id/payments", tag: "Payments", summary: "Start payment provider setup (a setup intent)", description: "Creates a setup intent with the payment provider for the project's organization.", access: scope("payments:write"), data: S.PaymentSetup }),
  op({ operationId: "getOnboardingDetails", method: "GET", path: "/api/onboarding/details", tag: "Onboarding", summary: "Stored onboarding answers", description: "The answers the account gave during onboarding.", access: SessionOnly, data: S.OnboardingDetails }),
  op({ operationId: "saveOnboardingDetails", method: "POST", path: "/api/onboarding/details", tag: "Onboarding", summary: "Store onboarding answers", description: "Stores the account's onboarding answers (replacing earlier ones).", access: SessionOnly, body: S.OnboardingBody, data: S.OnboardingDetails }),
  op({ operationId: "sendOtp", method: "POST", path: "/api/otp/send", tag: "OTP", summary: "Text a phone verification code", description: "Texts a six-digit code to the phone number to verify it. Rate limited per account and number.", access: SessionOnly, body: S.OtpSendBody, data: S.OtpSent }),
  op({ operationId: "verifyOtp", method: "POST", path: "/api/otp/verify", tag: "OTP", summary: "Confirm the phone number with the code", description: "Checks the code sent by sendOtp and marks the phone number verified.", access: SessionOnly, body: S.OtpVerifyBody, data: S.OtpVerified }),
  op({ operationId: "listServiceKeys", method: "GET", path: "/api/account/service-keys", tag: "Account", summary: "The account's service keys", description: "The account's service keys (for the versioned API), without their secrets.", access: SessionOnly, data: S.ServiceKeys }),
  op({ operationId: "createServiceKey", method: "POST", path: "/api/account/service-keys", tag: "Account", summary: "Create a service key (shown once)", description: "Creates a service key; its secret is in this answer only.", access: SessionOnly, body: S.CreateServiceKeyBody, data: S.CreatedServiceKey }),
  op({ operationId: "revokeServiceKey", method: "DELETE", path: "/api/account/service-keys/:serviceKeyId", tag: "Account", summary: "Revoke a service key", description: "Revokes a service key; requests made with it fail from now on.", access: SessionOnly, data: S.CreatedServiceKey.fields.serviceKey }),
  op({ operationId: "listOAuthApps", method: "GET", path: "/api/oauth-apps", tag: "Account", summary: "The account's OAuth apps", description: "The OAuth apps the account owns.", access: SessionOnly, data: S.OAuthAppView }),
  op({ operationId: "createOAuthApp", method: "POST", path: "/api/oauth-apps", tag: "Account", summary: "Create an OAuth app (a confidential app's secret is shown once)", description: "Registers an OAuth app with its redirect URIs and scopes. A confidential app's client secret is shown once.", access: SessionOnly, body: S.CreateOAuthAppBody, data: S.OAuthAppWithSecret }),
  op({ operationId: "getOAuthApp", method: "GET", path: "/api/oauth-apps/:clientId", tag: "Account", summary: "One OAuth app", description: "One OAuth app the account owns.", access: SessionOnly, data: S.OAuthAppView }),
  op({ operationId: "updateOAuthApp", method: "PATCH", path: "/api/oauth-apps/:clientId", tag: "Account", summary: "Change an OAuth app's settings", description: "Changes an OAuth app's name, redirect URIs or scopes.", access: SessionOnly, body: S.UpdateOAuthAppBody, data: S.OAuthAppView }),
  op({ operationId: "deleteOAuthApp", method: "DELETE", path: "/api/oauth-apps/:clientId", tag: "Account", summary: "Delete an OAuth app and every grant of it", description: "Deletes the app and revokes every grant and token issued to it.", access: SessionOnly, data: S.Deleted }),
  op({ operationId: "rotateOAuthAppSecret", method: "POST", path: "/api/oauth-apps/:clientId/rotate-secret", tag: "Account", summary: "New client secret, shown once", description: "Replaces a confidential app's client secret and shows the new one once.", access: SessionOnly, data: S.OAuthAppWithSecret }),
  op({ operationId: "getOAuthAppKeys", method: "GET", path: "/api/oauth-apps/:clientId/jwks", tag: "Account", summary: "The app's installation keys", description: "The public keys (JWK Set) the app signs its installation client assertions with; an empty list until some are registered.", access: SessionOnly, data: AppKeySetView }),
  op({ operationId: "setOAuthAppKeys", method: "PUT", path: "/api/oauth-apps/:clientId/jwks", tag: "Account", summary: "Register the app's installation keys", description: "Replaces the app's public keys for installation client assertions: 1 to 5 public JWKs (RSA of 2048 bits or more, EC P-256/384/521 or Ed25519), no private members, at most 16384 characters.", access: SessionOnly, body: AppKeySetBody, data: AppKeySetView }),
  op({ operationId: "listInstallationRequests", method: "GET", path: "/api/installation-requests", tag: "Installations", summary: "Installation requests awaiting your decision", description: "The app installation requests this account opened that are still pending and unexpired, newest first (at most 50).", access: SessionOnly, data: InstallationRequestView }),
  op({ operationId: "getInstallationRequest", method: "GET", path: "/api/installation-requests/:requestId", tag: "Installations", summary: "One installation request (the first account to open it owns it)", description: "An app installation request; the first account to open it takes it, and it is not found for every other account.", access: SessionOnly, data: InstallationRequestView }),
  op({ operationId: "approveInstallationRequest", method: "POST", path: "/api/installation-requests/:requestId/approve", tag: "Installations", summary: "Approve an installation into a project", description: "Approves the request into a project the account can write, with the permissions the app's credential will have; answers the app's redirect URI with a single-use code (10 minutes) and its state. 409 when the request was decided, expired, or the app's settings changed since (APP_INSTALLATION_CONFIG_CHANGED).", access: SessionOnly, body: ApproveInstallationBody, data: InstallationDecision }),
  op({ operationId: "denyInstallationRequest", method: "POST", path: "/api/installation-requests/:requestId/deny", tag: "Installations", summary: "Deny an installation", description: "Denies the request; answers the app's redirect URI with error=access_denied and its state.", access: SessionOnly, data: InstallationDecision }),
  op({ operationId: "listOAuthConsents", method: "GET", path: "/api/oauth-consents", tag: "Account", summary: "Apps the account authorized", description: "The apps the account has authorized, with the scopes granted.", access: SessionOnly, data: S.OAuthConsent }),
  op({ operationId: "withdrawOAuthConsent", method: "DELETE", path: "/api/oauth-consents/:clientId", tag: "Account", summary: "Withdraw an app's access (consent and every live token)", description: "Withdraws the account's consent to an app and revokes its live tokens.", access: SessionOnly, data: S.Withdrawn }),
  op({ operationId: "getIdentitySnapshot", method: "GET", path: "/api/analytics/identity", tag: "Analytics", summary: "Identity snapshot for product analytics", description: "The account's identity attributes for product analytics.", access: scope("profile"), data: S.IdentitySnapshot }),
  op({ operationId: "getSystemDiagnostics", method: "GET", path: "/api/system/diagnostics", tag: "System", summary: "Diagnostics (a session of an organization owner)", description: "Version, storage and worker state; only for a session of an organization owner.", access: SessionOnly, data: S.Diagnostics }),
  op({ operationId: "createPrivacyRequest", method: "POST", path: "/api/privacy-requests", tag: "Privacy", summary: "Ask for the erasure of your account's data", description: "Records a request to erase the account's data; answers when it was received.", access: AnyCaller, body: S.PrivacyRequestBody, data: S.PrivacyRequestReceived })
] as const satisfies ReadonlyArray<DashboardOperation>

export type DashboardOperationId = (typeof dashboardOperations)[number]["operationId"]

export const operation = (id: DashboardOperationId): DashboardOperation => dashboardOperations.find((o) => o.operationId === id)!

/** Operations whose data is a list of the `data` schema. */
export const listOperations: ReadonlySet<string> = new Set<string>([
  "listProjects", "listProjectWebhooks", "listProjectMembers", "listOAuthApps", "listOAuthConsents", "listInstallationRequests"
])

type Json = Record<string, any>

const tagDescriptions: Record<Tag, string> = {
  Projects: "Projects, their platforms, integrations, webhooks and members",
  Billing: "Subscription, usage and checkout",
  Payments: "The payment provider setup of an organization",
  Profile: "The caller's profile",
  Onboarding: "Onboarding answers",
  OTP: "Phone verification codes",
  Account: "Service keys, OAuth apps and authorized apps",
  Installations: "App installation requests: approve or deny an app's access to a project",
  Privacy: "Privacy requests",
  Analytics: "Identity for product analytics",
  System: "Health, readiness, diagnostics and this document"
}

const scopes: Record<string, string> = {
  openid: "identify the user", profile: "name and profile picture", email: "email address", offline_access: "refresh token",
  "projects:read": "view projects", "projects:write": "create, edit, delete projects", "members:read": "see collaborators",
  "members:write": "invite and remove collaborators", "webhooks:read": "view project webhooks",
  "webhooks:write": "create and delete project webhooks", "billing:read": "view subscription and billing",
  "billing:write": "manage subscription, start checkout", "spectrum:read": "view platform configuration",
  "spectrum:write": "edit platform configuration", "payments:read": "view payment provider setup",
  "payments:write": "enable and manage payment providers"
}

const errorCodes: Record<string, string> = { "401": "NOT_AUTHENTICATED", "403": "FORBIDDEN", "404": "NOT_FOUND", "422": "VALIDATION_FAILED", "500": "INTERNAL_ERROR" }

const errorResponse = (description: string, status: string) => ({
  description,
  content: {
    "application/json": {
      schema: { $ref: "#/components/schemas/ErrorEnvelope" },
      example: { succeed: false, message: description, code: errorCodes[status] ?? "INTERNAL_ERROR" }
    }
  }
})

/** The OpenAPI 3.1 document of the Dashboard API. */
export const dashboardOpenApi = (dashboardUrl: string, version = "0.1.0"): Json => {
  const definitions: Record<string, any> = {}
  const schemaOf = componentSchemas(definitions)
  const paths: Json = {}
  for (const o of dashboardOperations as ReadonlyArray<DashboardOperation>) {
    const path = o.path.replace(/:([A-Za-z]+)/g, "{$1}")
    const params = [...o.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string", maxLength: 100 }
    }))
    const data = o.data === undefined
      ? {}
      : listOperations.has(o.operationId)
      ? { type: "array", items: schemaOf(o.data) }
      : schemaOf(o.data)
    const responses: Json = {
      "200": o.operationId === "getOpenApi"
        ? { description: "OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } }
        : {
          description: "Success",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["succeed", "data"],
                properties: { succeed: { type: "boolean", const: true }, data }
              },
              ...(o.data === undefined ? {} : {
                example: {
                  succeed: true,
                  data: exampleOf((listOperations.has(o.operationId) ? Schema.Array(o.data) : o.data) as Schema.Codec<any, any, never>)
                }
              })
            }
          }
        }
    }
    if (o.access._tag !== "Public") {
      responses["401"] = errorResponse("Missing, expired or revoked session or token", "401")
      responses["403"] = errorResponse(
        o.access._tag === "Scope"
          ? `The token lacks the scope (message contains insufficient_scope: ${o.access.scope})`
          : o.access._tag === "Session"
          ? "Needs a signed-in session; OAuth tokens are refused"
          : "Forbidden",
        "403"
      )
    }
    if (params.length > 0) responses["404"] = errorResponse("Not found, or not visible to the caller", "404")
    if (o.body !== undefined) responses["422"] = errorResponse("The body failed schema validation", "422")
    responses["500"] = errorResponse("Service-side error, safe to retry with backoff", "500")
    const security = o.access._tag === "Public"
      ? []
      : o.access._tag === "Session"
      ? [{ session: [] }]
      : [{ session: [] }, { oauth2: o.access._tag === "Scope" ? [o.access.scope] : [] }]
    const entry: Json = {
      operationId: o.operationId,
      tags: [o.tag],
      summary: o.summary,
      description: o.description,
      ...(params.length > 0 ? { parameters: params } : {}),
      security,
      responses
    }
    if (o.access._tag === "Scope") entry["x-required-scope"] = o.access.scope
    if (o.body !== undefined) {
      const body = schemaOf(o.body)
      entry.requestBody = {
        required: true,
        description: "The same schema in all three content types; form fields are coerced (booleans, numbers, lists).",
        content: {
          "application/json": { schema: body, example: exampleOf(o.body as Schema.Codec<any, any, never>) },
          "application/x-www-form-urlencoded": { schema: body },
          "multipart/form-data": { schema: body }
        }
      }
    }
    paths[path] = { ...paths[path], [o.method.toLowerCase()]: entry }
  }
  return withoutBuiltinIds(asPublished({
    openapi: "3.1.0",
    info: {
      title: "Switchboard Dashboard API",
      version,
      description: "The REST API of the web dashboard. Every response is an envelope: `{succeed: true, data}` or " +
        "`{succeed: false, message, code}`; the HTTP status is authoritative. Callers: a signed-in session " +
        "(cookie `sb_session`, every scope; state-changing requests need `X-CSRF-Token`, a same-origin `Origin` or " +
        "`X-Requested-With`) or an OAuth access token (its scopes). The sign-in component under `/api/auth/*` is " +
        "not part of this operation list.",
      license: { name: "UNLICENSED", identifier: "UNLICENSED" }
    },
    servers: [{ url: dashboardUrl }],
    tags: Object.entries(tagDescriptions).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: {
        ...definitions,
        ErrorEnvelope: {
          type: "object",
          required: ["succeed", "message"],
          properties: {
            succeed: { type: "boolean", const: false },
            message: { type: "string" },
            code: { type: "string", minLength: 1 }
          }
        }
      },
      securitySchemes: {
        session: { type: "apiKey", in: "cookie", name: "sb_session", description: "A signed-in session: every scope." },
        oauth2: {
          type: "oauth2",
          flows: {
            authorizationCode: {
              authorizationUrl: `${dashboardUrl}/api/auth/oauth2/authorize`,
              tokenUrl: `${dashboardUrl}/api/auth/oauth2/token`,
              refreshUrl: `${dashboardUrl}/api/auth/oauth2/token`,
              scopes
            }
          }
        }
      }
    }
  }))
}
