/**
 * The plan catalog (docs/api-notes/billing.md): operator data, loaded once at start and validated
 * here — the `BillingPlan` schema (integer bounds, category slugs, no extra properties), exactly
 * one default plan per project category (every project is subscribed to it), plan codes unique
 * across the catalog, and a fixed charge's code meaning one price model wherever it is sold. A pure
 * module.
 *
 * The category `organization` (`ORGANIZATION_CATEGORY`) is not a project category: its plans are
 * sold to an organization itself (OrganizationBilling.ts) — none is a default (an organization has
 * no subscription until it buys one), and projects are never subscribed to it.
 */
import { Result, Schema } from "effect"
import { issueLines } from "../shared/SchemaIssues.js"
import { type BillingPlan, BillingPlanCatalog } from "./Schema.js"

/** The category whose plans organizations buy for themselves (not projects). */
export const ORGANIZATION_CATEGORY = "organization"

/** Why a catalog was refused, for people (one line per problem). */
export const validateCatalog = (input: unknown): Result.Result<BillingPlanCatalog, string> => {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return Result.fail("the catalog must be a JSON object of category → array of plans")
  }
  if (Object.keys(input).length === 0) return Result.fail("the catalog has no category")
  const badSlugs = Object.keys(input).filter((k) => !/^[a-z][a-z0-9_]{0,63}$/.test(k))
  if (badSlugs.length > 0) {
    return Result.fail(badSlugs.map((k) =>
      `${JSON.stringify(k)} is not a category slug (a lower-case letter, then lower-case letters, digits or _; at most 64)`
    ).join("; "))
  }
  const decoded = Schema.decodeUnknownResult(BillingPlanCatalog)(input, { errors: "all", onExcessProperty: "error", reportInput: true })
  if (Result.isFailure(decoded)) {
    const issues = issueLines(decoded.failure)
      .slice(0, 20)
      .map((i) => `${i.path.length === 0 ? "(catalog)" : i.path.map(String).join(".")}: ${i.message}`)
    return Result.fail(issues.join("; "))
  }
  const catalog = decoded.success
  const problems: Array<string> = []
  const codes = new Map<string, string>()
  for (const [category, plans] of Object.entries(catalog)) {
    if (plans.length === 0) problems.push(`category ${category} has no plan`)
    const defaults = plans.filter((p) => p.isDefault).length
    if (category === ORGANIZATION_CATEGORY) {
      if (defaults > 0) problems.push(`category ${category} is sold to organizations and must have no default plan (isDefault)`)
    } else if (defaults !== 1 && plans.length > 0) {
      problems.push(`category ${category} must have exactly one default plan (isDefault), found ${defaults}`)
    }
    for (const plan of plans) {
      const seen = codes.get(plan.planCode)
      if (seen !== undefined && seen !== category) {
        problems.push(`planCode ${plan.planCode} is used in categories ${seen} and ${category}; plan codes must be unique`)
      }
      codes.set(plan.planCode, category)
    }
  }
  return problems.length === 0 ? Result.succeed(catalog) : Result.fail(problems.join("; "))
}

/** The plans of a category (own properties only). */
export const plansOf = (catalog: BillingPlanCatalog, category: string): ReadonlyArray<BillingPlan> =>
  Object.hasOwn(catalog, category) ? catalog[category] ?? [] : []

export const findPlan = (catalog: BillingPlanCatalog, category: string, planCode: string): BillingPlan | undefined =>
  plansOf(catalog, category).find((p) => p.planCode === planCode)

export const defaultPlan = (catalog: BillingPlanCatalog, category: string): BillingPlan | undefined =>
  plansOf(catalog, category).find((p) => p.isDefault)

/** The project categories: every project holds one subscription in each (the organization's category left out). */
export const categoriesOf = (catalog: BillingPlanCatalog): ReadonlyArray<string> =>
  Object.keys(catalog).filter((c) => c !== ORGANIZATION_CATEGORY).sort()

/** The display name of a category: the first plan's `categoryDisplayName`, if any. */
export const categoryDisplayName = (catalog: BillingPlanCatalog, category: string): string | null | undefined =>
  plansOf(catalog, category).find((p) => p.categoryDisplayName !== undefined)?.categoryDisplayName

/** Whether some plan anywhere sells a fixed charge with this code (docs/api-notes/billing.md). */
export const catalogSellsCharge = (catalog: BillingPlanCatalog, code: string): boolean =>
  Object.values(catalog).some((plans) => plans.some((p) => p.fixedCharges.some((c) => c.fixedChargeCode === code)))
