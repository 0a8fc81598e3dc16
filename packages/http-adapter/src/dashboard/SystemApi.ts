/**
 * The smaller groups of the Dashboard API: System (health, readiness, diagnostics,
 * this API's document), Profile, Analytics, Onboarding, OTP and Privacy.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as S from "../routes/DashboardSchemas.js"
import { AnyCaller, declared, document, envelope, failures, Public, scope, SessionOnly } from "./Declare.js"

export const ProfileGroup = HttpApiGroup.make("dashboard-profile")
  .add(HttpApiEndpoint.get("getProfile", "/api/profile", {
    success: envelope(S.Profile),
    error: failures(401, 403, 500)
  }).annotateMerge(declared({ name: "getProfile", access: scope("profile"), summary: "The caller's profile (email with the email scope)", description: "The signed-in account's id, name and picture; the email address only when the token holds the email scope." })))
  .annotateMerge(OpenApi.annotations({ title: "Profile", description: "The caller's profile" }))

export const OnboardingGroup = HttpApiGroup.make("dashboard-onboarding")
  .add(HttpApiEndpoint.get("getOnboardingDetails", "/api/onboarding/details", {
    success: envelope(S.OnboardingDetails),
    error: failures(401, 403, 500)
  }).annotateMerge(declared({ name: "getOnboardingDetails", access: SessionOnly, summary: "Stored onboarding answers", description: "The answers the account gave during onboarding." })))
  .add(HttpApiEndpoint.post("saveOnboardingDetails", "/api/onboarding/details", {
    payload: S.OnboardingBody,
    success: envelope(S.OnboardingDetails),
    error: failures(401, 403, 422, 500)
  }).annotateMerge(declared({ name: "saveOnboardingDetails", access: SessionOnly, summary: "Store onboarding answers", description: "Stores the account's onboarding answers (replacing earlier ones)." })))
  .annotateMerge(OpenApi.annotations({ title: "Onboarding", description: "Onboarding answers" }))

export const OtpGroup = HttpApiGroup.make("dashboard-otp")
  .add(HttpApiEndpoint.post("sendOtp", "/api/otp/send", {
    payload: S.OtpSendBody,
    success: envelope(S.OtpSent),
    error: failures(401, 403, 422, 500)
  }).annotateMerge(declared({ name: "sendOtp", access: SessionOnly, summary: "Text a phone verification code", description: "Texts a six-digit code to the phone number to verify it. Rate limited per account and number." })))
  .add(HttpApiEndpoint.post("verifyOtp", "/api/otp/verify", {
    payload: S.OtpVerifyBody,
    success: envelope(S.OtpVerified),
    error: failures(401, 403, 422, 500)
  }).annotateMerge(declared({ name: "verifyOtp", access: SessionOnly, summary: "Confirm the phone number with the code", description: "Checks the code sent by sendOtp and marks the phone number verified." })))
  .annotateMerge(OpenApi.annotations({ title: "OTP", description: "Phone verification codes" }))

export const PrivacyGroup = HttpApiGroup.make("dashboard-privacy")
  .add(HttpApiEndpoint.post("createPrivacyRequest", "/api/privacy-requests", {
    payload: S.PrivacyRequestBody,
    success: envelope(S.PrivacyRequestReceived),
    error: failures(401, 403, 422, 500)
  }).annotateMerge(declared({ name: "createPrivacyRequest", access: AnyCaller, summary: "Ask for the erasure of your account's data", description: "Records a request to erase the account's data; answers when it was received." })))
  .annotateMerge(OpenApi.annotations({ title: "Privacy", description: "Privacy requests" }))

export const AnalyticsGroup = HttpApiGroup.make("dashboard-analytics")
  .add(HttpApiEndpoint.get("getIdentitySnapshot", "/api/analytics/identity", {
    success: envelope(S.IdentitySnapshot),
    error: failures(401, 403, 500)
  }).annotateMerge(declared({ name: "getIdentitySnapshot", access: scope("profile"), summary: "Identity snapshot for product analytics", description: "The account's identity attributes for product analytics." })))
  .annotateMerge(OpenApi.annotations({ title: "Analytics", description: "Identity for product analytics" }))

export const SystemGroup = HttpApiGroup.make("dashboard-system")
  .add(HttpApiEndpoint.get("getHealth", "/api/health", {
    success: envelope(S.Health),
    error: failures(500)
  }).annotateMerge(declared({ name: "getHealth", access: Public, summary: "Liveness, version and release line", description: "Answers 200 while the process runs, with its version and release line. Does not touch the database." })))
  .add(HttpApiEndpoint.get("getReadiness", "/api/health/ready", {
    success: envelope(S.Readiness),
    error: failures(500)
  }).annotateMerge(declared({ name: "getReadiness", access: Public, summary: "Readiness: 200 when the database answers, 503 otherwise; reports the webhook delivery backlog", description: "Checks the database with a short query; 503 when it does not answer. Load balancers route on this." })))
  .add(HttpApiEndpoint.get("getOpenApi", "/api/openapi.json", {
    success: document,
    error: failures(500)
  }).annotateMerge(declared({ name: "getOpenApi", access: Public, summary: "This API description", description: "The OpenAPI 3.1 document of the Dashboard API, generated from the same endpoint declarations the routes are built from." })))
  .add(HttpApiEndpoint.get("getSystemDiagnostics", "/api/system/diagnostics", {
    success: envelope(S.Diagnostics),
    error: failures(401, 403, 500)
  }).annotateMerge(declared({ name: "getSystemDiagnostics", access: SessionOnly, summary: "Diagnostics (a session of an organization owner)", description: "Version, storage and worker state; only for a session of an organization owner." })))
  .annotateMerge(OpenApi.annotations({ title: "System", description: "Health, readiness, diagnostics and this document" }))
