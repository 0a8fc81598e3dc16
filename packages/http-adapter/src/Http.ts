/**
 * The HTTP application (docs/architecture.md#d6-one-server): the versioned, Dashboard and
 * management APIs (each an HttpApi), their OpenAPI documents, the problem-type pages and static
 * assets on one router, behind the global middleware. What each feature adds comes from the
 * registry (`Features.ts`). It needs the core services, the repository ports and a `ServerConfig`;
 * the server entry (or a host) supplies them.
 */
import { settingsOf } from "@switchboard/core/internal"
import { HttpApi, HttpApiBuilder } from "effect/http-api"
import { Etag, HttpMiddleware, HttpPlatform, HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { Context, Effect, FileSystem, Layer, Path, References, Scope, Tracer } from "effect"
import { faviconIco, faviconSvg, iconHeaders } from "./console/ConsoleBrand.js"
import { defaultAvatarSvg } from "./docs/Assets.js"
import { openApiDocument } from "./docs/OpenApiDocument.js"
import { catalogResponse, deprecationsResponse, problemPageResponse } from "./docs/ProblemPages.js"
import { referencePageResponse, referencePages, referenceScript, scalarBundle, scalarInstallHint, scriptResponse } from "./docs/ReferencePages.js"
import { managementOpenApi } from "./docs/ManagementOpenApi.js"
import { layerGlobalMiddleware } from "./http/Middleware.js"
import { InFlight, makeInFlightCounter } from "./http/pipeline/InFlight.js"
import { routePattern, type RouteTable } from "./http/pipeline/UrlChecks.js"
import { ServerConfig } from "./http/ServerConfig.js"
import { DashboardApi } from "./dashboard/DashboardApi.js"
import { DashboardAccessLive, DashboardBodyLive, DashboardEnvelopesLive } from "./dashboard/Middleware.js"
import { FeatureRoutes, featureRouteTable, V1Api, V1GroupsLive } from "./Features.js"
import { DashboardGroupsLive } from "./routes/DashboardRoutes.js"
import { ingressOtherMethods } from "./routes/IngressRoutes.js"
import { AuthnLive } from "./v1/AuthnLive.js"
import { RouteAccessLive } from "./v1/Access.js"
import { IdempotencyLive } from "./v1/Idempotency.js"
import { JsonBodyLive } from "./v1/JsonBodyLive.js"
import { V1ProblemsLive } from "./v1/V1Problems.js"
import { ManagementApi } from "./management/ManagementApi.js"
import { ManagementGroupsLive } from "./management/ManagementHandlers.js"
import { ManagementMiddlewareLive } from "./management/ManagementMiddleware.js"
import { problem } from "./v1/Problems.js"

/** Routes outside the HttpApi (pages, Dashboard, OAuth, management, uploads, …) as (method, router path). */
export const rawRoutes: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/openapi.json"],
  ["GET", "/problems"],
  ["GET", "/problems/:slug"],
  ["GET", "/assets/default-avatar.svg"],
  ["GET", "/favicon.ico"],
  ["GET", "/favicon.svg"],
  ["GET", "/deprecations"],
  ["GET", "/projects/openapi.json"],
  ...referencePages.map((p) => ["GET", p.path] as const),
  ["GET", "/docs/assets/scalar.js"],
  ["GET", "/docs/assets/reference.js"],
  ...featureRouteTable,
  // The ingress URL takes every method Node accepts, not only its declared ones: the access log
  // names its route for all of them.
  // (HEAD apart: its answers have no body, and the router answers HEAD on any GET route already.)
  ...ingressOtherMethods.filter((method) => method !== "HEAD").map((method) => [method, "/ingress/:secret"] as const)
]

/** Every declared route, for 405 answers and lifecycle headers. */
export const routeTable: RouteTable = (() => {
  const routes: Array<{ method: string; pattern: RegExp; path?: string; operationId?: string }> = rawRoutes.map(([method, path]) => ({
    method,
    pattern: routePattern(path),
    path
  }))
  HttpApi.reflect(V1Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) =>
      routes.push({ method: endpoint.method, pattern: routePattern(endpoint.path), path: endpoint.path, operationId: `${group.identifier}.${endpoint.identifier}` })
  })
  return { routes }
})()

const RawRoutesLive = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    // Made on its first request, not at start (it walks every schema of the API), then kept.
    let openapi: string | undefined
    yield* router.add("GET", "/openapi.json", Effect.sync(() => {
      openapi ??= JSON.stringify(openApiDocument(config.apiUrl, config.docsUrl))
      return HttpServerResponse.text(openapi, { contentType: "application/json" })
    }))
    // The management API's document is public (the rest of /projects/* needs Basic credentials).
    let managementDocument: string | undefined
    yield* router.add("GET", "/projects/openapi.json", Effect.sync(() => {
      managementDocument ??= JSON.stringify(managementOpenApi(config.spectrumUrl))
      return HttpServerResponse.text(managementDocument, { contentType: "application/json" })
    }))
    for (const page of referencePages) {
      yield* router.add("GET", page.path as HttpRouter.PathInput, Effect.sync(() => referencePageResponse(page, config.spectrumUrl)))
    }
    // `@scalar/api-reference` is an optional peer: without it the pages load, and their script
    // answers a problem saying what to install (never a raw exception).
    yield* router.add("GET", "/docs/assets/scalar.js", Effect.suspend(() => {
      const bundle = scalarBundle()
      return bundle === undefined
        ? Effect.fail(problem(
          "RESOURCE_NOT_FOUND",
          `The API reference's script comes from @scalar/api-reference, which is not installed next to this server: ${scalarInstallHint}`
        ))
        : Effect.succeed(scriptResponse(bundle))
    }))
    yield* router.add("GET", "/docs/assets/reference.js", Effect.sync(() => scriptResponse(referenceScript)))
    yield* router.add("GET", "/problems", Effect.sync(catalogResponse))
    yield* router.add("GET", "/problems/:slug", Effect.flatMap(HttpRouter.params, ({ slug }) => {
      const page = problemPageResponse(slug ?? "")
      return page === undefined ? Effect.fail(problem("RESOURCE_NOT_FOUND", `No problem type ${slug}.`)) : Effect.succeed(page)
    }))
    yield* router.add("GET", "/deprecations", Effect.sync(() => deprecationsResponse(config.docsUrl)))
    yield* router.add("GET", "/assets/default-avatar.svg", HttpServerResponse.text(defaultAvatarSvg, {
      contentType: "image/svg+xml",
      headers: { "cache-control": "public, max-age=86400" }
    }))
    // The icon every page of every surface gets (browsers ask for /favicon.ico on their own).
    yield* router.add("GET", "/favicon.ico", Effect.sync(() => HttpServerResponse.uint8Array(faviconIco, { contentType: "image/x-icon", headers: iconHeaders })))
    yield* router.add("GET", "/favicon.svg", Effect.sync(() => HttpServerResponse.text(faviconSvg, { contentType: "image/svg+xml", headers: iconHeaders })))
  }))

export const InFlightLive = Layer.sync(InFlight, makeInFlightCounter)

const ApiLive = HttpApiBuilder.layer(V1Api).pipe(Layer.provide(V1GroupsLive), Layer.provide([AuthnLive, V1ProblemsLive, RouteAccessLive, JsonBodyLive, IdempotencyLive]))

/** The Dashboard API (dashboard/DashboardApi.ts), mounted the same way beside it. */
const DashboardApiLive = HttpApiBuilder.layer(DashboardApi).pipe(
  Layer.provide(DashboardGroupsLive),
  Layer.provide([DashboardEnvelopesLive, DashboardAccessLive, DashboardBodyLive])
)
/** The management API (management/ManagementApi.ts); anything else under `/projects` is its raw fallback (`FeatureRoutes`). */
const ManagementApiLive = HttpApiBuilder.layer(ManagementApi).pipe(Layer.provide(ManagementGroupsLive), Layer.provide(ManagementMiddlewareLive))

/** The application's routes and middleware, registered on the `HttpRouter`; `serve` it on an `HttpServer`. */
export const HttpAppLive = Layer.mergeAll(
  ApiLive,
  DashboardApiLive,
  ManagementApiLive,
  RawRoutesLive,
  FeatureRoutes,
  layerGlobalMiddleware(routeTable)
)

/**
 * Which of the application's parts a mounted server builds (server/Mount.ts): the three HttpApis
 * and the pages (`raw`: documents, problem pages, the default avatar). The feature routes and the
 * global middleware are always there. A part left out answers nothing: the mount does not route
 * its paths here.
 */
export interface HttpParts {
  readonly v1: boolean
  readonly dashboard: boolean
  readonly management: boolean
  readonly raw: boolean
}

/**
 * `HttpRouter.serve`, except for what a request fiber carries: the platform's services (the
 * server, its scope, `HttpServer.layerServices`), the tracing switches and the application's
 * settings (every `Context.Reference` declared with core's `Setting`: a handler reads them where it
 * uses them), not the application's ~600 other context entries. Every part of the application
 * captured the services it uses when it was built (the /v1 groups and their middleware merge their
 * own context in, the other routers' types allow only the platform's services, the global
 * middleware closes over its own), so nothing reads them from the request. With the whole
 * application context, each request copied it several times and compared it entry by entry once:
 * the largest share of a cached read's CPU (bench/README.md). `ServeLean.test.ts` checks that
 * settings a host provides reach handlers. Built after `HttpAppLive`: the router's global
 * middleware is fixed when its handler is made.
 */
const serveLean = Layer.effectDiscard(Effect.gen(function*() {
  const router = yield* HttpRouter.HttpRouter
  const context = yield* Effect.context<
    HttpServer.HttpServer | Scope.Scope | HttpPlatform.HttpPlatform | Etag.Generator | FileSystem.FileSystem | Path.Path
  >()
  const platform = Context.pick(
    HttpServer.HttpServer,
    Scope.Scope,
    HttpPlatform.HttpPlatform,
    Etag.Generator,
    FileSystem.FileSystem,
    Path.Path
  )(context)
  // The tracing switches and the logging setup (loggers, level) the application was started with.
  const carried = Context.merge(settingsOf(context as Context.Context<never>), platform).pipe(
    Context.add(HttpMiddleware.TracerDisabledWhen, Context.get(context, HttpMiddleware.TracerDisabledWhen)),
    Context.add(References.TracerEnabled, Context.get(context, References.TracerEnabled)),
    Context.add(References.CurrentLoggers, Context.get(context, References.CurrentLoggers)),
    Context.add(References.MinimumLogLevel, Context.get(context, References.MinimumLogLevel))
  )
  // With an exporting tracer (server/Observability.ts, `HttpLiveTraced`): it too; without one,
  // nothing more (every entry is copied along with the context on each request).
  const tracer = Context.get(context, Tracer.Tracer)
  const withTracer = tracer === Tracer.nativeTracer ? carried : carried.pipe(Context.add(Tracer.Tracer, tracer))
  yield* Effect.updateContext(HttpServer.serveEffect()(router.asHttpEffect()), (_: Context.Context<never>) => withTracer)
}))

/**
 * The router's types mark what its routes fail with and need per request
 * (`HttpRouter.Request<"Error" | "Requires", …>`); `HttpRouter.serve` discharges those marks in its
 * signature. Here the global middleware answers every failure (http/pipeline/Failures.ts) and every
 * route captured its services when it was built (see `serveLean`), so the marks are dropped alike.
 */
const discharged = <A, E, R>(
  layer: Layer.Layer<A, E, R>
): Layer.Layer<A, HttpRouter.Request.Without<E>, HttpRouter.Request.Without<R>> =>
  // The marks are phantom types: the layer itself is unchanged.
  layer as Layer.Layer<A, never, never> as Layer.Layer<A, HttpRouter.Request.Without<E>, HttpRouter.Request.Without<R>>

/**
 * Serves the application on whatever `HttpServer` is provided. The platform's per-request span is
 * off: no exporter is configured, and building it is a measurable share of each request
 * (docs/architecture.md#hot-paths; see bench/README.md).
 */
const serving = <A, E, R>(app: Layer.Layer<A, E, R>) =>
  discharged(serveLean.pipe(
    Layer.provide(app),
    Layer.provide(HttpRouter.layer),
    Layer.provide(Layer.succeed(HttpMiddleware.TracerDisabledWhen)(() => true)),
    // No exporter is configured: the spans of `Effect.fn` service methods are not built on requests
    // (docs/architecture.md#hot-paths: keep span creation off the hot path unless an exporter
    // exports them).
    Layer.provide(Layer.succeed(References.TracerEnabled)(false))
  ))

export const HttpLive = serving(HttpAppLive)

/**
 * `HttpLive` with its spans on, for a server that exports them (server/Observability.ts): a server
 * span per request named `METHOD /declared/route` (made by the request pipeline,
 * http/pipeline/RequestSpan.ts; the router adds `http.route`), under it the spans of the services,
 * statements and outbound calls, on the tracer the application was built with.
 */
export const HttpLiveTraced = discharged(serveLean.pipe(
  Layer.provide(HttpAppLive),
  Layer.provide(HttpRouter.layer),
  // The request span is the pipeline's (http/pipeline/RequestSpan.ts), not the platform's.
  Layer.provide(Layer.succeed(HttpMiddleware.TracerDisabledWhen)(() => true)),
  Layer.provide(Layer.succeed(References.TracerEnabled)(true))
))

/** `HttpLive` with some of the application's parts only (see `HttpParts`). */
export const httpLiveOf = (parts: HttpParts): typeof HttpLive =>
  serving(Layer.mergeAll(
    FeatureRoutes,
    layerGlobalMiddleware(routeTable),
    ...(parts.v1 ? [ApiLive] : []),
    ...(parts.dashboard ? [DashboardApiLive] : []),
    ...(parts.management ? [ManagementApiLive] : []),
    ...(parts.raw ? [RawRoutesLive] : [])
  )) as unknown as typeof HttpLive
