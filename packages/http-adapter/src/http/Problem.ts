/**
 * The problem document of the versioned API (RFC 9457, docs/errors.md): its `code`, `status` and
 * `title` are a row of the catalog. Extra properties are allowed; `remediation` never appears.
 */
import { Schema } from "effect"
import { ProblemCatalog, problemCodes, problemSlug, type ProblemCode as Code } from "./ProblemCatalog.js"

const NonEmpty = Schema.String.pipe(Schema.check(Schema.isMinLength(1)))

export const ProblemCodeSchema = Schema.Literals((problemCodes as [Code, ...Array<Code>])).annotate({ identifier: "ProblemCode" })

export const ValidationIssueLocation = Schema.Literals(["body", "cookie", "form", "header", "json", "param", "query"])
export type ValidationIssueLocation = typeof ValidationIssueLocation.Type

/** One validation issue: `path` is a JSON pointer (`/name`, `/items/0/url`, `` for the whole body). */
export const ValidationIssue = Schema.Struct({
  code: NonEmpty,
  location: ValidationIssueLocation,
  message: NonEmpty,
  path: Schema.String
}).annotate({ identifier: "ValidationIssue" })
export type ValidationIssue = typeof ValidationIssue.Type

const problemFields = {
  type: Schema.String,
  code: ProblemCodeSchema,
  title: NonEmpty,
  status: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 400, maximum: 599 }))),
  // exact: a member that is present must have its type; `undefined` is not "absent".
  detail: Schema.optionalKey(NonEmpty),
  instance: Schema.optionalKey(NonEmpty),
  requestId: Schema.optionalKey(NonEmpty),
  issues: Schema.optionalKey(Schema.Array(ValidationIssue)),
  remediation: Schema.optionalKey(Schema.Never)
}

/** The generic problem document: the catalog row must match (`status` and `title` of its `code`). */
export const Problem = Schema.StructWithRest(Schema.Struct(problemFields), [Schema.Record(Schema.String, Schema.Unknown)]).pipe(
  Schema.check(Schema.makeFilter((p) => {
    const row = ProblemCatalog[p.code]
    if (row.status !== p.status) return `status of ${p.code} must be ${row.status}`
    if (row.title !== p.title) return `title of ${p.code} must be "${row.title}"`
    if (!p.type.endsWith(`/problems/${problemSlug(p.code)}`)) return `type of ${p.code} must end in /problems/${problemSlug(p.code)}`
    if (p.code === "VALIDATION_FAILED" && p.issues === undefined) return "VALIDATION_FAILED requires issues"
    return true
  }))
).annotate({ identifier: "Problem" })
export type Problem = typeof Problem.Type

/** `CAPTCHA_REQUIRED` adds three required fields: the challenge's context, its provider and site key. */
export const CaptchaRequiredProblem = Schema.StructWithRest(
  Schema.Struct({
    ...problemFields,
    code: Schema.Literal("CAPTCHA_REQUIRED"),
    status: Schema.Literal(403),
    title: Schema.Literal(ProblemCatalog.CAPTCHA_REQUIRED.title),
    type: Schema.String.pipe(Schema.check(Schema.isEndingWith(`/problems/${problemSlug("CAPTCHA_REQUIRED")}`))),
    challengeContext: Schema.String,
    provider: Schema.Literals(["turnstile", "hcaptcha"]),
    siteKey: Schema.String
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).annotate({ identifier: "CaptchaRequiredProblem" })

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
