/**
 * Every problem a /v1 endpoint answered in this run of the HTTP suite is one its declaration lists
 * (`problems(...)`, v1/Declare.ts). Runs after every other test file (the "answers" project in
 * vitest.config.ts), over what the test servers recorded (test/support/Answers.ts).
 */
import { rmSync } from "node:fs"
import { afterAll, describe, expect, it } from "vitest"
import { answersDir, endpointOf, recordedAnswers, undeclaredAnswers } from "../support/Answers.js"

describe("declared problems against the answers of the HTTP suite", () => {
  afterAll(() => rmSync(answersDir, { recursive: true, force: true }))

  it("the check finds an undeclared answer, and passes a declared one and one no endpoint gave", () => {
    expect(endpointOf({ method: "GET", path: "/v1/account/service-keys" })?.operationId).toBe("account.listAccountServiceKeys")
    expect(endpointOf({ method: "DELETE", path: "/v1/account/service-keys/sb_key_1" })?.operationId).toBe("account.revokeAccountServiceKey")
    expect(undeclaredAnswers([
      { method: "DELETE", path: "/v1/account/service-keys/sb_key_1", status: 404, code: "ACCOUNT_SERVICE_KEY_NOT_FOUND" },
      { method: "GET", path: "/v1/no-such-route", status: 404, code: "RESOURCE_NOT_FOUND" },
      { method: "GET", path: "/v1/account", status: 409, code: "ASSIGNMENT_EXISTS" }
    ])).toEqual(["account.getAccount ASSIGNMENT_EXISTS (409) e.g. GET /v1/account"])
  })

  it("no endpoint answered a problem it does not declare", () => {
    const answers = recordedAnswers()
    // Nothing recorded: this file ran alone (or before the suite), and there is nothing to check.
    if (answers.length === 0) return
    expect(undeclaredAnswers(answers)).toEqual([])
  })
})
