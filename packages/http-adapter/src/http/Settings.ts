/**
 * Every setting of the standalone server, declared once: its environment variable, its default as
 * an operator reads it, its range or allowed values, its meaning, and the parser built from the
 * same numbers. `ServerConfig.ts` and the adapters read the environment through these
 * declarations, and `npm run docs:config` writes docs/configuration.md from them, so the page an
 * operator reads cannot drift from what the server parses.
 *
 * Why this file is long: it is the list of every setting (about a hundred), each with its meaning;
 * splitting it would split the one list docs/configuration.md is written from.
 */
import { parseEgressIps } from "@switchboard/core/events"
import { Config, Effect, Option, Redacted, Result, Schema, SchemaIssue } from "effect"

/** The sections of docs/configuration.md, in order. */
export const sections = [
  { id: "server", title: "Server, URLs and the first start", intro: "Where the server listens, the public URLs it writes into its answers, and the account a first start creates." },
  { id: "storage", title: "Database and data directory", intro: "The embedded database (PGlite, in `DATA_DIR`) is used unless `DATABASE_URL` names a PostgreSQL server." },
  { id: "limits", title: "Requests and limits", intro: "Sizes, deadlines and quotas of every request, and the number of keys an account or project may hold." },
  { id: "security", title: "Security and sessions", intro: "The server's secret, Dashboard sessions and sign-in lockout, and the jobs that clean up after them." },
  { id: "logs", title: "Logs", intro: "Log lines go to stdout. The start banner and the bootstrap line are not log lines: they are always printed." },
  { id: "webhooks", title: "Webhooks", intro: "The delivery engine: where deliveries may go, how they are retried, and how many run at once." },
  { id: "channel", title: "Event channel and ingress", intro: "The WebSocket event channel (`/v1/subscribe`), the event log behind it, and external-webhook ingress URLs ([event channel](event-channel.md))." },
  { id: "billing", title: "Billing", intro: "The plan catalog and the billing scheduler." },
  { id: "sso", title: "Organization SSO and the device flow", intro: "Calls to organizations' identity providers ([organization SSO](sso.md)) and the device flow for command-line tools ([OAuth](api-notes/oauth.md))." },
  { id: "management", title: "TLS and the management API", intro: "The management API is served over HTTPS only, by a second listener that serves the same application as `PORT`." },
  { id: "platforms", title: "Platform provisioning", intro: "The provisioning worker and the entitlements every project of this server gets ([provisioning](provisioning.md))." },
  {
    id: "simulated",
    title: "Simulated providers",
    intro: "The standalone server provisions numbers, lines and domains through deterministic simulated providers; these settings make them slow, failing or out of stock, for trying the flows out. A host that embeds Switchboard plugs real providers in instead ([embedding](embedding.md))."
  },
  {
    id: "observability",
    title: "Observability",
    intro: "OpenTelemetry export (traces, metrics and logs over OTLP/HTTP, the standard `OTEL_*` variables) and the Prometheus endpoint; both are off unless configured ([operations](operations.md#observability))."
  }
] as const

export type SectionId = typeof sections[number]["id"]

/** What docs/configuration.md says about one setting. */
export interface SettingDoc {
  readonly name: string
  readonly section: SectionId
  /** The default as an operator reads it (Markdown). */
  readonly shownDefault: string
  /** The allowed values or range (Markdown; `|` is escaped when rendered); empty when any text is taken. */
  readonly range: string
  /** One or two sentences (Markdown). */
  readonly meaning: string
  /** The inclusive bounds the parser enforces, for a number. */
  readonly bounds?: { readonly min: number; readonly max: number }
  /** What an unset variable parses to, when that is one fixed value. */
  readonly fallback?: { readonly value: unknown }
  /** The values a choice takes. */
  readonly choices?: ReadonlyArray<string>
}

/** A setting: its documentation and the parser of its variable. */
export interface Setting<A> extends SettingDoc {
  readonly config: Config.Config<A>
}

/** A numeric setting: its bounds and default are always known. */
export interface IntSetting extends Setting<number> {
  readonly bounds: { readonly min: number; readonly max: number }
  readonly fallback: { readonly value: number }
}

const code = (value: string | number | boolean) => `\`${value}\``

/** A byte count as people read it: `64 MiB`, `1 KiB`. */
const size = (bytes: number) => {
  for (const [unit, n] of [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const) {
    if (bytes >= n && bytes % n === 0) return `${bytes / n} ${unit}`
  }
  return `${bytes} bytes`
}

/**
 * A setting that failed: a schema issue at the variable's name (as `Config.schema` reports its own),
 * so the CLI names the variable and says what is wrong.
 */
const invalid = (name: string, message: string) =>
  new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.Pointer([name], new SchemaIssue.InvalidValue({ message }))))

/** One variable read as text and parsed by `parse` (`undefined`: not valid, `message` says why). */
const parsed = <A>(name: string, parse: (text: string) => A | undefined, message: (text: string) => string): Config.Config<A> =>
  Config.String(name).pipe(Config.mapEffect((text) => {
    const value = parse(text)
    return value === undefined ? Effect.fail(invalid(name, message(text))) : Effect.succeed(value)
  }))

/** A further check of a setting's value (`message`: why it is refused). */
const refine = <A, B>(name: string, check: (a: A) => Result.Result<B, string>) => (self: Config.Config<A>): Config.Config<B> =>
  self.pipe(Config.mapEffect((a) => {
    const checked = check(a)
    return Result.isSuccess(checked) ? Effect.succeed(checked.success) : Effect.fail(invalid(name, checked.failure))
  }))

/** A whole number (as `Number` reads it, e.g. `1e3`). */
const integer = (name: string) =>
  parsed(name, (text) => {
    const n = Number(text)
    return Number.isInteger(n) ? n : undefined
  }, (text) => `Expected an integer value but received ${text}`)

/** An integer setting with a default and inclusive bounds; out of range, the server refuses to start. */
export const boundedInteger = (name: string, fallback: number, min: number, max: number) =>
  integer(name).pipe(
    Config.withDefault(fallback),
    refine(name, (n: number) => n >= min && n <= max ? Result.succeed(n) : Result.fail(`must be between ${min} and ${max}`))
  )

/**
 * The integer parser of the provisioning and platform settings: a schema integer, refused out of
 * range with a message that names the variable itself.
 */
const schemaInteger = (name: string, fallback: number, min: number, max: number) =>
  Config.schema(Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max }, { message: `${name} must be between ${min} and ${max}` })), name)
    .pipe(Config.withDefault(fallback))

const booleans: Record<string, boolean> = { true: true, yes: true, on: true, 1: true, false: false, no: false, off: false, 0: false }

/** true|yes|on|1 or false|no|off|0. */
const boolean = (name: string) =>
  parsed(name, (text) => booleans[text], (text) => `Expected a boolean value but received ${text}`)

/**
 * One of `values`, as people type them: any case, surrounding spaces ignored, and the usual other
 * spellings in `aliases` (`warn` for `warning`).
 */
const literal = <const L extends string>(name: string, values: ReadonlyArray<L>, aliases: Readonly<Record<string, L>>) =>
  parsed(name, (text) => {
    const typed = text.trim().toLowerCase()
    return values.find((v) => v === typed) ?? aliases[typed]
  }, (text) => `Expected one of (${values.join(", ")}) but received ${text}`)

/** Whether `url` is a PostgreSQL connection URL with a host (what DATABASE_URL must be). */
export const isPostgresUrl = (url: string) => {
  try {
    const u = new URL(url)
    return (u.protocol === "postgres:" || u.protocol === "postgresql:") && u.hostname !== ""
  } catch {
    return false
  }
}

interface About {
  readonly name: string
  readonly section: SectionId
  readonly meaning: string
}

/**
 * An integer setting. `unit: "bytes"` adds the sizes people read (`1 MiB`), `zero` what 0 means;
 * `parser: "schema"` is the parser of the provisioning and platform settings (its refusal names
 * the variable in the message). The bounds of the parser are the documented ones.
 */
export const intSetting = (o: About & {
  readonly default: number
  readonly min: number
  readonly max: number
  readonly unit?: "bytes"
  readonly zero?: string
  readonly parser?: "schema"
}): IntSetting => ({
  name: o.name,
  section: o.section,
  meaning: o.meaning,
  shownDefault: o.unit === "bytes" ? `${code(o.default)} (${size(o.default)})` : code(o.default),
  range: `${code(o.min)}–${code(o.max)}${o.unit === "bytes" ? ` (${size(o.min)}–${size(o.max)})` : ""}${o.zero === undefined ? "" : `; \`0\`: ${o.zero}`}`,
  bounds: { min: o.min, max: o.max },
  fallback: { value: o.default },
  config: o.parser === "schema" ? schemaInteger(o.name, o.default, o.min, o.max) : boundedInteger(o.name, o.default, o.min, o.max)
})

/** A TCP port, 1 to 65535, written as digits. */
export const portSetting = (o: About & { readonly default: number }): IntSetting => ({
  name: o.name,
  section: o.section,
  meaning: o.meaning,
  shownDefault: code(o.default),
  range: `${code(1)}–${code(65535)}`,
  bounds: { min: 1, max: 65535 },
  fallback: { value: o.default },
  config: parsed(o.name, (text) => {
    const n = Number(text)
    return Number.isInteger(n) && n >= 1 && n <= 65535 && n.toString() === text ? n : undefined
  }, (text) => `Expected a network port value but received ${text}`).pipe(Config.withDefault(o.default))
})

/**
 * A switch: `true`/`yes`/`on`/`1` or `false`/`no`/`off`/`0` (`parser: "effect"`: Effect's own
 * boolean, which also takes `y` and `n`).
 */
export const booleanSetting = (o: About & { readonly default: boolean; readonly parser?: "effect" }): Setting<boolean> => ({
  name: o.name,
  section: o.section,
  meaning: o.meaning,
  shownDefault: code(o.default),
  range: "`true` | `false`",
  fallback: { value: o.default },
  config: (o.parser === "effect" ? Config.Boolean(o.name) : boolean(o.name)).pipe(Config.withDefault(o.default))
})

/**
 * One of `values`, in any case, with `aliases` (other spellings) accepted (`parser: "effect"`:
 * Effect's own literals, exact spelling only).
 */
export const choiceSetting = <const L extends string>(o: About & {
  readonly values: ReadonlyArray<L>
  readonly default: NoInfer<L>
  readonly aliases?: Readonly<Record<string, NoInfer<L>>>
  readonly parser?: "effect"
}): Setting<L> => ({
  name: o.name,
  section: o.section,
  meaning: o.meaning,
  shownDefault: code(o.default),
  range: o.values.map(code).join(" | "),
  fallback: { value: o.default },
  choices: o.values,
  config: (o.parser === "effect" ? Config.Literals(o.values, o.name) : literal(o.name, o.values, o.aliases ?? {})).pipe(Config.withDefault(o.default))
})

/** Any text, with a default. */
export const textSetting = (o: About & { readonly default: string }): Setting<string> => ({
  name: o.name,
  section: o.section,
  meaning: o.meaning,
  shownDefault: code(o.default),
  range: "",
  fallback: { value: o.default },
  config: Config.String(o.name).pipe(Config.withDefault(o.default))
})

/** A setting whose parser is its own (`config`); `shownDefault` and `range` say what it takes. */
export const customSetting = <A>(o: About & {
  readonly shownDefault: string
  readonly range: string
  readonly config: Config.Config<A>
}): Setting<A> => ({ name: o.name, section: o.section, meaning: o.meaning, shownDefault: o.shownDefault, range: o.range, config: o.config })

/** The parsers of a record of settings, keyed as the record is. */
export const configsOf = <const S extends Record<string, Setting<any>>>(settings: S): { readonly [K in keyof S]: S[K]["config"] } =>
  Object.fromEntries(Object.entries(settings).map(([key, s]) => [key, s.config])) as { readonly [K in keyof S]: S[K]["config"] }

/** An optional PostgreSQL URL, kept redacted; anything else is refused naming `example`. */
const postgresUrl = (name: string, example: string) =>
  Config.option(Config.String(name).pipe(refine(name, (url: string) =>
    isPostgresUrl(url)
      ? Result.succeed(Redacted.make(url))
      : Result.fail(`must be a postgres:// (or postgresql://) URL naming a host, e.g. ${example}`)
  )))

const unset = "unset"

/** The settings of `ServerConfigShape`, keyed by its fields (the URLs are completed in `ServerConfig.ts`). */
export const serverSettings = {
  // Server, URLs and the first start
  host: textSetting({ name: "HOST", section: "server", default: "127.0.0.1", meaning: "The interface to listen on (`0.0.0.0` or `::` for every interface)." }),
  port: portSetting({ name: "PORT", section: "server", default: 8080, meaning: "The port of the HTTP listener." }),
  apiUrl: customSetting({
    name: "API_URL",
    section: "server",
    shownDefault: "the server's origin",
    range: "a URL",
    meaning: "The public base URL of the versioned API (`/v1`, `/openapi.json`), as clients reach it. The server's origin is `http://HOST:PORT`; a trailing `/` is dropped.",
    config: Config.option(Config.String("API_URL"))
  }),
  dashboardUrl: customSetting({
    name: "DASHBOARD_URL",
    section: "server",
    shownDefault: "the server's origin",
    range: "a URL",
    meaning: "The public base URL of the Dashboard API and the OAuth provider.",
    config: Config.option(Config.String("DASHBOARD_URL"))
  }),
  spectrumUrl: customSetting({
    name: "SPECTRUM_URL",
    section: "server",
    shownDefault: "`https://HOST:TLS_PORT` (the server's origin when `TLS_PORT` is `0`)",
    range: "a URL",
    meaning: "The public base URL of the management API, which is served over HTTPS only.",
    config: Config.option(Config.String("SPECTRUM_URL"))
  }),
  docsUrl: customSetting({
    name: "DOCS_URL",
    section: "server",
    shownDefault: "the server's origin",
    range: "a URL",
    meaning: "The base of the `type` URI of every problem answer: `{DOCS_URL}/problems/<slug>`.",
    config: Config.option(Config.String("DOCS_URL"))
  }),
  trustProxy: booleanSetting({
    name: "TRUST_PROXY",
    section: "server",
    default: false,
    meaning: "Set it behind a TLS-terminating proxy: a request with `X-Forwarded-Proto: https` then counts as HTTPS for the management API, and `X-Forwarded-For` names the client (rate limits, logs). Leave it off when clients reach the server directly, since they could send these headers themselves."
  }),
  releaseLine: choiceSetting({
    name: "RELEASE_LINE",
    section: "server",
    values: ["stable", "beta"],
    default: "stable",
    meaning: "The release line this server runs; `/api/health` reports it."
  }),
  shutdownGraceSeconds: intSetting({
    name: "SHUTDOWN_GRACE_SECONDS",
    section: "server",
    default: 10,
    min: 0,
    max: 600,
    meaning: "On SIGINT or SIGTERM, how long the server waits for requests in flight before it closes."
  }),
  bootstrapEmail: textSetting({
    name: "BOOTSTRAP_EMAIL",
    section: "server",
    default: "admin@localhost",
    meaning: "The email of the account created on the first start (on an empty store)."
  }),
  bootstrapPassword: customSetting({
    name: "BOOTSTRAP_PASSWORD",
    section: "server",
    shownDefault: "generated",
    range: "",
    meaning: "That account's password. When unset, one is generated; either way it is printed once, in the bootstrap line of the first start.",
    config: Config.option(Config.Redacted("BOOTSTRAP_PASSWORD"))
  }),

  // Database and data directory
  dataDir: textSetting({
    name: "DATA_DIR",
    section: "storage",
    default: "./.data",
    meaning: "The data directory: the embedded database lives in `DATA_DIR/pglite`, locked by the one process that owns it through `DATA_DIR/pglite.lock` (see [operations](operations.md)). It also holds the generated `secret.key` and TLS certificate."
  }),
  databaseUrl: customSetting({
    name: "DATABASE_URL",
    section: "storage",
    shownDefault: unset,
    range: "`postgres://…` or `postgresql://…` with a host",
    meaning: "A PostgreSQL connection URL; when set, the server uses that database instead of the embedded one. Its password is never printed.",
    config: postgresUrl("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/switchboard")
  }),
  databaseStatementTimeoutMs: intSetting({
    name: "DATABASE_STATEMENT_TIMEOUT_MS",
    section: "storage",
    default: 10_000,
    min: 100,
    max: 600_000,
    meaning: "PostgreSQL: the database cancels a statement that runs longer (`statement_timeout`), and the server stops waiting 1 s later if the database does not answer at all; the request gets 504 `UPSTREAM_TIMEOUT`."
  }),
  databaseConnectTimeoutMs: intSetting({
    name: "DATABASE_CONNECT_TIMEOUT_MS",
    section: "storage",
    default: 5_000,
    min: 100,
    max: 120_000,
    meaning: "PostgreSQL: the longest wait to open a connection or to get one from the pool; past it the request gets 503 `UPSTREAM_UNAVAILABLE`."
  }),
  pgliteSharedBuffersMb: intSetting({
    name: "PGLITE_SHARED_BUFFERS_MB",
    section: "storage",
    default: 32,
    min: 1,
    max: 16_384,
    meaning: "The embedded database's buffer pool (`shared_buffers`), in MiB. It is all resident, so it sets most of the server's memory when it runs on PGlite."
  }),
  cacheDir: customSetting({
    name: "SWITCHBOARD_CACHE_DIR",
    section: "storage",
    shownDefault: "`node_modules/.cache/switchboard` (set by the CLI)",
    range: "a directory",
    meaning: "What the CLI makes once per installation and reuses on every start: its compiled bundle (rebuilt when a source changes; `SWITCHBOARD_BUNDLE=0` runs the TypeScript sources through tsx instead) and the template of a new embedded database (a new `DATA_DIR` starts as a copy of it).",
    config: Config.option(Config.String("SWITCHBOARD_CACHE_DIR"))
  }),
  databasePoolMode: choiceSetting({
    name: "DATABASE_POOL_MODE",
    section: "storage",
    values: ["session", "transaction"],
    default: "session",
    meaning: "What `DATABASE_URL` reaches: PostgreSQL itself or a session pooler (`session`), or a transaction pooler such as PgBouncer with `pool_mode = transaction` (`transaction`: no named prepared statements, and the server cancels a statement past `DATABASE_STATEMENT_TIMEOUT_MS` itself). `transaction` needs `DATABASE_LISTEN_URL`; without it the server refuses to start. See [operations](operations.md#postgresql-in-production)."
  }),
  databasePoolSize: intSetting({
    name: "DATABASE_POOL_SIZE",
    section: "storage",
    default: 10,
    min: 1,
    max: 1_000,
    meaning: "PostgreSQL: the connections one server process keeps in its pool; the process also holds one LISTEN connection. Size PostgreSQL's `max_connections` (or the pooler's) for every process: see [operations](operations.md#several-processes)."
  }),
  databaseListenUrl: customSetting({
    name: "DATABASE_LISTEN_URL",
    section: "storage",
    shownDefault: "`DATABASE_URL`",
    range: "`postgres://…` or `postgresql://…` with a host",
    meaning: "The connection the server LISTENs on (credential revocations, record changes, rate-limit sync): one long-lived connection straight to PostgreSQL, not through a transaction pooler. Its password is never printed.",
    config: postgresUrl("DATABASE_LISTEN_URL", "postgres://postgres@10.0.0.5:5432/switchboard")
  }),

  // Requests and limits
  maxBodyBytes: intSetting({
    name: "MAX_BODY_BYTES",
    section: "limits",
    default: 1024 * 1024,
    min: 1024,
    max: 64 * 1024 * 1024,
    unit: "bytes",
    meaning: "The largest request body, counted after decompression; a larger one gets 413 `PAYLOAD_TOO_LARGE`."
  }),
  maxHeaderBytes: intSetting({
    name: "MAX_HEADER_BYTES",
    section: "limits",
    default: 16 * 1024,
    min: 1024,
    max: 1024 * 1024,
    unit: "bytes",
    meaning: "The largest request head (request line and headers); a larger one gets 431 `REQUEST_HEADERS_TOO_LARGE` in the surface's error format, with `X-Request-ID`."
  }),
  requestTimeoutMs: intSetting({
    name: "REQUEST_TIMEOUT_MS",
    section: "limits",
    default: 30_000,
    min: 100,
    max: 600_000,
    meaning: "The deadline of one request: past it the caller gets 504 `REQUEST_TIMEOUT` (problem+json on `/v1`, the envelope elsewhere) with `Retry-After`, and the work is abandoned."
  }),
  idempotencyRetentionHours: intSetting({
    name: "IDEMPOTENCY_RETENTION_HOURS",
    section: "limits",
    default: 24,
    min: 1,
    max: 720,
    meaning: "How long the outcome of a request with an `Idempotency-Key` is kept and replayed."
  }),
  rateLimitQuota: intSetting({
    name: "RATE_LIMIT_QUOTA",
    section: "limits",
    default: 100,
    min: 1,
    max: 1_000_000,
    meaning: "Requests per window per credential (per client address for requests without one) on `/v1`, the event channel's upgrades (`/v1/subscribe`) included."
  }),
  rateLimitWindowSeconds: intSetting({
    name: "RATE_LIMIT_WINDOW_SECONDS",
    section: "limits",
    default: 10,
    min: 1,
    max: 3600,
    meaning: "The window `RATE_LIMIT_QUOTA` counts in."
  }),
  credentialCacheSeconds: intSetting({
    name: "CREDENTIAL_CACHE_SECONDS",
    section: "limits",
    default: 30,
    min: 0,
    max: 60,
    zero: "off",
    meaning: "How long a verified credential, and the account or project record a read returns (cached reads, [requests](api-notes/requests.md)), is served from memory. Revocations and record changes drop them at once: in the process, and across processes on PostgreSQL (through `pg_notify`)."
  }),
  requestCountsFlushSeconds: intSetting({
    name: "REQUEST_COUNTS_FLUSH_SECONDS",
    section: "limits",
    default: 10,
    min: 0,
    max: 300,
    zero: "nothing is counted",
    meaning: "How often this process adds the API requests it counted per project (versioned and management API, per hour and outcome) to the database, for the console's project overview ([console](console.md)); also once at shutdown. Several processes add up."
  }),
  serviceKeyLimit: intSetting({
    name: "SERVICE_KEY_LIMIT",
    section: "limits",
    default: 20,
    min: 1,
    max: 1000,
    meaning: "Live (unrevoked, unexpired) service keys per account."
  }),

  // Security and sessions
  secretKey: customSetting({
    name: "SECRET_KEY",
    section: "security",
    shownDefault: "generated into `DATA_DIR/secret.key`",
    range: "at least 32 characters",
    meaning: "The root of the server's derived keys (page tokens, upload signatures, encrypted TOTP seeds and signing keys). Every process of one deployment must share it: a server whose secret does not open the database's sealed signing keys stops at start with one line naming `SECRET_KEY`.",
    config: Config.option(Config.Redacted("SECRET_KEY").pipe(refine("SECRET_KEY", (v: Redacted.Redacted<string>) =>
      Redacted.value(v).length >= 32 ? Result.succeed(v) : Result.fail("SECRET_KEY must be at least 32 characters")
    )))
  }),
  sessionTtlHours: intSetting({
    name: "SESSION_TTL_HOURS",
    section: "security",
    default: 168,
    min: 1,
    max: 8760,
    meaning: "How long a Dashboard session (the `sb_session` cookie) lives after sign-in."
  }),
  signInMaxFailures: intSetting({
    name: "SIGN_IN_MAX_FAILURES",
    section: "security",
    default: 10,
    min: 1,
    max: 1000,
    meaning: "Failed sign-ins (a wrong password or TOTP code) per email before that email is locked until the window ends."
  }),
  signInWindowMinutes: intSetting({
    name: "SIGN_IN_WINDOW_MINUTES",
    section: "security",
    default: 15,
    min: 1,
    max: 1440,
    meaning: "The window those failures are counted in."
  }),
  signUpEnabled: booleanSetting({
    name: "SIGN_UP_ENABLED",
    section: "security",
    default: true,
    meaning: "Whether `POST /api/auth/sign-up/email` creates accounts."
  }),
  privacyJobEnabled: booleanSetting({
    name: "PRIVACY_JOB_ENABLED",
    section: "security",
    default: true,
    meaning: "Whether this process runs the Dashboard job: privacy requests, expired sessions, old sign-in failure windows. Safe in several processes."
  }),
  privacyJobIntervalSeconds: intSetting({
    name: "PRIVACY_JOB_INTERVAL_SECONDS",
    section: "security",
    default: 30,
    min: 1,
    max: 86_400,
    meaning: "How often that job runs."
  }),
  oauthSweepIntervalSeconds: intSetting({
    name: "OAUTH_SWEEP_INTERVAL_SECONDS",
    section: "security",
    default: 3600,
    min: 0,
    max: 86_400,
    zero: "never",
    meaning: "How often this process deletes OAuth codes and tokens that expired more than a day ago."
  }),

  // Logs
  accessLog: choiceSetting({
    name: "ACCESS_LOG",
    section: "logs",
    values: ["off", "debug", "info", "warning"],
    default: "info",
    aliases: { warn: "warning" },
    meaning: "The level of the access log: one line per request (and per event-channel upgrade) with the method, the declared route (`/v1/projects/:projectId`, `-` for none), the status, the duration in ms and the request id (the response's `X-Request-ID`). `off`: no access log, and no cost per request (as for a level below `LOG_LEVEL`). Any case; `warn` is `warning`."
  }),
  logLevel: choiceSetting({
    name: "LOG_LEVEL",
    section: "logs",
    values: ["debug", "info", "warning", "error"],
    default: "info",
    aliases: { warn: "warning", err: "error" },
    meaning: "The least severe log line written, the server's own and the access log's. Any case; `warn` and `err` are accepted too."
  }),
  logFormat: choiceSetting({
    name: "LOG_FORMAT",
    section: "logs",
    values: ["json", "pretty"],
    default: "pretty",
    meaning: "`pretty`: readable lines (`2026-11-26T09:00:00.000Z INFO GET /api/health 200 0.4ms req_…`); `json`: one JSON object a line (`{\"time\",\"level\",\"message\":\"request\",\"method\",\"path\",\"status\",\"durationMs\",\"requestId\"}`), the server's other log lines too. Any case."
  }),

  // Webhooks
  egressIps: customSetting({
    name: "EGRESS_IPS",
    section: "webhooks",
    shownDefault: "empty",
    range: "public IPv4 addresses, comma- or space-separated, no duplicates, at most 64",
    meaning: "The public IPv4 addresses webhook deliveries leave from (your NAT's), published for receivers to allowlist by `GET /projects/{id}/webhooks/egress-ips` and `GET /v1/projects/{id}/webhooks/egress-addresses`.",
    config: Config.String("EGRESS_IPS").pipe(Config.withDefault(""), refine("EGRESS_IPS", (raw: string) => {
      const ips = parseEgressIps(raw)
      return "ok" in ips ? Result.succeed(ips.ok) : Result.fail(`EGRESS_IPS must list public IPv4 addresses: ${ips.error}`)
    }))
  }),
  allowPrivateWebhookTargets: booleanSetting({
    name: "ALLOW_PRIVATE_WEBHOOK_TARGETS",
    section: "webhooks",
    default: false,
    meaning: "Let webhooks target `http://` URLs and private, loopback, link-local or reserved addresses. For local development and tests only."
  }),
  webhookDeliveryEnabled: booleanSetting({
    name: "WEBHOOK_DELIVERY_ENABLED",
    section: "webhooks",
    default: true,
    meaning: "Whether this process runs the webhook delivery engine. Safe in several processes: deliveries are claimed with `FOR UPDATE SKIP LOCKED` and leases."
  }),
  webhookPollIntervalMs: intSetting({
    name: "WEBHOOK_POLL_INTERVAL_MS",
    section: "webhooks",
    default: 500,
    min: 10,
    max: 60_000,
    meaning: "How often an idle engine looks for new events and due deliveries."
  }),
  webhookRetryBaseMs: intSetting({
    name: "WEBHOOK_RETRY_BASE_MS",
    section: "webhooks",
    default: 200,
    min: 1,
    max: 60_000,
    meaning: "The delay after the first failed attempt; each further failure multiplies it by 5, up to `WEBHOOK_RETRY_MAX_MS`, with ±50 % jitter."
  }),
  webhookRetryMaxMs: intSetting({
    name: "WEBHOOK_RETRY_MAX_MS",
    section: "webhooks",
    default: 10_000,
    min: 1,
    max: 3_600_000,
    meaning: "The cap of one retry delay, before its jitter."
  }),
  webhookMaxAttempts: intSetting({
    name: "WEBHOOK_MAX_ATTEMPTS",
    section: "webhooks",
    default: 6,
    min: 1,
    max: 50,
    meaning: "Attempts of the fast schedule; the long tail follows."
  }),
  webhookRetryHorizonHours: intSetting({
    name: "WEBHOOK_RETRY_HORIZON_HOURS",
    section: "webhooks",
    default: 24,
    min: 0,
    max: 720,
    zero: "dead-letter right after the fast schedule",
    meaning: "How long the long tail keeps retrying after the fast schedule."
  }),
  webhookTimeoutSeconds: intSetting({
    name: "WEBHOOK_TIMEOUT_SECONDS",
    section: "webhooks",
    default: 30,
    min: 1,
    max: 300,
    meaning: "The timeout of one attempt. An attempt whose process died is retried once its lease (the timeout + 5 s) runs out."
  }),
  webhookConcurrency: intSetting({
    name: "WEBHOOK_CONCURRENCY",
    section: "webhooks",
    default: 16,
    min: 1,
    max: 256,
    meaning: "Deliveries one process attempts at once."
  }),
  webhookDestinationConcurrency: intSetting({
    name: "WEBHOOK_DESTINATION_CONCURRENCY",
    section: "webhooks",
    default: 4,
    min: 1,
    max: 256,
    meaning: "Deliveries of one destination in flight at once, across all processes: a slow or dead receiver never takes more, so other destinations keep being served."
  }),

  // Event channel and ingress
  channelHeartbeatMs: intSetting({
    name: "CHANNEL_HEARTBEAT_MS",
    section: "channel",
    default: 15_000,
    min: 100,
    max: 300_000,
    meaning: "The heartbeat interval announced in `ready` and kept by the server; a session counts as present for the reply relay while it is refreshed within 3 heartbeats."
  }),
  channelMaxFrameBytes: intSetting({
    name: "CHANNEL_MAX_FRAME_BYTES",
    section: "channel",
    default: 1024 * 1024,
    min: 1024,
    max: 16 * 1024 * 1024,
    unit: "bytes",
    meaning: "The largest client frame; a bigger one closes the session with 1009."
  }),
  channelSessionBufferBytes: intSetting({
    name: "CHANNEL_SESSION_BUFFER_BYTES",
    section: "channel",
    default: 8 * 1024 * 1024,
    min: 64 * 1024,
    max: 256 * 1024 * 1024,
    unit: "bytes",
    meaning: "What one session may have queued (bytes unsent in its socket plus the buffered events due to it), checked each time events are queued for it: past it the session is closed at once with 1013 `slow_consumer`, retryable. Keep it at a few times the largest event frame (an ingress event's is about 4/3 × `INGRESS_MAX_BYTES`). Reply frames being recorded are held to it too: past it the server reads nothing more from that session until they are recorded."
  }),
  channelProjectBufferBytes: intSetting({
    name: "CHANNEL_PROJECT_BUFFER_BYTES",
    section: "channel",
    default: 16 * 1024 * 1024,
    min: 64 * 1024,
    max: 1024 * 1024 * 1024,
    unit: "bytes",
    meaning: "The memory one project's buffer of events may take in a process (and at most 5000 events). The buffer keeps only events not yet sent to a session it serves; past the limit the oldest go, and a session they were due to is closed with 1013 `slow_consumer` (it resumes from the database)."
  }),
  channelInitTimeoutMs: intSetting({
    name: "CHANNEL_INIT_TIMEOUT_MS",
    section: "channel",
    default: 10_000,
    min: 100,
    max: 120_000,
    meaning: "The time a client has to send `init` after connecting, else the session is closed with 4408."
  }),
  channelTokenTtlSeconds: intSetting({
    name: "CHANNEL_TOKEN_TTL_SECONDS",
    section: "channel",
    default: 900,
    min: 1,
    max: 3600,
    meaning: "The lifetime of a stream token from `POST /projects/{id}/fusor/token`; a session is closed with 4401 when its token expires."
  }),
  eventRetentionHours: intSetting({
    name: "EVENT_RETENTION_HOURS",
    section: "channel",
    default: 168,
    min: 1,
    max: 87_600,
    meaning: "Events older than this that were already dispatched to webhooks are deleted (every minute, 1000 at a time); a channel cursor from before them is refused with 4410."
  }),
  ingressMaxBytes: intSetting({
    name: "INGRESS_MAX_BYTES",
    section: "channel",
    default: 1024 * 1024,
    min: 1024,
    max: 16 * 1024 * 1024,
    unit: "bytes",
    meaning: "The largest request an ingress URL records, request line and headers included; a larger one gets 413."
  }),
  ingressRateLimitPerMinute: intSetting({
    name: "INGRESS_RATE_LIMIT_PER_MINUTE",
    section: "channel",
    default: 600,
    min: 1,
    max: 1_000_000,
    meaning: "Requests one ingress endpoint accepts per minute; more get 429 with `Retry-After`."
  }),
  ingressReplyWaitMs: intSetting({
    name: "INGRESS_REPLY_WAIT_MS",
    section: "channel",
    default: 10_000,
    min: 0,
    max: 60_000,
    zero: "never wait",
    meaning: "How long an ingress request waits for the reply of a `fusor.v1.json` session when one of the project's is connected."
  }),

  // Billing
  plansFile: customSetting({
    name: "PLANS_FILE",
    section: "billing",
    shownDefault: "the sample catalog, [`packages/http-adapter/plans/sample.json`](../packages/http-adapter/plans/sample.json)",
    range: "a JSON file",
    meaning: "The billing plan catalog (JSON: category → plans; the sample shows the format). It is checked at start: schema and integer bounds, category slugs, exactly one default plan per category (none in `organization`, the plans sold to organizations themselves), plan codes unique across the catalog. An invalid file stops the server with a message naming the file and the problem.",
    config: Config.option(Config.String("PLANS_FILE"))
  }),
  billingSchedulerEnabled: booleanSetting({
    name: "BILLING_SCHEDULER_ENABLED",
    section: "billing",
    default: true,
    meaning: "Whether this process runs the billing scheduler (period ends, organization subscription renewals, usage thresholds, `on_payment` timeouts, invoice collection) and starts new billing operations right after their request. Safe in several processes; when off, operations wait for a process that runs it."
  }),
  billingTickSeconds: intSetting({
    name: "BILLING_TICK_SECONDS",
    section: "billing",
    default: 30,
    min: 1,
    max: 3600,
    meaning: "How often the billing scheduler runs."
  }),

  // Organization SSO and the device flow
  allowPrivateSsoProviders: booleanSetting({
    name: "ALLOW_PRIVATE_SSO_PROVIDERS",
    section: "sso",
    default: false,
    meaning: "Let organizations' identity providers be `http://` URLs and private or loopback addresses. For local testing only."
  }),
  ssoTimeoutMs: intSetting({
    name: "SSO_TIMEOUT_MS",
    section: "sso",
    default: 10_000,
    min: 100,
    max: 60_000,
    meaning: "The deadline of each call to an identity provider or to DNS; past it the caller gets 504 `UPSTREAM_TIMEOUT`."
  }),
  ssoReturnToOrigins: customSetting({
    name: "SSO_RETURN_TO_ORIGINS",
    section: "sso",
    shownDefault: "none",
    range: "origins, comma-separated",
    meaning: "Origins besides the Dashboard's that an SSO sign-in may return to (`returnTo`).",
    config: Config.String("SSO_RETURN_TO_ORIGINS").pipe(
      Config.withDefault(""),
      Config.map((s) => s.split(",").map((o) => o.trim()).filter((o) => o.length > 0))
    )
  }),
  deviceClientId: customSetting({
    name: "DEVICE_CLIENT_ID",
    section: "sso",
    shownDefault: "none",
    range: "an OAuth app id (`sb_app_…`)",
    meaning: "The OAuth app, usually a public one, that `/v1/auth/device/code` and `/v1/auth/device/token` serve when the request names no `client_id`.",
    config: Config.option(Config.String("DEVICE_CLIENT_ID"))
  }),
  deviceCodeTtlSeconds: intSetting({
    name: "DEVICE_CODE_TTL_SECONDS",
    section: "sso",
    default: 600,
    min: 10,
    max: 3600,
    meaning: "How long a device code and its user code live."
  }),
  devicePollIntervalSeconds: intSetting({
    name: "DEVICE_POLL_INTERVAL_SECONDS",
    section: "sso",
    default: 5,
    min: 1,
    max: 60,
    meaning: "The polling interval a device flow starts with; each `slow_down` answer adds 5 s."
  }),

  // TLS and the management API
  tlsCert: customSetting({
    name: "TLS_CERT",
    section: "management",
    shownDefault: unset,
    range: "a PEM file",
    meaning: "The certificate (chain) of the HTTPS listener; set it together with `TLS_KEY`, or neither. Neither: a self-signed `localhost` certificate is generated into `DATA_DIR/tls/` (key mode 0600), reused on later starts and renewed when it expires; its path and SHA-256 fingerprint are printed at start.",
    config: Config.option(Config.String("TLS_CERT"))
  }),
  tlsKey: customSetting({
    name: "TLS_KEY",
    section: "management",
    shownDefault: unset,
    range: "a PEM file",
    meaning: "The private key of `TLS_CERT`.",
    config: Config.option(Config.String("TLS_KEY"))
  }),
  tlsPort: intSetting({
    name: "TLS_PORT",
    section: "management",
    default: 8443,
    min: 0,
    max: 65535,
    zero: "any free port",
    meaning: "The port of the HTTPS listener."
  }),
  managementRateLimitQuota: intSetting({
    name: "MANAGEMENT_RATE_LIMIT",
    section: "management",
    default: 5,
    min: 1,
    max: 1_000_000,
    meaning: "Management API requests per project per window."
  }),
  managementRateLimitWindowSeconds: intSetting({
    name: "MANAGEMENT_RATE_LIMIT_WINDOW_SECONDS",
    section: "management",
    default: 1,
    min: 1,
    max: 3600,
    meaning: "The window `MANAGEMENT_RATE_LIMIT` counts in."
  })
} as const

/** End users per project on the management API (`server/ManagementAdapters.ts`). */
export const managementUserLimitSetting = intSetting({
  name: "MANAGEMENT_USER_LIMIT",
  section: "management",
  default: 1000,
  min: 1,
  max: 1_000_000,
  meaning: "End users per project on the management API."
})

/** Live API keys per project (`server/ProjectApiKeysAdapters.ts`). */
export const projectApiKeyLimitSetting = intSetting({
  name: "PROJECT_API_KEY_LIMIT",
  section: "limits",
  default: 50,
  min: 1,
  max: 1000,
  meaning: "Live API keys per project."
})

/** How long a deleted project stays `closing` (`server/ProjectsAdapters.ts`). */
export const projectClosureSecondsSetting = intSetting({
  name: "PROJECT_CLOSURE_SECONDS",
  section: "limits",
  default: 60,
  min: 0,
  max: 86_400,
  meaning: "How long a deleted project stays `closing` before it is `deleted`."
})

const simulatedProviderDelayMs = intSetting({
  name: "SIMULATED_PROVIDER_DELAY_MS",
  section: "simulated",
  default: 0,
  min: 0,
  max: 600_000,
  parser: "schema",
  meaning: "How long every call to a simulated provider takes."
})

const simulatedProviderFail = choiceSetting({
  name: "SIMULATED_PROVIDER_FAIL",
  section: "simulated",
  values: ["never", "transient", "permanent"],
  default: "never",
  parser: "effect",
  meaning: "Make every simulated provider call fail: `transient` (the operation is retried) or `permanent` (the operation fails)."
})

/** The provisioning worker's settings and the simulated providers' (`server/PlatformsAdapters.ts`). */
export const platformSettings = {
  enabled: booleanSetting({
    name: "PROVISIONING_WORKER_ENABLED",
    section: "platforms",
    default: true,
    parser: "effect",
    meaning: "Whether this process runs the provisioning operation worker."
  }),
  pollIntervalMs: intSetting({
    name: "PROVISIONING_POLL_INTERVAL_MS",
    section: "platforms",
    default: 500,
    min: 5,
    max: 60_000,
    parser: "schema",
    meaning: "How long the worker sleeps between claims when there is no work."
  }),
  leaseMs: intSetting({
    name: "PROVISIONING_LEASE_MS",
    section: "platforms",
    default: 60_000,
    min: 100,
    max: 3_600_000,
    parser: "schema",
    meaning: "How long a claim holds an operation; the claims of a process that was killed are free again after it."
  }),
  waitMs: intSetting({
    name: "PROVISIONING_WAIT_MS",
    section: "platforms",
    default: 30_000,
    min: 10,
    max: 86_400_000,
    parser: "schema",
    meaning: "The retry interval of an operation waiting for inventory or DNS."
  }),
  retryBaseMs: intSetting({
    name: "PROVISIONING_RETRY_BASE_MS",
    section: "platforms",
    default: 1_000,
    min: 1,
    max: 3_600_000,
    parser: "schema",
    meaning: "The first retry after a transient provider failure; it doubles with each further failure, up to 5 minutes."
  }),
  delayMs: simulatedProviderDelayMs,
  fail: simulatedProviderFail,
  numbersPerAreaCode: intSetting({
    name: "SIMULATED_NUMBERS_PER_AREA_CODE",
    section: "simulated",
    default: 100,
    min: 0,
    max: 100,
    zero: "an empty inventory (purchases keep waiting)",
    parser: "schema",
    meaning: "Phone numbers the simulated number provider has per area code."
  }),
  emailVerifyAfterChecks: intSetting({
    name: "SIMULATED_EMAIL_VERIFY_AFTER_CHECKS",
    section: "simulated",
    default: 1,
    min: 0,
    max: 1000,
    parser: "schema",
    meaning: "DNS checks before a simulated email domain verifies."
  }),
  campaignCapacity: intSetting({
    name: "SIMULATED_CAMPAIGN_CAPACITY",
    section: "simulated",
    default: 2,
    min: 0,
    max: 1_000_000,
    parser: "schema",
    meaning: "Numbers one simulated 10DLC campaign takes."
  }),
  whatsappSharedLines: intSetting({
    name: "SIMULATED_WHATSAPP_SHARED_LINES",
    section: "simulated",
    default: 3,
    min: 0,
    max: 100,
    zero: "the pool is exhausted",
    parser: "schema",
    meaning: "Lines in the simulated shared WhatsApp pool."
  }),
  whatsappDedicatedLines: intSetting({
    name: "SIMULATED_WHATSAPP_DEDICATED_LINES",
    section: "simulated",
    default: 100,
    min: 0,
    max: 100,
    zero: "provisions wait",
    parser: "schema",
    meaning: "Dedicated WhatsApp lines the simulated provider has available."
  })
} as const

/** The simulated iMessage pool's settings and the shared-mode seat cap (`server/ImessageAdapters.ts`). */
export const imessageSettings = {
  delayMs: simulatedProviderDelayMs,
  fail: simulatedProviderFail,
  dedicatedCapacity: intSetting({
    name: "SIMULATED_IMESSAGE_DEDICATED_CAPACITY",
    section: "simulated",
    default: 10,
    min: 0,
    max: 100,
    zero: "provisioning waits",
    parser: "schema",
    meaning: "Dedicated iMessage lines free at start."
  }),
  sharedLines: intSetting({
    name: "SIMULATED_IMESSAGE_SHARED_LINES",
    section: "simulated",
    default: 1,
    min: 0,
    max: 100,
    parser: "schema",
    meaning: "Shared iMessage lines at start."
  }),
  seatsPerSharedLine: intSetting({
    name: "SIMULATED_IMESSAGE_SEATS_PER_SHARED_LINE",
    section: "simulated",
    default: 50,
    min: 0,
    max: 1_000_000,
    parser: "schema",
    meaning: "End users one shared iMessage line takes."
  }),
  maxSharedLines: intSetting({
    name: "SIMULATED_IMESSAGE_MAX_SHARED_LINES",
    section: "simulated",
    default: 100,
    min: 0,
    max: 100,
    parser: "schema",
    meaning: "How far auto-scale may grow the shared iMessage pool."
  }),
  defaultSharedSeats: intSetting({
    name: "IMESSAGE_DEFAULT_SHARED_SEATS",
    section: "platforms",
    default: 25,
    min: 0,
    max: 1_000_000_000,
    parser: "schema",
    meaning: "The iMessage seat cap of a project whose plans do not set `imessage_shared_lines.max_user_assignments`."
  })
} as const

/** WhatsApp's entitlements (the same for every project) and Embedded Signup (`server/WhatsappAdapters.ts`). */
export const whatsappSettings = {
  mode: choiceSetting({
    name: "WHATSAPP_MODE",
    section: "platforms",
    values: ["shared", "dedicated"],
    default: "shared",
    parser: "effect",
    meaning: "`shared`: end users get seats on pooled lines; `dedicated`: shared assignments are refused."
  }),
  maxUserAssignments: intSetting({
    name: "WHATSAPP_MAX_USER_ASSIGNMENTS",
    section: "platforms",
    default: 100,
    min: 0,
    max: 1_000_000,
    parser: "schema",
    meaning: "Shared-line WhatsApp seats per project."
  }),
  dedicatedLines: booleanSetting({
    name: "WHATSAPP_DEDICATED_LINES",
    section: "platforms",
    default: true,
    parser: "effect",
    meaning: "Whether projects may buy dedicated WhatsApp lines."
  }),
  requirePaymentMethod: booleanSetting({
    name: "WHATSAPP_REQUIRE_PAYMENT_METHOD",
    section: "platforms",
    default: true,
    parser: "effect",
    meaning: "Whether connecting a WhatsApp sender and buying lines need a card on the organization's file."
  }),
  signupConfigId: textSetting({
    name: "WHATSAPP_SIGNUP_CONFIG_ID",
    section: "platforms",
    default: "switchboard-embedded-signup",
    meaning: "The configuration id of Meta's Embedded Signup popup."
  }),
  graphVersion: textSetting({
    name: "WHATSAPP_GRAPH_VERSION",
    section: "platforms",
    default: "v21.0",
    meaning: "The Graph API version the Embedded Signup popup uses."
  })
} as const

/** An optional text: unset (or empty) is none. */
const optionalText = (o: About & { readonly range?: string }): Setting<Option.Option<string>> =>
  customSetting({
    ...o,
    shownDefault: unset,
    range: o.range ?? "",
    config: Config.option(Config.String(o.name)).pipe(Config.map(Option.filter((v) => v.trim() !== "")))
  })

/** An optional absolute `http:`/`https:` URL. */
const optionalUrl = (o: About): Setting<Option.Option<string>> =>
  customSetting({
    ...o,
    shownDefault: unset,
    range: "an `http://` or `https://` URL",
    config: Config.option(parsed(o.name, (text) => {
      if (text.trim() === "") return undefined
      try {
        const url = new URL(text)
        return url.protocol === "http:" || url.protocol === "https:" ? text : undefined
      } catch {
        return undefined
      }
    }, (text) => `Expected an http:// or https:// URL but received ${text}`))
  })

/**
 * Observability (server/Observability.ts): OpenTelemetry's standard variables, as far as the server
 * honours them, and the Prometheus listener.
 */
export const observabilitySettings = {
  otlpEndpoint: optionalUrl({
    name: "OTEL_EXPORTER_OTLP_ENDPOINT",
    section: "observability",
    meaning: "The OTLP/HTTP collector: traces, metrics and logs go to `/v1/traces`, `/v1/metrics` and `/v1/logs` below it. Unset (and no per-signal endpoint): nothing is exported and no tracer is installed."
  }),
  otlpTracesEndpoint: optionalUrl({
    name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    section: "observability",
    meaning: "The full URL traces are posted to, instead of the one below `OTEL_EXPORTER_OTLP_ENDPOINT`."
  }),
  otlpMetricsEndpoint: optionalUrl({
    name: "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    section: "observability",
    meaning: "The full URL metrics are posted to, instead of the one below `OTEL_EXPORTER_OTLP_ENDPOINT`."
  }),
  otlpLogsEndpoint: optionalUrl({
    name: "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
    section: "observability",
    meaning: "The full URL log lines are posted to, instead of the one below `OTEL_EXPORTER_OTLP_ENDPOINT`."
  }),
  otlpProtocol: choiceSetting({
    name: "OTEL_EXPORTER_OTLP_PROTOCOL",
    section: "observability",
    values: ["http/json", "http/protobuf"],
    default: "http/json",
    meaning: "The OTLP/HTTP encoding (gRPC is not offered). JSON by default, unlike the OpenTelemetry SDKs: with Effect's encoders a span costs about a sixth of its protobuf encoding, and collectors take both."
  }),
  otlpHeaders: optionalText({
    name: "OTEL_EXPORTER_OTLP_HEADERS",
    section: "observability",
    range: "`name=value,name=value` (values URL-encoded)",
    meaning: "Headers sent with every export, e.g. a vendor's API key."
  }),
  serviceName: textSetting({
    name: "OTEL_SERVICE_NAME",
    section: "observability",
    default: "switchboard",
    meaning: "The `service.name` resource attribute."
  }),
  resourceAttributes: optionalText({
    name: "OTEL_RESOURCE_ATTRIBUTES",
    section: "observability",
    range: "`key=value,key=value` (values URL-encoded)",
    meaning: "More resource attributes (`deployment.environment=prod,service.instance.id=a1`)."
  }),
  sdkDisabled: booleanSetting({
    name: "OTEL_SDK_DISABLED",
    section: "observability",
    default: false,
    meaning: "`true`: export nothing, whatever the endpoints say."
  }),
  tracesExporter: choiceSetting({
    name: "OTEL_TRACES_EXPORTER",
    section: "observability",
    values: ["otlp", "none"],
    default: "otlp",
    meaning: "Whether traces are exported over OTLP while an endpoint is set (`none`: not)."
  }),
  metricsExporter: choiceSetting({
    name: "OTEL_METRICS_EXPORTER",
    section: "observability",
    values: ["otlp", "none"],
    default: "otlp",
    meaning: "Whether metrics are exported over OTLP while an endpoint is set (`none`: not)."
  }),
  logsExporter: choiceSetting({
    name: "OTEL_LOGS_EXPORTER",
    section: "observability",
    values: ["otlp", "none"],
    default: "otlp",
    meaning: "Whether the server's log lines are exported over OTLP while an endpoint is set (`none`: not)."
  }),
  tracesSampler: choiceSetting({
    name: "OTEL_TRACES_SAMPLER",
    section: "observability",
    values: ["parentbased_always_on", "parentbased_traceidratio", "always_on", "traceidratio", "parentbased_always_off", "always_off"],
    default: "parentbased_always_on",
    meaning: "Which traces are recorded: `traceidratio` keeps the share `OTEL_TRACES_SAMPLER_ARG` of new traces; `parentbased_…` follows an incoming `traceparent`'s sampled flag."
  }),
  tracesSamplerArg: customSetting({
    name: "OTEL_TRACES_SAMPLER_ARG",
    section: "observability",
    shownDefault: code(1),
    range: "`0`–`1`",
    meaning: "The ratio of the `…traceidratio` samplers.",
    config: parsed("OTEL_TRACES_SAMPLER_ARG", (text) => {
      const n = Number(text)
      return text.trim() !== "" && Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined
    }, (text) => `Expected a number from 0 to 1 but received ${text}`).pipe(Config.withDefault(1))
  }),
  tracesExportDelayMs: intSetting({
    name: "OTEL_BSP_SCHEDULE_DELAY",
    section: "observability",
    default: 5000,
    min: 10,
    max: 3_600_000,
    meaning: "Milliseconds between two exports of finished spans."
  }),
  metricsExportIntervalMs: intSetting({
    name: "OTEL_METRIC_EXPORT_INTERVAL",
    section: "observability",
    default: 60_000,
    min: 100,
    max: 3_600_000,
    meaning: "Milliseconds between two exports of the metrics."
  }),
  metricsPort: intSetting({
    name: "METRICS_PORT",
    section: "observability",
    default: 0,
    min: 0,
    max: 65535,
    zero: "no Prometheus listener",
    meaning: "The port of a listener of its own answering `GET /metrics` in the Prometheus text format (never on `PORT`)."
  }),
  metricsHost: textSetting({
    name: "METRICS_HOST",
    section: "observability",
    default: "127.0.0.1",
    meaning: "The interface of the Prometheus listener."
  })
} as const

/**
 * Every setting the server reads, each once (a setting two adapters share is listed once), in the
 * order of its section and then of its declaration.
 */
export const everySetting: ReadonlyArray<Setting<unknown>> = (() => {
  const all = [
    ...Object.values(serverSettings),
    managementUserLimitSetting,
    projectApiKeyLimitSetting,
    projectClosureSecondsSetting,
    ...Object.values(platformSettings),
    ...Object.values(imessageSettings),
    ...Object.values(whatsappSettings),
    ...Object.values(observabilitySettings)
  ] as ReadonlyArray<Setting<unknown>>
  const unique = [...new Set(all)]
  const order = sections.map((s) => s.id as SectionId)
  return unique.sort((a, b) => order.indexOf(a.section) - order.indexOf(b.section))
})()
