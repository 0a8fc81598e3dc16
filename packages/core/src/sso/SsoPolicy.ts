/**
 * The operator's SSO settings (docs/sso.md) and the pure rules built on them: where the provider
 * sends people back (`callbackUrl`), which `returnTo` addresses are allowed, where an
 * organization's SSO sign-in starts for a browser (`signInUrl`, the `Link` of
 * `ORGANIZATION_SSO_REQUIRED`), and the plan entitlement that includes SSO.
 */
import { Duration, Result } from "effect"
import type { BillingPlanCatalog } from "../billing/Schema.js"
import { Setting } from "../internal/Settings.js"

export interface SsoPolicyShape {
  /** Our redirect URI at the providers: `{public URL}/api/auth/sso/callback`. */
  readonly callbackUrl: string
  /** The Dashboard's public URL: relative `returnTo` paths resolve against it. */
  readonly dashboardUrl: string
  /** Origins (scheme://host[:port]) an absolute `returnTo` may point to, besides the Dashboard's. */
  readonly returnToOrigins: ReadonlyArray<string>
  /** How long a begun sign-in waits for its callback. */
  readonly loginTtl: Duration.Duration
  /**
   * The entitlement (feature key with value `"true"`) that includes SSO in a plan; an organization
   * has SSO when a plan one of its projects is subscribed to has it, or the plan of
   * the organization's own subscription (billing/OrganizationBilling.ts) does. `undefined`: every organization.
   */
  readonly entitlement: string | undefined
}

export const SSO_ENTITLEMENT = "organization_sso"

export class SsoPolicy extends Setting<SsoPolicy>()("core/SsoPolicy", {
  defaultValue: (): SsoPolicyShape => ({
    callbackUrl: "http://localhost:3000/api/auth/sso/callback",
    dashboardUrl: "http://localhost:3000",
    returnToOrigins: [],
    loginTtl: Duration.minutes(10),
    entitlement: SSO_ENTITLEMENT
  })
}) {}

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin.toLowerCase()
  } catch {
    return undefined
  }
}

/**
 * The absolute address `returnTo` stands for, or why it is refused: a path of the Dashboard
 * (`/…`, never `//…` or `/\…`), or an http(s) URL without credentials on the Dashboard's origin or
 * one of `returnToOrigins`.
 */
export const resolveReturnTo = (
  returnTo: string,
  policy: Pick<SsoPolicyShape, "dashboardUrl" | "returnToOrigins">
): Result.Result<string, string> => {
  if (returnTo.length === 0 || returnTo.length > 2048) return Result.fail("returnTo must be 1 to 2048 characters")
  if (/[\u0000-\u001f\u007f\\]/.test(returnTo)) return Result.fail("returnTo must not contain control characters or backslashes")
  const dashboard = originOf(policy.dashboardUrl)
  if (returnTo.startsWith("/")) {
    if (returnTo.startsWith("//") || dashboard === undefined) return Result.fail("returnTo must be a path of the Dashboard or an allowed URL")
    return Result.succeed(`${dashboard}${returnTo}`)
  }
  let url: URL
  try {
    url = new URL(returnTo)
  } catch {
    return Result.fail("returnTo must be a path of the Dashboard or an absolute URL")
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return Result.fail("returnTo must be an http or https URL")
  if (url.username !== "" || url.password !== "") return Result.fail("returnTo must not carry credentials")
  const allowed = new Set([dashboard, ...policy.returnToOrigins.map(originOf)].filter((o): o is string => o !== undefined))
  if (!allowed.has(url.origin.toLowerCase())) return Result.fail(`returnTo's origin ${url.origin} is not allowed`)
  return Result.succeed(url.href)
}

/** Whether any of `planCodes` is a plan of the catalog with the entitlement set to `"true"`. */
export const plansIncludeSso = (catalog: BillingPlanCatalog, planCodes: ReadonlyArray<string>, entitlement: string): boolean =>
  Object.values(catalog).some((plans) =>
    plans.some((plan) =>
      planCodes.includes(plan.planCode) &&
      plan.entitlements.some((e) => e.featureKey === entitlement && e.value.trim().toLowerCase() === "true")
    )
  )

/** The domain part of an email address, lower case (undefined when there is none). */
export const emailDomain = (email: string): string | undefined => {
  const at = email.lastIndexOf("@")
  if (at <= 0 || at === email.length - 1) return undefined
  return email.slice(at + 1).toLowerCase().replace(/\.$/, "")
}

/** Where a browser starts an organization's SSO sign-in (a GET that redirects to the provider). */
export const ssoSignInLink = (callbackUrl: string, organizationId: string): string => {
  const base = new URL(callbackUrl)
  return `${base.origin}/api/auth/sso/start?organizationId=${encodeURIComponent(organizationId)}`
}
