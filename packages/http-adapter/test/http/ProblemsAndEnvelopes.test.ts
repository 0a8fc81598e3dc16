/**
 * The HTTP adapter's problem catalog and problem documents (RFC 9457) and the Dashboard/management
 * envelope (moved here with the modules from core's shared schemas).
 */
import { Email, formatTypeId, IdKinds, issueTree, Timestamp, uuidv7Bytes } from "@switchboard/core/shared"
import { DateTime, Result, Schema, SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import { ErrorEnvelope, Envelope, errorEnvelope, SuccessEnvelope, successEnvelope } from "../../src/http/Envelope.js"
import { CaptchaRequiredProblem, makeProblem, Problem } from "../../src/http/Problem.js"
import {
  ProblemCatalog, problemCodeOfSlug, problemCodes, problemEntry, problemSlug, type ProblemCode
} from "../../src/http/ProblemCatalog.js"

const T0 = Date.UTC(2030, 0, 1)
const requestId = formatTypeId(IdKinds.request, uuidv7Bytes(T0, Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])))

const decode = <A, I>(schema: Schema.Codec<A, I>, input: unknown) => Schema.decodeUnknownResult(schema)(input)

/** Decodes or fails the test with the parse error. */
const accepts = <A, I>(schema: Schema.Codec<A, I>, input: unknown): A =>
  Result.getOrThrowWith(decode(schema, input), (e) => new Error(issueTree(e)))

/** Expects a decode failure; returns its message for further checks. */
const rejects = <A, I>(schema: Schema.Codec<A, I>, input: unknown): string => {
  const result = decode(schema, input)
  if (Result.isSuccess(result)) throw new Error(`expected a rejection of ${JSON.stringify(input)}`)
  return issueTree(result.failure)
}

/** Decode then encode gives back the canonical input. */
const roundTrips = <A, I>(schema: Schema.Codec<A, I>, input: unknown): void => {
  const encoded = Schema.encodeResult(schema)(accepts(schema, input))
  if (Result.isFailure(encoded)) throw new Error(issueTree(encoded.failure))
  expect(encoded.success).toStrictEqual(input)
}

// ---------------------------------------------------------------------------------------------
// Problem catalog and problem documents
// ---------------------------------------------------------------------------------------------

/** The problem table written out a second time, by hand: a changed row must be changed twice. */
const specProblemTable: ReadonlyArray<readonly [ProblemCode, number, string]> = [
  ["ACCOUNT_DELETED", 410, "Account Deleted"],
  ["ACCOUNT_NOT_FOUND", 404, "Account Not Found"],
  ["ACCOUNT_OWNS_ORGANIZATIONS", 409, "Account Owns Organizations"],
  ["ACCOUNT_SERVICE_KEY_LIMIT_REACHED", 409, "Account Service Key Limit Reached"],
  ["ACCOUNT_SERVICE_KEY_NOT_FOUND", 404, "Account Service Key Not Found"],
  ["API_KEY_LIMIT_REACHED", 409, "API Key Limit Reached"],
  ["API_KEY_NOT_FOUND", 404, "API Key Not Found"],
  ["API_KEY_REVOKED", 409, "API Key Revoked"],
  ["APP_INSTALLATION_ASSERTION_INVALID", 401, "Invalid Installation Client Assertion"],
  ["APP_INSTALLATION_ASSERTION_REPLAYED", 409, "Installation Assertion Already Used"],
  ["APP_INSTALLATION_CONFIG_CHANGED", 409, "Installation App Configuration Changed"],
  ["APP_INSTALLATION_DELIVERY_UNAVAILABLE", 409, "Installation Delivery Unavailable"],
  ["BILLING_ENTITLEMENTS_PENDING", 503, "Billing Entitlements Pending"],
  ["BILLING_NOT_PROVISIONED", 503, "Billing Not Provisioned"],
  ["BILLING_SUSPENDED", 402, "Billing Suspended"],
  ["CAPTCHA_REQUIRED", 403, "Captcha Required"],
  ["NOT_AUTHENTICATED", 401, "Not Authenticated"],
  ["FORBIDDEN", 403, "Forbidden"],
  ["INSUFFICIENT_SCOPE", 403, "Insufficient Scope"],
  ["ORGANIZATION_SSO_REQUIRED", 403, "Organization SSO Required"],
  ["INTERNAL_ERROR", 500, "Internal Server Error"],
  ["UPSTREAM_UNAVAILABLE", 503, "Upstream Service Unavailable"],
  ["VALIDATION_FAILED", 422, "Request Validation Failed"]
]

describe("ProblemCatalog", () => {
  it("BILLING_SUSPENDED is 402, CAPTCHA_REQUIRED 403, VALIDATION_FAILED 422 Request Validation Failed", () => {
    expect(ProblemCatalog.BILLING_SUSPENDED.status).toBe(402)
    expect(ProblemCatalog.CAPTCHA_REQUIRED.status).toBe(403)
    expect(ProblemCatalog.VALIDATION_FAILED).toStrictEqual({ status: 422, title: "Request Validation Failed" })
    expect(ProblemCatalog.NOT_AUTHENTICATED.status).toBe(401)
    expect(ProblemCatalog.ACCOUNT_DELETED.status).toBe(410)
    expect(ProblemCatalog.INTERNAL_ERROR).toStrictEqual({ status: 500, title: "Internal Server Error" })
  })

  it.each(specProblemTable)("%s has its documented status %i and title %s", (code, status, title) => {
    expect(ProblemCatalog[code]).toStrictEqual({ status, title })
  })

  it("holds the codes the public contract adds, and ours", () => {
    expect(ProblemCatalog.RESOURCE_NOT_FOUND.status).toBe(404)
    expect(ProblemCatalog.PAYLOAD_TOO_LARGE.status).toBe(413)
    expect(ProblemCatalog.RATE_LIMITED).toStrictEqual({ status: 429, title: "Too Many Requests" })
    expect(ProblemCatalog.IDEMPOTENCY_KEY_REUSED.status).toBe(422)
    expect(ProblemCatalog.METHOD_NOT_ALLOWED.status).toBe(405)
  })

  it.each(problemCodes)("%s: slug is its kebab-case code, and maps back", (code) => {
    const slug = problemSlug(code)
    expect(slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)
    expect(slug.toUpperCase().replace(/-/g, "_")).toBe(code)
    expect(problemCodeOfSlug(slug)).toBe(code)
    expect(problemEntry(code)).toStrictEqual({ code, slug, ...ProblemCatalog[code] })
  })

  it("VALIDATION_FAILED's slug is validation-failed; unknown slugs have no code", () => {
    expect(problemSlug("VALIDATION_FAILED")).toBe("validation-failed")
    expect(problemSlug("ACCOUNT_SERVICE_KEY_LIMIT_REACHED")).toBe("account-service-key-limit-reached")
    expect(problemCodeOfSlug("no-such-problem")).toBeUndefined()
  })

  it("every status is an HTTP error status and every title is set", () => {
    for (const code of problemCodes) {
      const { status, title } = ProblemCatalog[code]
      expect(Number.isInteger(status) && status >= 400 && status <= 599).toBe(true)
      expect(title.length).toBeGreaterThan(0)
    }
    expect(new Set(problemCodes.map(problemSlug)).size).toBe(problemCodes.length)
  })
})

describe("Problem", () => {
  const docs = "https://docs.example.com/"
  const notFound = {
    type: "https://docs.example.com/problems/project-not-found",
    code: "PROJECT_NOT_FOUND",
    title: "Project Not Found",
    status: 404,
    detail: "No project with that id.",
    requestId
  }

  it("makeProblem builds a document of the catalog row", () => {
    expect(makeProblem(docs, "PROJECT_NOT_FOUND", { detail: notFound.detail, requestId: notFound.requestId }))
      .toStrictEqual(notFound)
  })

  it("decodes and round-trips a problem, keeping extension properties", () => {
    roundTrips(Problem, notFound)
    roundTrips(Problem, { ...notFound, suggestion: "example-project-2" })
    expect(accepts(Problem, { ...notFound, extra: 1 })).toMatchObject({ extra: 1 })
  })

  it("round-trips VALIDATION_FAILED with its issues and rejects it without", () => {
    const validation = {
      ...makeProblem(docs, "VALIDATION_FAILED"),
      issues: [{ code: "invalid_type", location: "json", message: "Expected a string.", path: "/name" }]
    }
    roundTrips(Problem, validation)
    rejects(Problem, makeProblem(docs, "VALIDATION_FAILED"))
    rejects(Problem, { ...validation, issues: [{ ...validation.issues[0], location: "path" }] })
  })

  it("rejects remediation, a mismatched status, title or type, and empty optional strings", () => {
    rejects(Problem, { ...notFound, remediation: "try again" })
    rejects(Problem, { ...notFound, status: 410 })
    rejects(Problem, { ...notFound, title: "Not Found" })
    rejects(Problem, { ...notFound, type: "https://docs.example.com/problems/not-found" })
    rejects(Problem, { ...notFound, code: "NO_SUCH_CODE" })
    rejects(Problem, { ...notFound, detail: "" })
    rejects(Problem, { ...notFound, instance: "" })
    rejects(Problem, { ...notFound, requestId: "" })
  })

  it("CaptchaRequiredProblem requires challengeContext, provider and siteKey", () => {
    const captcha = {
      ...makeProblem(docs, "CAPTCHA_REQUIRED"),
      challengeContext: "ctx",
      provider: "turnstile",
      siteKey: "0x4AAAA"
    }
    roundTrips(CaptchaRequiredProblem, captcha)
    accepts(CaptchaRequiredProblem, { ...captcha, provider: "hcaptcha" })
    rejects(CaptchaRequiredProblem, { ...captcha, provider: "recaptcha" })
    rejects(CaptchaRequiredProblem, { ...captcha, status: 401 })
    const { siteKey: _, ...withoutSiteKey } = captcha
    rejects(CaptchaRequiredProblem, withoutSiteKey)
  })
})

// ---------------------------------------------------------------------------------------------
// Envelope of the Dashboard and management APIs
// ---------------------------------------------------------------------------------------------

describe("Envelope", () => {
  const Emails = Schema.Array(Email)

  it("SuccessEnvelope decodes and round-trips {succeed: true, data}", () => {
    roundTrips(SuccessEnvelope(Emails), { succeed: true, data: ["a@example.com", "b@example.com"] })
    roundTrips(SuccessEnvelope(Emails), { succeed: true, data: [] })
  })

  it("SuccessEnvelope decodes its data with the data schema", () => {
    const decoded = accepts(SuccessEnvelope(Timestamp), { succeed: true, data: "2030-01-01T00:00:00Z" })
    expect(DateTime.toEpochMillis(decoded.data)).toBe(T0)
    rejects(SuccessEnvelope(Emails), { succeed: true, data: ["not an email"] })
  })

  it("SuccessEnvelope rejects succeed false, missing data and a non-boolean succeed", () => {
    rejects(SuccessEnvelope(Emails), { succeed: false, data: [] })
    rejects(SuccessEnvelope(Emails), { succeed: true })
    rejects(SuccessEnvelope(Emails), { succeed: "true", data: [] })
  })

  it("names envelopes after their data", () => {
    const id = (s: Schema.Top) => SchemaAST.resolveIdentifier(s.ast)
    expect(id(SuccessEnvelope(Email))).toBe("EmailSuccessEnvelope")
    expect(id(SuccessEnvelope(Emails))).toBe("EmailListSuccessEnvelope")
    expect(id(SuccessEnvelope(Schema.String, "NameSuccessEnvelope"))).toBe("NameSuccessEnvelope")
    expect(id(SuccessEnvelope(Schema.Struct({ a: Schema.String })))).toBe("SuccessEnvelope")
    expect(id(Envelope(Email))).toBe("EmailEnvelope")
    expect(id(ErrorEnvelope)).toBe("ErrorEnvelope")
  })

  it("ErrorEnvelope decodes and round-trips {succeed: false, message, code?}", () => {
    roundTrips(ErrorEnvelope, { succeed: false, message: "Webhook not found" })
    roundTrips(ErrorEnvelope, { succeed: false, message: "HTTPS is required", code: "HTTPS_REQUIRED" })
  })

  it("ErrorEnvelope rejects succeed true, a missing message, an empty or non-string code", () => {
    rejects(ErrorEnvelope, { succeed: true, message: "x" })
    rejects(ErrorEnvelope, { succeed: false })
    rejects(ErrorEnvelope, { succeed: false, message: "x", code: "" })
    rejects(ErrorEnvelope, { succeed: false, message: "x", code: 404 })
  })

  it("Envelope decodes either body", () => {
    const E = Envelope(Emails)
    expect(accepts(E, { succeed: true, data: ["a@example.com"] })).toStrictEqual({ succeed: true, data: ["a@example.com"] })
    expect(accepts(E, { succeed: false, message: "nope" })).toStrictEqual({ succeed: false, message: "nope" })
    rejects(E, { succeed: false, data: [] })
  })

  it("the constructors build bodies their schemas accept", () => {
    expect(successEnvelope(["a@example.com"])).toStrictEqual({ succeed: true, data: ["a@example.com"] })
    expect(errorEnvelope("nope")).toStrictEqual({ succeed: false, message: "nope" })
    expect("code" in errorEnvelope("nope")).toBe(false)
    expect(errorEnvelope("nope", "CONFLICT")).toStrictEqual({ succeed: false, message: "nope", code: "CONFLICT" })
    roundTrips(ErrorEnvelope, errorEnvelope("nope", "CONFLICT"))
  })
})

// ---------------------------------------------------------------------------------------------
// Regressions: present-but-undefined problem members, CAPTCHA_REQUIRED extensions
// ---------------------------------------------------------------------------------------------

describe("problem documents are strict about present members", () => {
  const docs = "https://docs.example.com"

  it("a member present with the value undefined is rejected, absent is fine", () => {
    const base = makeProblem(docs, "FORBIDDEN")
    accepts(Problem, base)
    for (const key of ["detail", "instance", "requestId", "issues"]) rejects(Problem, { ...base, [key]: undefined })
  })

  it("CAPTCHA_REQUIRED keeps extension members and checks its title and type", () => {
    const captcha = { ...makeProblem(docs, "CAPTCHA_REQUIRED"), challengeContext: "c", provider: "turnstile", siteKey: "k", vendor: { x: 1 } }
    expect(accepts(CaptchaRequiredProblem, captcha)).toMatchObject({ vendor: { x: 1 } })
    rejects(CaptchaRequiredProblem, { ...captcha, title: "Something else" })
    rejects(CaptchaRequiredProblem, { ...captcha, type: `${docs}/problems/forbidden` })
  })
})
