/** The Account and Installations groups of the Dashboard API: service keys, OAuth apps, authorized apps, app installation requests. Session only. */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ApproveInstallationBody, AppKeySetBody, AppKeySetView, InstallationDecision, InstallationRequestView } from "@switchboard/core/oauth"
import { Schema } from "effect"
import * as S from "../routes/DashboardSchemas.js"
import { declared, envelope, failures, SessionOnly } from "./Declare.js"

const clientId = { clientId: Schema.String }
const requestId = { requestId: Schema.String }
const access = SessionOnly

export const AccountGroup = HttpApiGroup.make("dashboard-account")
  .add(HttpApiEndpoint.get("listServiceKeys", "/api/account/service-keys", {
    success: envelope(S.ServiceKeys),
    error: failures(401, 403, 500)
  }).annotateMerge(declared({ name: "listServiceKeys", access, summary: "The account's service keys", description: "The account's service keys (for the versioned API), without their secrets." })))
  .add(HttpApiEndpoint.post("createServiceKey", "/api/account/service-keys", {
    payload: S.CreateServiceKeyBody,
    success: envelope(S.CreatedServiceKey),
    error: failures(401, 403, 422, 500)
  }).annotateMerge(declared({ name: "createServiceKey", access, summary: "Create a service key (shown once)", description: "Creates a service key; its secret is in this answer only." })))
  .add(HttpApiEndpoint.delete("revokeServiceKey", "/api/account/service-keys/:serviceKeyId", {
    params: { serviceKeyId: Schema.String },
    success: envelope(S.CreatedServiceKey.fields.serviceKey),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "revokeServiceKey", access, summary: "Revoke a service key", description: "Revokes a service key; requests made with it fail from now on." })))
  .add(HttpApiEndpoint.get("listOAuthApps", "/api/oauth-apps", {
    success: envelope(S.OAuthAppView, "list"),
    error: failures(401, 403, 500)
  }).annotateMerge(declared({ name: "listOAuthApps", access, summary: "The account's OAuth apps", description: "The OAuth apps the account owns." })))
  .add(HttpApiEndpoint.post("createOAuthApp", "/api/oauth-apps", {
    payload: S.CreateOAuthAppBody,
    success: envelope(S.OAuthAppWithSecret),
    error: failures(401, 403, 422, 500)
  }).annotateMerge(declared({ name: "createOAuthApp", access, summary: "Create an OAuth app (a confidential app's secret is shown once)", description: "Registers an OAuth app with its redirect URIs and scopes. A confidential app's client secret is shown once." })))
  .add(HttpApiEndpoint.get("getOAuthApp", "/api/oauth-apps/:clientId", {
    params: clientId,
    success: envelope(S.OAuthAppView),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "getOAuthApp", access, summary: "One OAuth app", description: "One OAuth app the account owns." })))
  .add(HttpApiEndpoint.patch("updateOAuthApp", "/api/oauth-apps/:clientId", {
    params: clientId,
    payload: S.UpdateOAuthAppBody,
    success: envelope(S.OAuthAppView),
    error: failures(401, 403, 404, 422, 500)
  }).annotateMerge(declared({ name: "updateOAuthApp", access, summary: "Change an OAuth app's settings", description: "Changes an OAuth app's name, redirect URIs or scopes." })))
  .add(HttpApiEndpoint.delete("deleteOAuthApp", "/api/oauth-apps/:clientId", {
    params: clientId,
    success: envelope(S.Deleted),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "deleteOAuthApp", access, summary: "Delete an OAuth app and every grant of it", description: "Deletes the app and revokes every grant and token issued to it." })))
  .add(HttpApiEndpoint.post("rotateOAuthAppSecret", "/api/oauth-apps/:clientId/rotate-secret", {
    params: clientId,
    success: envelope(S.OAuthAppWithSecret),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "rotateOAuthAppSecret", access, summary: "New client secret, shown once", description: "Replaces a confidential app's client secret and shows the new one once." })))
  .add(HttpApiEndpoint.get("getOAuthAppKeys", "/api/oauth-apps/:clientId/jwks", {
    params: clientId,
    success: envelope(AppKeySetView),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "getOAuthAppKeys", access, summary: "The app's installation keys", description: "The public keys (JWK Set) the app signs its installation client assertions with; an empty list until some are registered." })))
  .add(HttpApiEndpoint.put("setOAuthAppKeys", "/api/oauth-apps/:clientId/jwks", {
    params: clientId,
    payload: AppKeySetBody,
    success: envelope(AppKeySetView),
    error: failures(401, 403, 404, 422, 500)
  }).annotateMerge(declared({ name: "setOAuthAppKeys", access, summary: "Register the app's installation keys", description: "Replaces the app's public keys for installation client assertions: 1 to 5 public JWKs (RSA of 2048 bits or more, EC P-256/384/521 or Ed25519), no private members, at most 16384 characters." })))
  .add(HttpApiEndpoint.get("listOAuthConsents", "/api/oauth-consents", {
    success: envelope(S.OAuthConsent, "list"),
    error: failures(401, 403, 500)
  }).annotateMerge(declared({ name: "listOAuthConsents", access, summary: "Apps the account authorized", description: "The apps the account has authorized, with the scopes granted." })))
  .add(HttpApiEndpoint.delete("withdrawOAuthConsent", "/api/oauth-consents/:clientId", {
    params: clientId,
    success: envelope(S.Withdrawn),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "withdrawOAuthConsent", access, summary: "Withdraw an app's access (consent and every live token)", description: "Withdraws the account's consent to an app and revokes its live tokens." })))
  .annotateMerge(OpenApi.annotations({ title: "Account", description: "Service keys, OAuth apps and authorized apps" }))

export const InstallationsGroup = HttpApiGroup.make("dashboard-installations")
  .add(HttpApiEndpoint.get("listInstallationRequests", "/api/installation-requests", {
    success: envelope(InstallationRequestView, "list"),
    error: failures(401, 403, 500)
  }).annotateMerge(declared({ name: "listInstallationRequests", access, summary: "Installation requests awaiting your decision", description: "The app installation requests this account opened that are still pending and unexpired, newest first (at most 50)." })))
  .add(HttpApiEndpoint.get("getInstallationRequest", "/api/installation-requests/:requestId", {
    params: requestId,
    success: envelope(InstallationRequestView),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "getInstallationRequest", access, summary: "One installation request (the first account to open it owns it)", description: "An app installation request; the first account to open it takes it, and it is not found for every other account." })))
  .add(HttpApiEndpoint.post("approveInstallationRequest", "/api/installation-requests/:requestId/approve", {
    params: requestId,
    payload: ApproveInstallationBody,
    success: envelope(InstallationDecision),
    error: failures(401, 403, 404, 422, 500)
  }).annotateMerge(declared({ name: "approveInstallationRequest", access, summary: "Approve an installation into a project", description: "Approves the request into a project the account can write, with the permissions the app's credential will have; answers the app's redirect URI with a single-use code (10 minutes) and its state. 409 when the request was decided, expired, or the app's settings changed since (APP_INSTALLATION_CONFIG_CHANGED)." })))
  .add(HttpApiEndpoint.post("denyInstallationRequest", "/api/installation-requests/:requestId/deny", {
    params: requestId,
    success: envelope(InstallationDecision),
    error: failures(401, 403, 404, 500)
  }).annotateMerge(declared({ name: "denyInstallationRequest", access, summary: "Deny an installation", description: "Denies the request; answers the app's redirect URI with error=access_denied and its state." })))
  .annotateMerge(OpenApi.annotations({ title: "Installations", description: "App installation requests: approve or deny an app's access to a project" }))
