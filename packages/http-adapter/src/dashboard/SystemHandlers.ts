/** The handlers of the smaller groups (dashboard/SystemApi.ts): System, Profile, Analytics, Onboarding, OTP, Privacy. */
import { HttpApiBuilder } from "effect/http-api"
import { HttpServerResponse } from "effect/http"
import { Accounts, PhoneVerifications } from "@switchboard/core/accounts"
import { DashboardProjects, DeliveryStats, Diagnostics, Onboarding, StoreHealth } from "@switchboard/core/dashboard"
import { PrivacyRequests } from "@switchboard/core/privacy"
import { Effect, Fiber, Option, Schema } from "effect"
import { InFlight } from "../http/pipeline/InFlight.js"
import { ServerConfig } from "../http/ServerConfig.js"
import { hasScope } from "../routes/DashboardAccess.js"
import * as S from "../routes/DashboardSchemas.js"
import { defaultPictureUrl } from "../v1/DefaultPicture.js"
import { dashboardGroup } from "./DashboardApi.js"
import { currentCaller } from "./Middleware.js"
import { dashboardOpenApi } from "./OpenApi.js"
import { answer, ok, serverVersion } from "./Render.js"
import { AnalyticsGroup, OnboardingGroup, OtpGroup, PrivacyGroup, ProfileGroup, SystemGroup } from "./SystemApi.js"

/**
 * `check`'s answer, or `onTimeout()` after 2 s: the check is then abandoned — interrupted in the
 * background, not awaited (a frozen database may never let it go).
 */
const abandonedAfter2s = <A, E, R>(check: Effect.Effect<A, E, R>, onTimeout: () => A): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.forkDetach(check), (fiber) =>
    Fiber.join(fiber).pipe(
      Effect.timeoutOrElse({ duration: "2 seconds", orElse: () => Effect.sync(onTimeout) }),
      Effect.onExit(() => Effect.sync(() => fiber.interruptUnsafe()))
    ))

const noDeliveries = { pending: 0, deadLettered: 0, backlogAgeSeconds: 0 }

export const SystemGroupLive = HttpApiBuilder.group(dashboardGroup(SystemGroup), "dashboard-system", (handlers) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    const diagnostics = yield* Diagnostics
    // Provided by the webhooks feature when it counts its deliveries (optional).
    const deliveryStats = yield* Effect.serviceOption(DeliveryStats)
    const storeHealth = yield* StoreHealth
    const inFlight = yield* InFlight
    const startedAt = Date.now()
    // Made on its first request, not at start, then kept.
    let openApi: string | undefined
    return handlers
      .handle("getHealth", () => ok(S.Health, { status: "ok" as const, version: serverVersion, releaseLine: config.releaseLine }))
      .handle("getReadiness", () =>
        Effect.gen(function*() {
          // Bounded even on a frozen database: the check is abandoned (not awaited) after 2 s.
          const database = yield* abandonedAfter2s(storeHealth.check, () => ({ ok: false, latencyMs: 2000 }))
          const deliveries = database.ok && Option.isSome(deliveryStats)
            ? yield* abandonedAfter2s(
              Effect.map(
                Effect.all([deliveryStats.value.counts, deliveryStats.value.oldestPendingDueMillis]),
                ([counts, due]) => ({ ...counts, backlogAgeSeconds: due === null ? 0 : Math.max(0, Math.floor((Date.now() - due) / 1000)) })
              ),
              () => noDeliveries
            ).pipe(Effect.catchCause(() => Effect.succeed(noDeliveries)))
            : noDeliveries
          const report = {
            status: database.ok ? "ready" as const : "not_ready" as const,
            database: { ok: database.ok, latencyMs: database.latencyMs },
            deliveries,
            requestsInFlight: inFlight.current()
          }
          if (database.ok) return yield* ok(S.Readiness, report)
          const data = yield* Effect.orDie(Schema.encodeEffect(S.Readiness)(report))
          return HttpServerResponse.jsonUnsafe(
            { succeed: false, code: "UPSTREAM_UNAVAILABLE", message: "The database does not answer; this instance is not ready.", data },
            { status: 503, headers: { "retry-after": "5", "cache-control": "no-store" } }
          )
        }))
      .handle("getOpenApi", () =>
        Effect.sync(() => {
          openApi ??= JSON.stringify(dashboardOpenApi(config.dashboardUrl))
          return HttpServerResponse.text(openApi, { contentType: "application/json" })
        }))
      .handle("getSystemDiagnostics", () =>
        answer(Effect.gen(function*() {
          const caller = yield* currentCaller
          const database = yield* diagnostics.database(caller.accountId)
          return yield* ok(S.Diagnostics, {
            version: serverVersion,
            releaseLine: config.releaseLine,
            uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
            database,
            deliveries: Option.isSome(deliveryStats) ? yield* deliveryStats.value.counts : { pending: 0, deadLettered: 0 }
          })
        })))
  }))

export const ProfileGroupLive = HttpApiBuilder.group(dashboardGroup(ProfileGroup), "dashboard-profile", (handlers) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    const accounts = yield* Accounts
    return handlers.handle("getProfile", () =>
      answer(Effect.gen(function*() {
        const caller = yield* currentCaller
        const account = yield* accounts.get(caller.accountId)
        const name = [account.firstName, account.lastName].filter((p): p is string => p !== null && p !== "").join(" ")
        return yield* ok(S.Profile, {
          id: account.accountId,
          ...(hasScope(caller, "email") ? { email: account.email } : {}),
          name: name === "" ? (account.email.split("@")[0] ?? "") : name,
          picture: account.pictureUrl ?? defaultPictureUrl(config.apiUrl)
        })
      })))
  }))

export const AnalyticsGroupLive = HttpApiBuilder.group(dashboardGroup(AnalyticsGroup), "dashboard-analytics", (handlers) =>
  Effect.gen(function*() {
    const projects = yield* DashboardProjects
    return handlers.handle("getIdentitySnapshot", () =>
      answer(Effect.gen(function*() {
        const caller = yield* currentCaller
        const { email, ...rest } = yield* projects.identity(caller.accountId)
        return yield* ok(S.IdentitySnapshot, hasScope(caller, "email") ? { ...rest, email } : rest)
      })))
  }))

type OnboardingRecord = { companyName: string | null; role: string | null; useCase: string | null; teamSize: number | null; updatedAt: any }

const onboardingView = (r: Option.Option<OnboardingRecord>) =>
  Option.match(r, {
    onNone: () => ({ companyName: null, role: null, useCase: null, teamSize: null, updatedAt: null }),
    onSome: (a) => ({ companyName: a.companyName, role: a.role, useCase: a.useCase, teamSize: a.teamSize, updatedAt: a.updatedAt })
  })

export const OnboardingGroupLive = HttpApiBuilder.group(dashboardGroup(OnboardingGroup), "dashboard-onboarding", (handlers) =>
  Effect.gen(function*() {
    const onboarding = yield* Onboarding
    return handlers
      .handle("getOnboardingDetails", () =>
        answer(Effect.gen(function*() {
          return yield* ok(S.OnboardingDetails, onboardingView(yield* onboarding.get((yield* currentCaller).accountId)))
        })))
      .handle("saveOnboardingDetails", ({ payload }) =>
        answer(Effect.gen(function*() {
          const saved = yield* onboarding.save((yield* currentCaller).accountId, payload)
          return yield* ok(S.OnboardingDetails, onboardingView(Option.some(saved)))
        })))
  }))

export const OtpGroupLive = HttpApiBuilder.group(dashboardGroup(OtpGroup), "dashboard-otp", (handlers) =>
  Effect.gen(function*() {
    const phones = yield* PhoneVerifications
    return handlers
      .handle("sendOtp", ({ payload }) =>
        answer(Effect.gen(function*() {
          return yield* ok(S.OtpSent, yield* phones.start((yield* currentCaller).accountId, payload.phoneNumber))
        })))
      .handle("verifyOtp", ({ payload }) =>
        answer(Effect.gen(function*() {
          const account = yield* phones.confirm((yield* currentCaller).accountId, payload.phoneNumber, payload.code)
          if (account.phoneNumber === null || account.phoneVerifiedAt === null) return yield* Effect.die(new Error("a confirmed phone is not bound"))
          return yield* ok(S.OtpVerified, { phoneNumber: account.phoneNumber, phoneVerifiedAt: account.phoneVerifiedAt })
        })))
  }))

export const PrivacyGroupLive = HttpApiBuilder.group(dashboardGroup(PrivacyGroup), "dashboard-privacy", (handlers) =>
  Effect.gen(function*() {
    const privacy = yield* PrivacyRequests
    return handlers.handle("createPrivacyRequest", ({ payload }) =>
      answer(Effect.gen(function*() {
        return yield* ok(S.PrivacyRequestReceived, yield* privacy.submit({ email: payload.email, requestedBy: (yield* currentCaller).accountId }))
      })))
  }))
