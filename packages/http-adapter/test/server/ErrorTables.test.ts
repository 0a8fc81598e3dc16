/**
 * The error tables (docs/architecture.md#rules-of-the-road): every error class core exports has a
 * row on each surface that can raise it, or is listed below with the reason it never reaches that
 * surface — so a new core error must be placed consciously. The tables are typed against core's
 * error unions (a missing row is a compile error); this test also catches an error class that is in
 * no union at all.
 */
import * as Core from "@switchboard/core"
import { SchemaAST } from "effect"
import { execFile } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath, pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import { dashboardErrorRows } from "../../src/routes/DashboardErrors.js"
import { managementErrors } from "../../src/routes/ManagementErrors.js"
import { protocolErrors } from "../../src/routes/OAuthHttp.js"
import { v1DomainErrors } from "../../src/v1/Problems.js"

/** The tag of every error class core exports (namespaces included), by export path. */
const coreErrorTags = (): ReadonlyMap<string, string> => {
  const tags = new Map<string, string>()
  const visit = (ns: object, prefix: string, depth: number) => {
    for (const [name, value] of Object.entries(ns)) {
      if (typeof value === "function" && value.prototype instanceof Error) {
        // Schema.TaggedError classes declare their tag among their fields; Data.TaggedError ones set it on instances.
        const declared = (value as { readonly fields?: { readonly _tag?: { readonly ast: SchemaAST.AST } } }).fields?._tag?.ast
        const tag: unknown = declared !== undefined && SchemaAST.isLiteral(declared)
          ? declared.literal
          : (new (value as new(a: object) => { readonly _tag?: unknown })({}))._tag
        if (typeof tag === "string") tags.set(tag, `${prefix}${name}`)
      } else if (depth < 3 && typeof value === "object" && value !== null && !Array.isArray(value)) {
        // Namespaces (`export * as Voice …`), nested ones included.
        visit(value, `${prefix}${name}.`, depth + 1)
      }
    }
  }
  visit(Core, "", 0)
  return tags
}

const managementOnly = "raised by the management API only (routes/ManagementErrors.ts maps it)"
const dashboardOnly = "raised by Dashboard sign-in only (routes/DashboardErrors.ts maps it)"
const platformsWorker = "internal to the provisioning worker (platforms/ProvisioningWorker.ts): it retries or fails the operation"
const planChange = "internal to the billing preview reducer: BillingService turns it into BillingChangeRejected or BillingRequestInvalid"
const outage = "a defect, not a failure (the store adapter raises it): the pipeline renders it, 503/504 on every surface (http/pipeline/Failures.ts)"

/** Core errors no /v1 operation raises, and why. */
const notOnV1: Readonly<Record<string, string>> = {
  ProviderFailure: platformsWorker,
  ResourceNumberTaken: platformsWorker,
  AssignmentHandleTaken: "internal to WhatsappAssignments.create (platforms/WhatsappAssignments.ts): it becomes SharedLineAssignmentExists",
  AccessDenied: "core's access decision: v1/Access.ts `refusal` renders it (code, detail, scope challenge)",
  BillingCatalogInvalid: "stops the server at start; no request meets it",
  ServerSecretMismatch: "stops the server (or a mount) at start, naming SECRET_KEY; no request meets it",
  OAuthProtocolError: "raised by the OAuth endpoints only (routes/OAuthHttp.ts `protocolErrors`, by code)",
  PlanChangeRequestInvalid: planChange,
  PlanChangeRejected: planChange,
  PlanChangeInputInvalid: planChange,
  PlanChangeAmountOutOfRange: planChange,
  ManagementUnauthorized: "the management guard answers 401 itself (routes/ManagementPipeline.ts)",
  ProjectUserNotFound: managementOnly,
  ProjectUserLimitReached: managementOnly,
  ProjectUserExists: managementOnly,
  AssignedNumberNotALine: managementOnly,
  ManagementWebhookNotFound: managementOnly,
  WebhookUrlTaken: managementOnly,
  InvalidSignIn: dashboardOnly,
  TotpCodeRequired: dashboardOnly,
  TotpCodeInvalid: dashboardOnly,
  SignInLocked: dashboardOnly,
  PasswordRejected: dashboardOnly,
  NotAnOrganizationOwner: dashboardOnly,
  InstallationRequestNotFound: dashboardOnly,
  InstallationRequestDecided: dashboardOnly,
  DatabaseUnavailable: outage
}

/** Core errors no Dashboard operation raises (the others take a Dashboard row or their /v1 problem). */
const notOnDashboard: Readonly<Record<string, string>> = {
  ProviderFailure: platformsWorker,
  ResourceNumberTaken: platformsWorker,
  AssignmentHandleTaken: notOnV1.AssignmentHandleTaken!,
  AccessDenied: "the Dashboard decides access itself (routes/DashboardAccess.ts)",
  BillingCatalogInvalid: notOnV1.BillingCatalogInvalid!,
  ServerSecretMismatch: notOnV1.ServerSecretMismatch!,
  OAuthProtocolError: notOnV1.OAuthProtocolError!,
  PlanChangeRequestInvalid: planChange,
  PlanChangeRejected: planChange,
  PlanChangeInputInvalid: planChange,
  PlanChangeAmountOutOfRange: planChange,
  ManagementUnauthorized: managementOnly,
  ProjectUserNotFound: managementOnly,
  ProjectUserLimitReached: managementOnly,
  ProjectUserExists: managementOnly,
  AssignedNumberNotALine: managementOnly,
  DatabaseUnavailable: outage
}

describe("error tables", () => {
  const tags = coreErrorTags()

  it("finds core's error classes (the listing works)", () => {
    expect(tags.size).toBeGreaterThan(90)
    // A Data.TaggedError inside a namespace is found too.
    expect(tags.get("PlanChangeRejected")).toMatch(/(^|\.)PlanChange\.PlanChangeRejected$/)
  })

  it("every core error tag has a /v1 row, or a reason it never reaches /v1", () => {
    const missing = [...tags.keys()].filter((t) => !Object.hasOwn(v1DomainErrors, t) && notOnV1[t] === undefined)
    expect(missing).toEqual([])
    // The exemptions are real tags without a row (no stale or contradicting entries).
    for (const t of Object.keys(notOnV1)) {
      expect(tags.has(t), t).toBe(true)
      expect(Object.hasOwn(v1DomainErrors, t), t).toBe(false)
    }
    for (const t of Object.keys(v1DomainErrors)) expect(tags.has(t), t).toBe(true)
  })

  it("every core error tag has a Dashboard row or a /v1 problem, or a reason it never reaches the Dashboard", () => {
    const missing = [...tags.keys()].filter((t) =>
      !Object.hasOwn(dashboardErrorRows, t) && !Object.hasOwn(v1DomainErrors, t) && notOnDashboard[t] === undefined
    )
    expect(missing).toEqual([])
    for (const t of Object.keys(notOnDashboard)) {
      expect(tags.has(t), t).toBe(true)
      expect(Object.hasOwn(dashboardErrorRows, t) || Object.hasOwn(v1DomainErrors, t), t).toBe(false)
    }
    for (const t of Object.keys(dashboardErrorRows)) expect(tags.has(t), t).toBe(true)
  })

  it("the management table covers the management context's errors and names only core tags", () => {
    for (const t of ["ProjectUserNotFound", "ProjectUserLimitReached", "ProjectUserExists", "AssignedNumberNotALine"]) {
      expect(Object.hasOwn(managementErrors, t), t).toBe(true)
    }
    for (const t of Object.keys(managementErrors)) expect(tags.has(t), t).toBe(true)
  })

  it("the OAuth table has one row per protocol error code of core, with its status", () => {
    expect(Object.keys(protocolErrors).sort()).toEqual([...Core.OAuth.OAuthErrorCode.literals].sort())
    const status = (error: Core.OAuth.OAuthErrorCode) => protocolErrors[error](Core.OAuth.oauthError(error, "d")).status
    expect(status("invalid_client")).toBe(401)
    expect(status("invalid_grant")).toBe(400)
    expect(status("server_error")).toBe(500)
    expect(status("temporarily_unavailable")).toBe(503)
  })
})

describe("error table modules", () => {
  const dir = (rel: string) => fileURLToPath(new URL(rel, import.meta.url))
  const tableModules = [
    ...readdirSync(dir("../../src/v1")).filter((f) => f.endsWith("Errors.ts")).map((f) => `../../src/v1/${f}`),
    "../../src/routes/DashboardErrors.ts",
    "../../src/routes/ManagementErrors.ts",
    "../../src/v1/Problems.ts"
  ]

  it("no feature's rows import the module that assembles them (v1/Problems.ts)", () => {
    const rows = tableModules.filter((m) => m.startsWith("../../src/v1/") && !m.endsWith("Problems.ts"))
    expect(rows.length).toBeGreaterThan(8)
    for (const m of rows) expect(readFileSync(dir(m), "utf8"), m).not.toMatch(/from "\.\/Problems\.js"/)
  })

  it("none is on an import cycle (a cycle makes the import order matter)", () => {
    const src = dir("../../src")
    const importsOf = (file: string): ReadonlyArray<string> =>
      [...readFileSync(file, "utf8").matchAll(/^(?:import|export)\s[^;]*?from\s+"(\.{1,2}\/[^"]+)\.js"/gms)]
        .filter((m) => !/^import\s+type\s/.test(m[0]))
        .map((m) => fileURLToPath(new URL(`${m[1]}.ts`, pathToFileURL(file))))
    const reaches = (from: string, target: string, seen: Set<string>): boolean =>
      importsOf(from).some((next) => next === target || (!seen.has(next) && next.startsWith(src) && (seen.add(next), reaches(next, target, seen))))
    for (const m of tableModules) expect(reaches(dir(m), dir(m), new Set()), m).toBe(false)
  })

  // The check above, shown at runtime in a fresh Node process: vitest's module runner tolerates
  // cycles that native ESM does not (the old Problems.ts ↔ AccountSecurityErrors.ts cycle threw
  // ReferenceError under Node only).
  it("a feature's rows can be the first module a fresh Node process imports", async () => {
    const entry = pathToFileURL(dir("../../src/v1/AccountSecurityErrors.ts")).href
    const stderr = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", `await import(${JSON.stringify(entry)})`],
        { cwd: dir("../.."), timeout: 60_000 },
        (error, _stdout, err) => resolve(error === null ? "" : err || error.message)
      )
    })
    expect(stderr).toBe("")
  })
})
