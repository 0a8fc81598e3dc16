/**
 * The Messages feature's /v1 routes (docs/messages.md). The public contract names no message
 * operations, so the paths follow the call signals' (docs/messages.md): everything is under
 * `/v1/projects/{projectId}/platforms/messages` — `POST …/facts` for the messaging edge's lifecycle
 * facts (`events:write`), `GET …` and `GET …/{messageId}` for the records (`platforms:read`).
 * Handlers get their payload and query decoded by the schemas declared here (a bad query is a 422
 * with location `query`).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { IngestMessageFactsRequest, IngestMessageFactsResponse, ListMessagesQuery, Message, MessagePage } from "@switchboard/core/messages"
import { MessageId, ProjectId } from "@switchboard/core/shared"
import { Schema } from "effect"
import { projectProblems as common } from "./CommonProblems.js"
import { projectAccess } from "./Access.js"
import { Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

const BASE = "/v1/projects/:projectId/platforms/messages"

const ProjectPath = Schema.Struct({ projectId: ProjectId })
const MessagePath = Schema.Struct({ projectId: ProjectId, messageId: MessageId })

export const MessagesGroup = HttpApiGroup.make("messages")
  .add(
    HttpApiEndpoint.post("ingestMessageFacts", `${BASE}/facts`, {
      params: ProjectPath,
      payload: IngestMessageFactsRequest,
      success: IngestMessageFactsResponse,
      error: problems(common, "PROJECT_CLOSING", "PAYLOAD_TOO_LARGE")
    }).annotate(Requires, projectAccess("events:write")).annotateMerge(OpenApi.annotations({
      summary: "Report message facts",
      description: "The messaging edge reports message lifecycle facts (dispatched, accepted, delivered, failed, received): " +
          "1-100 per batch, applied in order in one transaction, each answered applied, ignored (a repeated fact id, a step " +
          "back, a message already final) or rejected (with the reason). Needs events:write."
    }))
  )
  .add(
    HttpApiEndpoint.get("listMessages", BASE, {
      params: ProjectPath,
      query: ListMessagesQuery,
      success: MessagePage,
      error: problems(common)
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "List messages",
      description: "The project's messages, newest first; filters platform, status, createdAfter, createdBefore; " +
          "pageSize 1-100 (default 20). Needs platforms:read."
    }))
  )
  .add(
    HttpApiEndpoint.get("getMessage", `${BASE}/:messageId`, {
      params: MessagePath,
      success: Message,
      error: problems(common, "RESOURCE_NOT_FOUND")
    }).annotate(Requires, projectAccess("platforms:read")).annotateMerge(OpenApi.annotations({
      summary: "Get a message",
      description: "One message record in the shape of its status and platform. Needs platforms:read."
    }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Messages",
    description: "Message records built from the messaging edge's lifecycle facts (docs/messages.md)."
  }))
