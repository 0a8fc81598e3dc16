/** Regressions: empty permissions of a project API key. */
import { describe, expect, it } from "@effect/vitest"
import { ProjectApiKey } from "../../src/accounts/Schema.js"
import { IdKinds } from "../../src/shared/Identifiers.js"
import { accepts, projectIdFixture, rejects, typeId } from "./SchemaAssertions.js"

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
