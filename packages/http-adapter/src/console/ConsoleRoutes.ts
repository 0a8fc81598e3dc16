/**
 * The operator console, mounted under `/console` (`GET /` redirects there): server-
 * rendered pages over the core services with the signed-in dashboard session's authority. Each
 * area registers its pages here; `consoleRouteTable` lists them for the 405 table.
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { type Sessions } from "@switchboard/core/dashboard"
import { type Accounts } from "@switchboard/core/accounts"
import { type Secrets, type ServerSecret } from "@switchboard/core/shared"
import { Effect } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { pageHeaders, signUpPageHtml } from "../routes/DashboardPages.js"
import { secureCookies, withCsrfCookie } from "../routes/DashboardSession.js"
import { pageCsrf } from "../routes/DashboardSignIn.js"
import { accountRoutes, accountRouteTable } from "./ConsoleAccount.js"
import { billingRoutes, billingRouteTable } from "./ConsoleBilling.js"
import { consoleCss, consoleJs } from "./ConsoleHtml.js"
import { homeRoutes, homeRouteTable } from "./ConsoleHome.js"
import { installationRoutes, installationRouteTable } from "./ConsoleInstallations.js"
import { overviewRoutes, overviewRouteTable } from "./ConsoleOverview.js"
import { projectRoutes, projectRouteTable } from "./ConsoleProjects.js"
import { ssoRoutes, ssoRouteTable } from "./ConsoleSso.js"
import { voiceRoutes, voiceRouteTable } from "./ConsoleVoice.js"
import { webhookRoutes, webhookRouteTable } from "./ConsoleWebhooks.js"

/** What a page reads per request: the request, its route, and the services captured below. */
type Handler = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext | Sessions | Accounts | ServerConfig | ServerSecret | Secrets
>

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

export const ConsoleRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    // What pages read per request beyond the request itself, captured once.
    const services = yield* Effect.context<Sessions | Accounts | ServerConfig | ServerSecret | Secrets>()
    const scoped: ConsoleRouter = {
      get: (path, handler) => router.add("GET", path, Effect.provide(handler, services)),
      post: (path, handler) => router.add("POST", path, Effect.provide(handler, services))
    }
    yield* router.add("GET", "/", Effect.succeed(HttpServerResponse.empty({ status: 303, headers: { location: "/console" } })))
    yield* router.add("GET", "/console/assets/console.css", asset(consoleCss, "text/css; charset=utf-8"))
    yield* router.add("GET", "/console/assets/console.js", asset(consoleJs, "text/javascript; charset=utf-8"))
    yield* scoped.get("/console/sign-up", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const config = yield* ServerConfig
      const csrf = yield* pageCsrf(request)
      const response = HttpServerResponse.text(signUpPageHtml({ csrfToken: csrf.token, enabled: config.signUpEnabled }), {
        contentType: "text/html; charset=utf-8",
        headers: pageHeaders
      })
      return csrf.fresh ? withCsrfCookie(response, csrf.token, secureCookies(request, config)) : response
    }))
    yield* homeRoutes(scoped)
    yield* overviewRoutes(scoped)
    yield* projectRoutes(scoped)
    yield* webhookRoutes(scoped)
    yield* voiceRoutes(scoped)
    yield* billingRoutes(scoped)
    yield* accountRoutes(scoped)
    yield* installationRoutes(scoped)
    yield* ssoRoutes(scoped)
  }))

export const consoleRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/"],
  ["GET", "/console/assets/console.css"],
  ["GET", "/console/assets/console.js"],
  ["GET", "/console/sign-up"],
  ...homeRouteTable,
  ...overviewRouteTable,
  ...projectRouteTable,
  ...webhookRouteTable,
  ...voiceRouteTable,
  ...billingRouteTable,
  ...accountRouteTable,
  ...installationRouteTable,
  ...ssoRouteTable
]
