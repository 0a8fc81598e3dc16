/**
 * The operator console (issue 16), mounted under `/console` (`GET /` redirects there): server-
 * rendered pages over the core services with the signed-in dashboard session's authority. Each
 * area registers its pages here; `consoleRouteTable` lists them for the 405 table.
 */
import { HttpApiBuilder, type HttpRouter, HttpServerResponse } from "@effect/platform"
import { type Sessions } from "@switchboard/core/dashboard"
import { type Accounts } from "@switchboard/core/accounts"
import { type Secrets, type ServerSecret } from "@switchboard/core/shared"
import { Effect } from "effect"
import { type ServerConfig } from "../http/ServerConfig.js"
import { accountRoutes, accountRouteTable } from "./ConsoleAccount.js"
import { consoleCss, consoleJs } from "./ConsoleHtml.js"
import { homeRoutes, homeRouteTable } from "./ConsoleHome.js"
import { projectRoutes, projectRouteTable } from "./ConsoleProjects.js"
import { webhookRoutes, webhookRouteTable } from "./ConsoleWebhooks.js"

type Handler = Effect.Effect<HttpServerResponse.HttpServerResponse, never, any>

/** Where an area registers its pages (the per-request services are provided here). */
export interface ConsoleRouter {
  readonly get: (path: `/${string}`, handler: Handler) => Effect.Effect<void>
  readonly post: (path: `/${string}`, handler: Handler) => Effect.Effect<void>
}

const asset = (body: string, contentType: string) =>
  Effect.succeed(HttpServerResponse.text(body, {
    contentType,
    headers: { "cache-control": "public, max-age=300", "x-content-type-options": "nosniff" }
  }))

export const ConsoleRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    // What pages read per request beyond the request itself, captured once.
    const services = yield* Effect.context<Sessions | Accounts | ServerConfig | ServerSecret | Secrets>()
    const scoped: ConsoleRouter = {
      get: (path, handler) => router.get(path as HttpRouter.PathInput, Effect.provide(handler, services)),
      post: (path, handler) => router.post(path as HttpRouter.PathInput, Effect.provide(handler, services))
    }
    yield* router.get("/", Effect.succeed(HttpServerResponse.empty({ status: 303, headers: { location: "/console" } })))
    yield* router.get("/console/assets/console.css", asset(consoleCss, "text/css; charset=utf-8"))
    yield* router.get("/console/assets/console.js", asset(consoleJs, "text/javascript; charset=utf-8"))
    yield* homeRoutes(scoped)
    yield* projectRoutes(scoped)
    yield* webhookRoutes(scoped)
    yield* accountRoutes(scoped)
  }))

export const consoleRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/"],
  ["GET", "/console/assets/console.css"],
  ["GET", "/console/assets/console.js"],
  ...homeRouteTable,
  ...projectRouteTable,
  ...webhookRouteTable,
  ...accountRouteTable
]
