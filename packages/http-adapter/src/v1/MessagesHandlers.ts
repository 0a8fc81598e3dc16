/**
 * The Messages feature's /v1 handlers (docs/messages.md): fact ingestion needs `events:write`,
 * reads `platforms:read` (project API keys with those permissions may call them; OAuth tokens need
 * the mapped scopes).
 */
import { HttpApiBuilder } from "effect/http-api"
import { encodeFactResult, Messages } from "@switchboard/core/messages"
import { Effect } from "effect"
import { onProject } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { MessagesGroup } from "./MessagesApi.js"
import { domain, toResponse } from "./Pipeline.js"

export const MessagesGroupLive = HttpApiBuilder.group(v1Group(MessagesGroup), "messages", (handlers) =>
  Effect.gen(function*() {
    const messages = yield* Messages
    return handlers
      .handle("ingestMessageFacts", ({ params: path, payload }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "events:write")
          const results = yield* domain(messages.ingest(path.projectId, principal, payload.facts))
          // The same JSON as rendered(IngestMessageFactsResponse, …), without re-validating the
          // records the reducer made through the 35-shape union (core messages/MessageRecords.ts).
          return toResponse({
            status: 200,
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ results: results.map(encodeFactResult) })
          })
        }))
      .handle("listMessages", ({ params: path, query }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "platforms:read")
          const page = yield* domain(messages.list(path.projectId, principal, query))
          return {
            messages: page.messages,
            ...(page.nextPageToken === undefined ? {} : { nextPageToken: page.nextPageToken })
          }
        }))
      .handle("getMessage", ({ params: path }) =>
        Effect.gen(function*() {
          const principal = yield* onProject(path.projectId, "platforms:read")
          return yield* domain(messages.get(path.projectId, principal, path.messageId))
        }))
  }))
