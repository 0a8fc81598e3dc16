/**
 * The problem document of the versioned API (RFC 9457, docs/errors.md): its `code`, `status` and
 * `title` are a row of the catalog. Extra properties are allowed; `remediation` never appears.
 */
import { Schema } from "effect"
import { ProblemCatalog, problemCodes, problemSlug, type ProblemCode as Code } from "./ProblemCatalog.js"

const NonEmpty = Schema.String.pipe(Schema.minLength(1))

export const ProblemCodeSchema = Schema.Literal(...(problemCodes as [Code, ...Array<Code>])).annotations({ identifier: "ProblemCode" })

export const ValidationIssueLocation = Schema.Literal("body", "cookie", "form", "header", "json", "param", "query")
export type ValidationIssueLocation = typeof ValidationIssueLocation.Type

/** One validation issue: `path` is a JSON pointer (`/name`, `/items/0/url`, `` for the whole body). */
export const ValidationIssue = Schema.Struct({
  code: NonEmpty,
  location: ValidationIssueLocation,
  message: NonEmpty,
  path: Schema.String
}).annotations({ identifier: "ValidationIssue" })
export type ValidationIssue = typeof ValidationIssue.Type

const problemFields = {
  type: Schema.String,
  code: ProblemCodeSchema,
  title: NonEmpty,
  status: Schema.Int.pipe(Schema.between(400, 599)),
  // exact: a member that is present must have its type; `undefined` is not "absent".
  detail: Schema.optionalWith(NonEmpty, { exact: true }),
  instance: Schema.optionalWith(NonEmpty, { exact: true }),
  requestId: Schema.optionalWith(NonEmpty, { exact: true }),
  issues: Schema.optionalWith(Schema.Array(ValidationIssue), { exact: true }),
  remediation: Schema.optionalWith(Schema.Never, { exact: true })
}

/** The generic problem document: the catalog row must match (`status` and `title` of its `code`). */
export const Problem = Schema.Struct(problemFields, Schema.Record({ key: Schema.String, value: Schema.Unknown })).pipe(
  Schema.filter((p) => {
    const row = ProblemCatalog[p.code]
    if (row.status !== p.status) return `status of ${p.code} must be ${row.status}`
    if (row.title !== p.title) return `title of ${p.code} must be "${row.title}"`
    if (!p.type.endsWith(`/problems/${problemSlug(p.code)}`)) return `type of ${p.code} must end in /problems/${problemSlug(p.code)}`
    if (p.code === "VALIDATION_FAILED" && p.issues === undefined) return "VALIDATION_FAILED requires issues"
    return true
  })
).annotations({ identifier: "Problem" })
export type Problem = typeof Problem.Type

/** `CAPTCHA_REQUIRED` adds three required fields: the challenge's context, its provider and site key. */
export const CaptchaRequiredProblem = Schema.Struct(
  {
    ...problemFields,
    code: Schema.Literal("CAPTCHA_REQUIRED"),
    status: Schema.Literal(403),
    title: Schema.Literal(ProblemCatalog.CAPTCHA_REQUIRED.title),
    type: Schema.String.pipe(Schema.endsWith(`/problems/${problemSlug("CAPTCHA_REQUIRED")}`)),
    challengeContext: Schema.String,
    provider: Schema.Literal("turnstile", "hcaptcha"),
    siteKey: Schema.String
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "CaptchaRequiredProblem" })

/** Builds a problem document for a code. */
export const makeProblem = (
  docsUrl: string,
  code: Code,
  extra: { readonly detail?: string; readonly requestId?: string; readonly instance?: string } & Record<string, unknown> = {}
): Problem & Record<string, unknown> => ({
  type: `${docsUrl.replace(/\/$/, "")}/problems/${problemSlug(code)}`,
  code,
  title: ProblemCatalog[code].title,
  status: ProblemCatalog[code].status,
  ...extra
})
