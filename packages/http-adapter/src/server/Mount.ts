/**
 * Switchboard's HTTP surfaces inside a host's own server (docs/embedding.md, "The HTTP surfaces in
 * your server"): one call builds the application on a store, serves the chosen surfaces under a
 * base path, and hands back a Node `request` listener and a web `Request → Response` handler.
 *
 * The application is the standalone server's (`appLayer`, `HttpLive`), served on an `HttpServer`
 * that listens nowhere: its `serve` keeps the Node handler and the web handler of the application
 * instead of attaching them to a socket. In front of them: the base path (stripped before routing,
 * put back on `Location` headers), the surfaces switch, and the state of the mount (disposed).
 *
 * Why this file is long: the options' checks, the store kinds, the base path and the two handler
 * forms are one boundary a host meets in one call; split, each part would need the others' state.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { bootstrapIfEmpty } from "@switchboard/core/accounts"
import { checkServerSecret } from "@switchboard/core/oauth"
import { DatabaseConfig, StoreSql } from "@switchboard/sql-adapter"
import { Cause, Context, Data, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { HttpEffect, HttpServer, HttpServerResponse } from "effect/http"
import { NetAddress } from "effect/net"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { existsSync, readFileSync, realpathSync } from "node:fs"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import type { Duplex } from "node:stream"
import { httpLiveOf } from "../Http.js"
import { scalarInstallHint, scalarPackageDir } from "../docs/ReferencePages.js"
import { makeServerConfig, type ServerConfigShape } from "../http/ServerConfig.js"
import { surfaceOf } from "../http/Surfaces.js"
import { channelSettingsOf } from "./ChannelAdapters.js"
import { makeChannel } from "./ChannelServer.js"
import { HousekeepingLive } from "./Housekeeping.js"
import { appLayer } from "./Server.js"

/** A `pg` (node-postgres) `Pool`, as the sql-adapter takes it. */
export type HostPool = Extract<DatabaseConfig, { readonly _tag: "PostgresPool" }>["pool"]

/** The surfaces a host may serve. `dashboard` includes the OAuth endpoints and the sign-in pages. */
export type MountSurface = "v1" | "dashboard" | "management" | "console" | "docs"

export const mountSurfaces: ReadonlyArray<MountSurface> = ["v1", "dashboard", "management", "console", "docs"]

/**
 * Where the mounted application keeps its data: in memory (lost on dispose; for demos and tests),
 * a PostgreSQL database by URL (a pool the mount opens and closes), the host's own `pg` pool (used,
 * never ended), or a store `Layer` the host makes (e.g. `StoreSql(...)` of `@switchboard/sql-adapter`).
 */
export type MountStore =
  | { readonly kind: "memory" }
  | { readonly kind: "postgres"; readonly url: string }
  | { readonly kind: "pool"; readonly pool: HostPool }
  | Layer.Layer<never, unknown, never>

export interface MountOptions {
  /** The surfaces to serve; the others answer 404 (plain text), as paths outside `basePath` do. */
  readonly surfaces: ReadonlyArray<MountSurface>
  /** A path prefix such as `/switchboard` (starts with `/`, no trailing `/`, no `..`); default none. */
  readonly basePath?: string | undefined
  readonly store: MountStore
  /**
   * The origin the host is reached at (e.g. `https://example.com`): absolute URLs Switchboard
   * emits (Location headers, the OAuth issuer and metadata, problem types) are this origin plus
   * `basePath`. Default `http://localhost`. `settings.apiUrl` and the other URL settings win.
   */
  readonly publicUrl?: string | undefined
  /**
   * The server secret (32 characters or more; the same in every process of a deployment). Needed
   * with every store but `memory`, where a random one is made per mount.
   */
  readonly secretKey?: string | undefined
  /** When given and the store has no account yet: create this first account (see `bootstrap` on the result). */
  readonly bootstrap?: { readonly email: string; readonly password?: string | undefined } | undefined
  /** Any other server setting (docs/configuration.md): the standalone server's variables, by their field names. */
  readonly settings?: Partial<ServerConfigShape> | undefined
  /** Where the host resolves `effect` from, to detect a second copy (default: the working directory). */
  readonly hostRoot?: string | undefined
}

/** The credentials of the first account, when `bootstrap` made one. */
export interface MountBootstrap {
  readonly accountId: string
  readonly email: string
  readonly password: string
  readonly serviceKey: string
}

export interface MountedSwitchboard {
  /**
   * A Node `request` listener (`http.createServer(listener)`, Express/Connect middleware): requests
   * outside `basePath` go to `next()` when given, else get a plain-text 404.
   */
  readonly listener: (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void
  /** The same application as a web handler; outside `basePath` (or a surface not served): 404. */
  readonly handler: (request: Request) => Promise<Response>
  /**
   * Routes a Node server's WebSocket upgrades of `<basePath>/v1/subscribe` to the event channel
   * (needs the `v1` surface); other upgrades go on to the server's own listeners.
   */
  readonly attach: (server: Server) => void
  /** The first account's credentials, when `bootstrap` was given and the store was empty. */
  readonly bootstrap: MountBootstrap | undefined
  /** The settings the application runs with (URLs include the base path). */
  readonly config: ServerConfigShape
  /** Stops the workers and closes what the mount opened (never a store the host passed in); idempotent. */
  readonly dispose: () => Promise<void>
}

/** A mount that cannot start, or a use of one that was disposed: the message says what to fix. */
export class MountError extends Data.TaggedError("MountError")<{ readonly message: string }> {}

const fail = (message: string) => new MountError({ message: `mountSwitchboard: ${message}` })

// ---------------------------------------------------------------------------------------------
// Options.

/** A base path as given, checked: `""` for none. */
export const checkBasePath = (basePath: string | undefined): string => {
  if (basePath === undefined || basePath === "" || basePath === "/") return ""
  const problems = [
    !basePath.startsWith("/") && "must start with \"/\"",
    basePath.endsWith("/") && "must not end with \"/\"",
    basePath.split("/").some((s) => s === ".." || s === ".") && "must not contain \".\" or \"..\" segments",
    basePath.includes("//") && "must not contain \"//\"",
    /[?#\s%\\]/.test(basePath) && "must not contain \"?\", \"#\", \"%\", \"\\\" or spaces"
  ].filter((p) => p !== false)
  if (problems.length > 0) throw fail(`basePath ${JSON.stringify(basePath)} ${problems.join(", ")} (e.g. "/switchboard")`)
  return basePath
}

const checkSurfaces = (surfaces: unknown): ReadonlySet<MountSurface> => {
  if (!Array.isArray(surfaces) || surfaces.length === 0) {
    throw fail(`surfaces must list at least one of ${mountSurfaces.map((s) => `"${s}"`).join(", ")}`)
  }
  const unknown = surfaces.filter((s) => !mountSurfaces.includes(s as MountSurface))
  if (unknown.length > 0) {
    throw fail(`unknown surface ${unknown.map((s) => JSON.stringify(s)).join(", ")}: the surfaces are ${mountSurfaces.map((s) => `"${s}"`).join(", ")}`)
  }
  return new Set(surfaces as ReadonlyArray<MountSurface>)
}

const checkPublicUrl = (publicUrl: string | undefined): string => {
  if (publicUrl === undefined) return "http://localhost"
  let url: URL
  try {
    url = new URL(publicUrl)
  } catch {
    throw fail(`publicUrl ${JSON.stringify(publicUrl)} is not a URL: give the origin the host is reached at, e.g. "https://example.com"`)
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    throw fail(`publicUrl ${JSON.stringify(publicUrl)} must be an http(s) origin without a path (put the path in basePath), e.g. "https://example.com"`)
  }
  return url.origin
}

// ---------------------------------------------------------------------------------------------
// One copy of effect.

interface EffectCopy {
  readonly version: string
  readonly path: string
}

/** The package file of the `effect` that `from` resolves (a version that exports no ./package.json: from its entry up). */
const effectPackageFile = (from: string): string | undefined => {
  const require = createRequire(from)
  try {
    return require.resolve("effect/package.json")
  } catch {
    try {
      for (let dir = dirname(require.resolve("effect")); dirname(dir) !== dir; dir = dirname(dir)) {
        const file = join(dir, "package.json")
        if (existsSync(file) && (JSON.parse(readFileSync(file, "utf8")) as { name?: string }).name === "effect") return file
      }
    } catch {
      // No effect there at all: the host does not use Effect.
    }
    return undefined
  }
}

const effectCopyFrom = (from: string): EffectCopy | undefined => {
  const file = effectPackageFile(from)
  if (file === undefined) return undefined
  try {
    const version = (JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version ?? "(unknown version)"
    return { version, path: realpathSync(dirname(file)) }
  } catch {
    return undefined
  }
}

const twoCopies = (host: string, ours: EffectCopy) =>
  fail(`two copies of effect: host has ${host}, Switchboard has ${ours.version} at ${ours.path}; dedupe (npm dedupe / one effect ~4.1 peer) so that both resolve the same copy`)

/** A Layer of another Effect version: its type marker is another key (Effect 3: `Symbol.for("effect/Layer")`). */
const looksLikeLayer = (u: unknown): boolean => {
  if (typeof u !== "object" || u === null) return false
  const keys: Array<string | symbol> = []
  for (let o: object | null = u; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) keys.push(...Reflect.ownKeys(o))
  return keys.some((k) => /effect\/Layer$/.test(typeof k === "symbol" ? k.description ?? "" : k))
}

/**
 * The host's `effect` (resolved from `hostRoot`) must be the copy Switchboard's packages resolve,
 * and a store `Layer` must be made by it: values of one copy are not understood by the other.
 */
export const checkOneEffect = (hostRoot: string, store: unknown): void => {
  const ours = effectCopyFrom(import.meta.url)
  if (ours === undefined) return
  const host = effectCopyFrom(join(hostRoot, "package.json"))
  if (host !== undefined && host.path !== ours.path) throw twoCopies(`${host.version} at ${host.path}`, ours)
  if (
    Layer.isLayer(store) ? Object.getPrototypeOf(store) !== Object.getPrototypeOf(Layer.empty) : looksLikeLayer(store)
  ) {
    throw twoCopies("another copy (the store Layer passed in was made by it)", ours)
  }
}

// ---------------------------------------------------------------------------------------------
// The store.

/**
 * The memory store has no SQL database. The one server adapter that takes the SQL client (the
 * simulated line provider) is replaced by its memory twin, but is still built: it gets this
 * stand-in, which refuses any use with a message saying so.
 */
const noSqlClient = Layer.succeed(SqlClient.SqlClient)(
  new Proxy(() => undefined, {
    get: () => {
      throw new Error("the memory store has no SQL client: use { kind: \"postgres\" } or a StoreSql Layer for this")
    },
    apply: () => {
      throw new Error("the memory store has no SQL client: use { kind: \"postgres\" } or a StoreSql Layer for this")
    }
  }) as unknown as SqlClient.SqlClient
)

const unknownStore = "store must be { kind: \"memory\" }, { kind: \"postgres\", url } or a store Layer (e.g. StoreSql(...) of @switchboard/sql-adapter)"

interface StoreParts {
  readonly store: Layer.Layer<never, unknown, never>
  /** Server adapters replaced for this store (the memory store has no SQL client for them). */
  readonly overrides: Layer.Layer<never>
}

const storeLayer = (store: MountStore, settings: Partial<ServerConfigShape>): Effect.Effect<StoreParts, MountError> => {
  if (Layer.isLayer(store)) return Effect.succeed({ store: store as Layer.Layer<never, unknown, never>, overrides: Layer.empty })
  const kind = (store as { kind?: unknown } | null)?.kind
  if (kind === "memory") {
    // Loaded only when asked for: the in-memory repositories of the testkit.
    return Effect.promise(() => import("@switchboard/testkit")).pipe(Effect.map((testkit) => ({
      store: Layer.merge(testkit.TestkitLive, noSqlClient),
      // Nothing on disk either: uploaded files in memory too.
      overrides: Layer.mergeAll(testkit.LineProviderSimulatedMemory, testkit.BlobStoreMemory) as Layer.Layer<never>
    })))
  }
  if (kind === "postgres") {
    const url = (store as { url?: unknown }).url
    if (typeof url !== "string" || !/^postgres(ql)?:\/\//.test(url)) {
      return Effect.fail(fail("store { kind: \"postgres\" } needs url: a postgres:// URL, e.g. postgres://user@127.0.0.1:5432/switchboard"))
    }
    return Effect.succeed({
      store: StoreSql(DatabaseConfig.Postgres({
        url: Redacted.make(url),
        statementTimeoutMs: settings.databaseStatementTimeoutMs ?? 10_000,
        connectTimeoutMs: settings.databaseConnectTimeoutMs ?? 5_000
      })),
      overrides: Layer.empty
    })
  }
  if (kind === "pool") {
    // The host's own `pg` pool, used with its settings and never ended here (docs/embedding.md,
    // "Storage on your PostgreSQL").
    const pool = (store as { pool?: unknown }).pool
    if (typeof pool !== "object" || pool === null || typeof (pool as { connect?: unknown }).connect !== "function") {
      return Effect.fail(fail("store { kind: \"pool\" } needs pool: a pg (node-postgres) Pool, e.g. new Pg.Pool({ connectionString })"))
    }
    return Effect.succeed({ store: StoreSql(DatabaseConfig.PostgresPool({ pool: pool as HostPool })), overrides: Layer.empty })
  }
  return Effect.fail(fail(unknownStore))
}

/** A build that failed, said at the boundary: a missing service by name, else the cause. */
const startFailure = (cause: Cause.Cause<unknown>): MountError => {
  const missing = new Set<string>()
  for (const reason of cause.reasons) {
    if (Cause.isFailReason(reason) && reason.error instanceof MountError) return reason.error
    const error = Cause.isDieReason(reason) ? reason.defect : Cause.isFailReason(reason) ? reason.error : undefined
    const match = error instanceof Error ? /^Service not found: (.+)$/.exec(error.message) : null
    if (match?.[1] !== undefined) missing.add(match[1])
  }
  if (missing.size > 0) {
    return fail(`the store does not provide ${[...missing].join(", ")}: pass a complete store Layer (StoreSql of @switchboard/sql-adapter provides every repository)`)
  }
  // The first failure's own message (a typed error says what to fix: SchemaVersionMismatch, a
  // DatabaseError naming host:port), never a stack trace.
  for (const reason of cause.reasons) {
    const error = Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
    const message = typeof error === "object" && error !== null && "message" in error ? String(error.message) : undefined
    if (message !== undefined && message !== "") return fail(`Switchboard could not start: ${message.split("\n")[0]}`)
  }
  return fail(`Switchboard could not start: ${Cause.pretty(cause).split("\n")[0]}`)
}

// ---------------------------------------------------------------------------------------------
// Paths and surfaces.

/** The mounted surface a path (base path removed) belongs to. */
export const mountSurfaceOf = (path: string): MountSurface => {
  if (
    path === "/docs" || path.startsWith("/docs/") || path === "/openapi.json" || path === "/projects/openapi.json" ||
    path === "/api/openapi.json" || path === "/problems" || path.startsWith("/problems/") || path === "/deprecations"
  ) return "docs"
  if (path === "/" || path === "/console" || path.startsWith("/console/")) return "console"
  if (path === "/sign-in" || path === "/device") return "dashboard"
  const surface = surfaceOf(path)
  return surface === "oauth" ? "dashboard" : surface
}

/** The request target without `basePath`, or `undefined` when it is outside it. */
const stripBase = (basePath: string, target: string): string | undefined => {
  if (basePath === "") return target
  if (!target.startsWith(basePath)) return undefined
  const rest = target.slice(basePath.length)
  if (rest === "") return "/"
  if (rest[0] === "/") return rest
  if (rest[0] === "?") return `/${rest}`
  return undefined
}

const pathOf = (target: string) => {
  const q = target.indexOf("?")
  return q === -1 ? target : target.slice(0, q)
}

const notFoundText = "Not Found"

// ---------------------------------------------------------------------------------------------
// The mount.

interface Handlers {
  readonly node: (req: IncomingMessage, res: ServerResponse) => void
  readonly web: (request: Request) => Promise<Response>
}

/**
 * An `HttpServer` that listens nowhere: serving the application on it hands over the Node handler
 * and the web handler of the application, each as `NodeHttpServer` and `HttpEffect` make them.
 */
const handOverServer = (basePath: string, onServe: (handlers: Handlers) => void) =>
  Layer.succeed(HttpServer.HttpServer)(HttpServer.make({
    address: NetAddress.unixPathAddress("switchboard-mount"),
    serve: (httpEffect, middleware) =>
      Effect.gen(function*() {
        const serveScope = yield* Effect.scope
        const scope = Scope.forkUnsafe(serveScope, "parallel")
        // Root-relative redirects (`/console`, `/sign-in`) stay under the base path.
        const app = basePath === "" ? httpEffect : Effect.map(httpEffect, (response) => {
          const location = response.headers["location"]
          return location !== undefined && location.startsWith("/") && !location.startsWith("//")
            ? HttpServerResponse.setHeader(response, "location", `${basePath}${location}`)
            : response
        })
        const node = yield* NodeHttpServer.makeHandler(app, { middleware: middleware as any, scope })
        const context = yield* Effect.context<never>()
        const web = HttpEffect.toWebHandlerWith(context)(app as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, never>, middleware)
        onServe({ node: node as Handlers["node"], web: (request) => web(request) })
      })
  }))

const appConfig = (options: MountOptions, basePath: string, secretKey: string): ServerConfigShape => {
  const origin = checkPublicUrl(options.publicUrl)
  const url = `${origin}${basePath}`
  const settings = options.settings ?? {}
  return makeServerConfig({
    apiUrl: url,
    dashboardUrl: url,
    spectrumUrl: url,
    docsUrl: url,
    ...settings,
    secretKey: Option.some(Redacted.make(secretKey)),
    databaseUrl: Option.none()
  })
}

/**
 * The mount as a scoped Effect, for Effect hosts: closing the scope (or `dispose`) stops it. The
 * Promise form is `mountSwitchboard`.
 */
export const makeSwitchboardMount = (options: MountOptions): Effect.Effect<MountedSwitchboard, MountError, Scope.Scope> =>
  Effect.gen(function*() {
    const checked = yield* Effect.try({
      try: () => {
        if (typeof options !== "object" || options === null) throw fail("options must be an object { surfaces, store, basePath?, … }")
        const surfaces = checkSurfaces(options.surfaces)
        const basePath = checkBasePath(options.basePath)
        checkOneEffect(options.hostRoot ?? process.cwd(), options.store)
        if (surfaces.has("docs") && scalarPackageDir() === undefined) {
          throw fail(`surface 'docs' needs @scalar/api-reference, which is not installed: ${scalarInstallHint} (or leave "docs" out of surfaces)`)
        }
        const kind = Layer.isLayer(options.store) ? "layer" : (options.store as { kind?: unknown } | null)?.kind
        if (kind !== "layer" && kind !== "memory" && kind !== "postgres" && kind !== "pool") throw fail(unknownStore)
        return { surfaces, basePath, isMemory: kind === "memory" }
      },
      catch: (e) => e instanceof MountError ? e : fail(String(e))
    })
    const { basePath, isMemory, surfaces } = checked
    const { overrides, store } = yield* storeLayer(options.store, options.settings ?? {})
    const config = yield* Effect.try({
      try: () => {
        const given = options.secretKey ?? Option.getOrUndefined(Option.map(options.settings?.secretKey ?? Option.none(), Redacted.value))
        if (given !== undefined && given.length < 32) throw fail("secretKey must be at least 32 characters")
        if (given === undefined && !isMemory) {
          throw fail("secretKey is required with this store: pass secretKey (32 characters or more, the same in every process that shares the store)")
        }
        return appConfig(options, basePath, given ?? randomBytes(32).toString("base64url"))
      },
      catch: (e) => e instanceof MountError ? e : fail(String(e))
    })

    const outer = yield* Effect.scope
    const scope = yield* Scope.fork(outer, "sequential")
    let disposed = false
    const close = Effect.suspend(() => {
      disposed = true
      return Scope.close(scope, Exit.void)
    })
    const started = Effect.gen(function*() {
      const app = yield* Layer.buildWithScope(appLayer(config, store as ReturnType<typeof StoreSql>, overrides), scope)
      // A secret that does not open the store's sealed keys would fail every token request later.
      yield* checkServerSecret.pipe(
        Effect.provide(app),
        Effect.mapError((e) => fail(`${e.message} Mounted, the secret is the secretKey option.`))
      )
      yield* Layer.buildWithScope(HousekeepingLive.pipe(Layer.provide(Layer.succeedContext(app))), scope)
      let handlers: Handlers | undefined
      yield* Layer.buildWithScope(
        httpLiveOf({
          v1: surfaces.has("v1"),
          // The Dashboard API serves the reference's document of itself (/api/openapi.json) too.
          dashboard: surfaces.has("dashboard") || surfaces.has("docs"),
          management: surfaces.has("management"),
          raw: surfaces.has("v1") || surfaces.has("docs")
        }).pipe(
          Layer.provide(Layer.succeedContext(app)),
          Layer.provide(handOverServer(basePath, (h) => {
            handlers = h
          })),
          Layer.provide(NodeHttpServer.layerHttpServices)
        ),
        scope
      )
      const channel = surfaces.has("v1") ? yield* Scope.provide(makeChannel(channelSettingsOf(config)).pipe(Effect.provide(app)), scope) : undefined
      const provision = options.bootstrap === undefined ? Option.none() : yield* bootstrapIfEmpty({
        email: options.bootstrap.email,
        password: options.bootstrap.password === undefined ? Option.none() : Option.some(Redacted.make(options.bootstrap.password))
      }).pipe(Effect.provide(app))
      if (handlers === undefined) return yield* Effect.die(new Error("the application was not served"))
      return { handlers, channel, provision }
    })
    const { channel, handlers, provision } = yield* started.pipe(
      Effect.catchCause((cause) => Effect.andThen(close, Effect.fail(startFailure(cause))))
    )

    // RFC 8414 §3: the metadata of the issuer <origin><basePath>/api/auth is at the origin's root,
    // /.well-known/<document><basePath>/api/auth, outside the base path: served too.
    const rootMetadata = new Map<string, string>(basePath === "" ? [] : ["openid-configuration", "oauth-authorization-server"].map((d) =>
      [`/.well-known/${d}${basePath}/api/auth`, `/.well-known/${d}/api/auth`] as const
    ))
    const outside = (target: string): string | undefined => {
      if (rootMetadata.size === 0) return undefined
      const q = target.indexOf("?")
      const inside = rootMetadata.get(q === -1 ? target : target.slice(0, q))
      return inside === undefined ? undefined : q === -1 ? inside : `${inside}${target.slice(q)}`
    }
    // However the scope closes (dispose, or the Effect host's scope), requests are refused from then on.
    yield* Scope.addFinalizer(scope, Effect.sync(() => {
      disposed = true
    }))
    const disposedMessage = "this Switchboard mount was disposed: mount it again (mountSwitchboard) to serve requests"
    const listener: MountedSwitchboard["listener"] = (req, res, next) => {
      const target = stripBase(basePath, req.url ?? "/") ?? outside(req.url ?? "/")
      if (target === undefined) {
        if (next !== undefined) return next()
        res.writeHead(404, { "content-type": "text/plain; charset=utf-8", "content-length": notFoundText.length })
        return void res.end(notFoundText)
      }
      if (disposed) {
        res.writeHead(503, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(disposedMessage) })
        return void res.end(disposedMessage)
      }
      if (!surfaces.has(mountSurfaceOf(pathOf(target)))) {
        res.writeHead(404, { "content-type": "text/plain; charset=utf-8", "content-length": notFoundText.length })
        return void res.end(notFoundText)
      }
      req.url = target
      handlers.node(req, res)
    }
    const handler: MountedSwitchboard["handler"] = (request) => {
      if (disposed) return Promise.reject(new MountError({ message: disposedMessage }))
      const url = new URL(request.url)
      const target = stripBase(basePath, url.pathname) ?? outside(url.pathname)
      if (target === undefined || !surfaces.has(mountSurfaceOf(target))) {
        return Promise.resolve(new Response(notFoundText, { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } }))
      }
      if (basePath === "") return handlers.web(request)
      url.pathname = target
      return handlers.web(new Request(url, request))
    }
    const channelPath = `${basePath}/v1/subscribe`
    const attach = (server: Server) => {
      if (channel === undefined) throw new MountError({ message: "mountSwitchboard: attach needs the \"v1\" surface (the event channel is /v1/subscribe)" })
      // The channel takes upgrades from a stand-in whose `emit` it wraps; the server's upgrades of
      // <basePath>/v1/subscribe go there without the base path, any other goes on as before.
      const relay = { emit: () => false } as unknown as Server
      channel.attach(relay)
      // Node hands upgrades to `upgrade` listeners only when there is one (else they reach the
      // `request` listener as plain requests): this one answers the upgrades nobody else takes.
      server.on("upgrade", (_req: IncomingMessage, socket: Duplex) => {
        if (server.listenerCount("upgrade") === 1) socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n")
      })
      const emit = server.emit.bind(server) as (event: string, ...args: Array<unknown>) => boolean
      server.emit = ((event: string, ...args: Array<unknown>) => {
        if (event === "upgrade" && !disposed) {
          const req = args[0] as IncomingMessage
          const url = req.url ?? ""
          if (pathOf(url) === channelPath) {
            const original = url
            req.url = url.slice(basePath.length)
            if ((relay.emit as (...a: Array<unknown>) => boolean)("upgrade", req, args[1] as Duplex, args[2])) return true
            req.url = original
          }
        }
        return emit(event, ...args)
      }) as typeof server.emit
    }
    const bootstrap = Option.match(provision, {
      onNone: () => undefined,
      onSome: (p): MountBootstrap => ({
        accountId: p.accountId,
        email: p.email,
        password: Redacted.value(p.password),
        serviceKey: Redacted.value(p.serviceKey)
      })
    })
    let disposing: Promise<void> | undefined
    return {
      listener,
      handler,
      attach,
      bootstrap,
      config,
      // The channel's own finalizer tells its sessions 1001 (going away) as the scope closes.
      dispose: () => (disposing ??= Effect.runPromise(close))
    } satisfies MountedSwitchboard
  })

/** The mounted application, for Effect hosts that provide it with `layerSwitchboardMount`. */
export class SwitchboardMount extends Context.Service<SwitchboardMount, MountedSwitchboard>()("http/SwitchboardMount") {}

/** The mount as a Layer: built, it serves; its scope closed, it is disposed. */
export const layerSwitchboardMount = (options: MountOptions): Layer.Layer<SwitchboardMount, MountError> =>
  Layer.effect(SwitchboardMount, makeSwitchboardMount(options))

/**
 * Serves Switchboard's HTTP surfaces in the host's server: resolves once the application is ready
 * (store migrated, workers started), rejects with a `MountError` naming what to fix.
 */
export const mountSwitchboard = async (options: MountOptions): Promise<MountedSwitchboard> => {
  const scope = Effect.runSync(Scope.make())
  const exit = await Effect.runPromiseExit(Scope.provide(makeSwitchboardMount(options), scope))
  if (Exit.isSuccess(exit)) {
    const mounted = exit.value
    let disposing: Promise<void> | undefined
    return { ...mounted, dispose: () => (disposing ??= mounted.dispose().then(() => Effect.runPromise(Scope.close(scope, Exit.void)))) }
  }
  await Effect.runPromise(Scope.close(scope, Exit.void))
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isSome(error)) throw error.value
  throw fail(`Switchboard could not start: ${Cause.pretty(exit.cause)}`)
}
