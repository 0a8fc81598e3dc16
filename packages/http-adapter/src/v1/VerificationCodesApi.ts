/**
 * The filtered verification codes' /v1 routes (docs/provisioning.md): counts and lists of the
 * OTP-bearing inbound messages held back before delivery — per project, and per held resource (404
 * unless the project holds it now). Never the code itself. Needs `platforms:read`.
 */
import { projectAccess } from "./Access.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { FilteredVerificationCodeCount, FilteredVerificationCodePage, FilteredVerificationCodesQuery } from "@switchboard/core/platforms"
import { ProjectId } from "@switchboard/core/shared"
import { Schema } from "effect"
import { projectProblems as common } from "./CommonProblems.js"
import { problems, Requires } from "./Declare.js"
import { authenticated } from "./V1Group.js"

const BASE = "/v1/projects/:projectId/platforms"
const ProjectPath = Schema.Struct({ projectId: ProjectId })
const ResourcePath = Schema.Struct({ projectId: ProjectId, resourceId: Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(128))) })
const WINDOW = "The window is receivedAfter to receivedBefore (default: the 30 days before now; at most 366 days)."

export const VerificationCodesGroup = HttpApiGroup.make("verificationCodes")
  .add(
    HttpApiEndpoint.get("countFilteredVerificationCodes", `${BASE}/filtered-otp/count`, {
      params: ProjectPath,
      query: FilteredVerificationCodesQuery,
      success: FilteredVerificationCodeCount,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Count filtered verification codes",
      description: `How many OTP-bearing inbound messages were held back before delivery, optionally of one platform; the answer echoes the window. ${WINDOW} Needs \`platforms:read\`.`
    }))
  )
  .add(
    HttpApiEndpoint.get("listFilteredVerificationCodes", `${BASE}/filtered-otp`, {
      params: ProjectPath,
      query: FilteredVerificationCodesQuery,
      success: FilteredVerificationCodePage,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "List filtered verification codes",
      description: `The record of OTP-bearing inbound messages held back before delivery (line, platform, time — never the code), newest first; a short page may still carry nextPageToken. ${WINDOW} Needs \`platforms:read\`.`
    }))
  )
  .add(
    HttpApiEndpoint.get("countResourceFilteredVerificationCodes", `${BASE}/resources/:resourceId/filtered-otp/count`, {
      params: ResourcePath,
      query: FilteredVerificationCodesQuery,
      success: FilteredVerificationCodeCount,
      error: problems(common, "RESOURCE_NOT_FOUND")
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Count a line's filtered verification codes",
      description: `Like countFilteredVerificationCodes for one line or number the project holds now. ${WINDOW} Needs \`platforms:read\`; 404 RESOURCE_NOT_FOUND unless held now.`
    }))
  )
  .add(
    HttpApiEndpoint.get("listResourceFilteredVerificationCodes", `${BASE}/resources/:resourceId/filtered-otp`, {
      params: ResourcePath,
      query: FilteredVerificationCodesQuery,
      success: FilteredVerificationCodePage,
      error: problems(common, "RESOURCE_NOT_FOUND")
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "List a line's filtered verification codes",
      description: `Like listFilteredVerificationCodes for one line or number the project holds now. ${WINDOW} Needs \`platforms:read\`; 404 RESOURCE_NOT_FOUND unless held now.`
    }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Filtered verification codes",
    description: "The record of OTP-bearing inbound messages held back before delivery (never the codes)."
  }))
