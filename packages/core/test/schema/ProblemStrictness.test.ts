/** Regressions: present-but-undefined problem members, CAPTCHA_REQUIRED extensions, empty permissions. */
import { describe, expect, it } from "@effect/vitest"
import { CaptchaRequiredProblem, makeProblem, Problem } from "../../src/shared/Problem.js"
import { ProjectApiKey } from "../../src/accounts/Schema.js"
import { IdKinds } from "../../src/shared/Identifiers.js"
import { accepts, projectIdFixture, rejects, typeId } from "./SchemaAssertions.js"

const docs = "https://docs.example.com"

describe("problem documents are strict about present members", () => {
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

describe("project API key permissions", () => {
  const key = {
    apiKeyId: typeId(IdKinds.projectApiKey),
    projectId: projectIdFixture,
    createdByAccountId: typeId(IdKinds.account),
    name: "k",
    createdAt: "2030-01-01T00:00:00.000Z",
    expiresAt: null,
    permissionsUpdatedAt: null,
    revokedAt: null
  }
  it("preserves unknown well-formed values and refuses an empty one", () => {
    expect(accepts(ProjectApiKey, { ...key, permissions: ["project:read", "calls:listen"] }).permissions).toEqual(["project:read", "calls:listen"])
    rejects(ProjectApiKey, { ...key, permissions: [""] })
  })
})
