/**
 * Server configuration (DESIGN.md §4): only environment variables, read once, each with a default
 * that works for a local run. The CLI maps its flags onto the same names.
 *
 * Why this file is long: every variable is here with its default, its parser and its message, so
 * the one list an operator reads is the one the server reads.
 */
import { parseEgressIps } from "@switchboard/core/events"
import { Config, Context, Effect, Layer, Option, Redacted, Result, Schema, SchemaIssue } from "effect"

export interface ServerConfigShape {
  readonly host: string
  readonly port: number
  readonly dataDir: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly apiUrl: string
  readonly dashboardUrl: string
  readonly spectrumUrl: string
  readonly docsUrl: string
  readonly bootstrapEmail: string
  readonly bootstrapPassword: Option.Option<Redacted.Redacted<string>>
  readonly maxBodyBytes: number
  readonly idempotencyRetentionHours: number
  readonly serviceKeyLimit: number
  readonly shutdownGraceSeconds: number
  readonly credentialCacheSeconds: number
  /** How often this process deletes OAuth codes and tokens that expired a day ago (OAUTH_SWEEP_INTERVAL_SECONDS; 0: never). */
  readonly oauthSweepIntervalSeconds: number
  readonly secretKey: Option.Option<Redacted.Redacted<string>>
  readonly rateLimitQuota: number
  /** Event channel: heartbeat interval announced in `ready` (CHANNEL_HEARTBEAT_MS). */
  readonly channelHeartbeatMs: number
  /** Largest client frame; bigger ones close the session with 1009 (CHANNEL_MAX_FRAME_BYTES). */
  readonly channelMaxFrameBytes: number
  /**
   * Bytes a session may have queued (unsent in its socket plus buffered events due to it) before it
   * is closed with 1013, checked as events are queued (CHANNEL_SESSION_BUFFER_BYTES).
   */
  readonly channelSessionBufferBytes: number
  /** Bytes one project's buffer of events may take in a process (CHANNEL_PROJECT_BUFFER_BYTES). */
  readonly channelProjectBufferBytes: number
  /** Time to send `init` after connecting (CHANNEL_INIT_TIMEOUT_MS). */
  readonly channelInitTimeoutMs: number
  /** Lifetime of a stream token (CHANNEL_TOKEN_TTL_SECONDS). */
  readonly channelTokenTtlSeconds: number
  /** Events older than this (and already dispatched to webhooks) are dropped (EVENT_RETENTION_HOURS). */
  readonly eventRetentionHours: number
  /** Largest request an ingress URL records, headers included (INGRESS_MAX_BYTES). */
  readonly ingressMaxBytes: number
  /** Requests per minute one ingress endpoint accepts (INGRESS_RATE_LIMIT_PER_MINUTE). */
  readonly ingressRateLimitPerMinute: number
  /** How long an ingress request waits for a session's reply (INGRESS_REPLY_WAIT_MS; 0: never). */
  readonly ingressReplyWaitMs: number
  readonly rateLimitWindowSeconds: number
  /** Webhook egress addresses (EGRESS_IPS): public IPv4 addresses receivers allowlist. */
  readonly egressIps: ReadonlyArray<string>
  /** Webhooks may target http:// URLs and private or loopback addresses (local development, tests). */
  readonly allowPrivateWebhookTargets: boolean
  /** Whether this process runs the webhook delivery engine (several processes may). */
  readonly webhookDeliveryEnabled: boolean
  /** How often an idle delivery engine looks for new events and due deliveries. */
  readonly webhookPollIntervalMs: number
  /** First retry delay; each next one is 5× longer, capped at `webhookRetryMaxMs`, ±50 % jitter (API.md §4). */
  readonly webhookRetryBaseMs: number
  readonly webhookRetryMaxMs: number
  /** Attempts before a delivery is dead-lettered (API.md §4: 6). */
  readonly webhookMaxAttempts: number
  /** How long the long tail keeps retrying after the fast attempts (WEBHOOK_RETRY_HORIZON_HOURS; 0: none). */
  readonly webhookRetryHorizonHours: number
  /** Per-attempt timeout (API.md §4: 30 s). */
  readonly webhookTimeoutSeconds: number
  /** Deliveries attempted at once by one process. */
  readonly webhookConcurrency: number
  /** Deliveries of one destination in flight at once, across processes (WEBHOOK_DESTINATION_CONCURRENCY). */
  readonly webhookDestinationConcurrency: number
  /** PEM files of the management API's TLS listener (TLS_CERT, TLS_KEY); none: a generated localhost certificate. */
  readonly tlsCert: Option.Option<string>
  readonly tlsKey: Option.Option<string>
  /** Port of the HTTPS listener (TLS_PORT, default 8443; 0 picks a free one). */
  readonly tlsPort: number
  /** Behind a TLS-terminating proxy: honour `X-Forwarded-Proto` and `X-Forwarded-For` (TRUST_PROXY). */
  readonly trustProxy: boolean
  /** Management API requests per project per window (API.md §0: 5 per second). */
  readonly managementRateLimitQuota: number
  readonly managementRateLimitWindowSeconds: number
  /** The release line this server runs (RELEASE_LINE: stable, the default, or beta; API.md §0). */
  readonly releaseLine: "stable" | "beta"
  /** How long a Dashboard session lives after sign-in (SESSION_TTL_HOURS, default 7 days). */
  readonly sessionTtlHours: number
  /** Failed sign-ins per email allowed in one window before it is locked until the window ends. */
  readonly signInMaxFailures: number
  readonly signInWindowMinutes: number
  /** Whether `POST /api/auth/sign-up/email` creates accounts (SIGN_UP_ENABLED). */
  readonly signUpEnabled: boolean
  /** Whether this process runs the privacy-request job (PRIVACY_JOB_ENABLED), and how often. */
  readonly privacyJobEnabled: boolean
  readonly privacyJobIntervalSeconds: number
  /** The billing plan catalog (PLANS_FILE); none: the sample catalog that ships with the server. */
  readonly plansFile: Option.Option<string>
  /** Whether this process runs the billing scheduler (BILLING_SCHEDULER_ENABLED), and how often. */
  readonly billingSchedulerEnabled: boolean
  readonly billingTickSeconds: number
  /** Overall deadline of one request (REQUEST_TIMEOUT_MS): past it the client gets 504 REQUEST_TIMEOUT. */
  readonly requestTimeoutMs: number
  /** Longest one SQL statement may run (DATABASE_STATEMENT_TIMEOUT_MS) before the database cancels it. */
  readonly databaseStatementTimeoutMs: number
  /** Longest wait to open a database connection or get one from the pool (DATABASE_CONNECT_TIMEOUT_MS). */
  readonly databaseConnectTimeoutMs: number
  /** Largest request head (request line and headers) accepted (MAX_HEADER_BYTES); larger → 431. */
  readonly maxHeaderBytes: number
  /**
   * Where the CLI keeps what it makes once for every start (SWITCHBOARD_CACHE_DIR; the CLI sets it
   * to node_modules/.cache/switchboard): its compiled bundle and the embedded database's template.
   */
  readonly cacheDir: Option.Option<string>
  /** PostgreSQL `shared_buffers` of the embedded database, in MB (PGLITE_SHARED_BUFFERS_MB). */
  readonly pgliteSharedBuffersMb: number
  /** Organization SSO: identity providers may be http:// or private/loopback addresses (ALLOW_PRIVATE_SSO_PROVIDERS; local testing). */
  readonly allowPrivateSsoProviders: boolean
  /** Organization SSO: the deadline of each call to an identity provider or DNS (SSO_TIMEOUT_MS). */
  readonly ssoTimeoutMs: number
  /** Organization SSO: origins besides the Dashboard's that `returnTo` may name (SSO_RETURN_TO_ORIGINS, comma-separated). */
  readonly ssoReturnToOrigins: ReadonlyArray<string>
  /** Device flow (RFC 8628): the OAuth app `/v1/auth/device/*` serves when the request names none (DEVICE_CLIENT_ID). */
  readonly deviceClientId: Option.Option<string>
  /** Device flow: how long a device code lives, in seconds (DEVICE_CODE_TTL_SECONDS). */
  readonly deviceCodeTtlSeconds: number
  /** Device flow: the polling interval first given out, in seconds (DEVICE_POLL_INTERVAL_SECONDS). */
  readonly devicePollIntervalSeconds: number
  /** One line per request on stdout, at this level (ACCESS_LOG: off | debug | info | warning). */
  readonly accessLog: "off" | AccessLogLevel
  /** The least severe log line written, access lines included (LOG_LEVEL: debug | info | warning (or warn) | error, any case). */
  readonly logLevel: LogLevelSetting
  /** How log lines are written (LOG_FORMAT: json | pretty). */
  readonly logFormat: "json" | "pretty"
}

/** The levels the access log may be written at, and the threshold of every log line (LOG_LEVEL). */
export type AccessLogLevel = "debug" | "info" | "warning"
export type LogLevelSetting = "debug" | "info" | "warning" | "error"

export class ServerConfig extends Context.Service<ServerConfig, ServerConfigShape>()("http/ServerConfig") {}

const trimSlash = (s: string) => s.replace(/\/+$/, "")

/** Whether `url` is a PostgreSQL connection URL with a host (what DATABASE_URL must be). */
export const isPostgresUrl = (url: string) => {
  try {
    const u = new URL(url)
    return (u.protocol === "postgres:" || u.protocol === "postgresql:") && u.hostname !== ""
  } catch {
    return false
  }
}

/**
 * A setting that failed: a schema issue at the variable's name (as `Config.schema` reports its own),
 * so the CLI names the variable and says what is wrong.
 */
const invalid = (name: string, message: string) =>
  new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.Pointer([name], new SchemaIssue.InvalidValue({ message }))))

/** One variable read as text and parsed by `parse` (`undefined`: not valid, `message` says why). */
const setting = <A>(name: string, parse: (text: string) => A | undefined, message: (text: string) => string): Config.Config<A> =>
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
  setting(name, (text) => {
    const n = Number(text)
    return Number.isInteger(n) ? n : undefined
  }, (text) => `Expected an integer value but received ${text}`)

/** A TCP port, 1 to 65535, written as digits. */
const port = (name: string) =>
  setting(name, (text) => {
    const n = Number(text)
    return Number.isInteger(n) && n >= 1 && n <= 65535 && n.toString() === text ? n : undefined
  }, (text) => `Expected a network port value but received ${text}`)

const booleans: Record<string, boolean> = { true: true, yes: true, on: true, 1: true, false: false, no: false, off: false, 0: false }

/** true|yes|on|1 or false|no|off|0. */
const boolean = (name: string) =>
  setting(name, (text) => booleans[text], (text) => `Expected a boolean value but received ${text}`)

/**
 * One of `values`, as people type them: any case, surrounding spaces ignored, and the usual other
 * spellings in `aliases` (`warn` for `warning`).
 */
const literal = <const L extends string>(name: string, values: ReadonlyArray<L>, aliases: Readonly<Record<string, L>> = {}) =>
  setting(name, (text) => {
    const typed = text.trim().toLowerCase()
    return values.find((v) => v === typed) ?? aliases[typed]
  }, (text) => `Expected one of (${values.join(", ")}) but received ${text}`)

/** The spellings of a log level people use for ours (`WARN`, `Warning`, `err`). */
const levelAliases = { warn: "warning", err: "error" } as const

/** An integer setting with a default and inclusive bounds; out of range, the server refuses to start. */
export const boundedInteger = (name: string, fallback: number, min: number, max: number) =>
  integer(name).pipe(
    Config.withDefault(fallback),
    refine(name, (n: number) => n >= min && n <= max ? Result.succeed(n) : Result.fail(`must be between ${min} and ${max}`))
  )

/**
 * Every setting of `configs`, each read on its own: when several are wrong, the error names each
 * (one issue per variable), not only the first.
 */
const allSettings = <const C extends Record<string, Config.Config<any>>>(configs: C): Config.Config<{ -readonly [K in keyof C]: Config.Success<C[K]> }> =>
  Config.all(Object.fromEntries(Object.entries(configs).map(([key, config]) => [
    key,
    config.pipe(Config.map(Result.succeed), Config.orElse((error) => Config.succeed(Result.fail(error))))
  ])) as Record<string, Config.Config<Result.Result<unknown, Config.ConfigError>>>).pipe(
    Config.mapEffect((results) => {
      const values: Record<string, unknown> = {}
      const issues: Array<SchemaIssue.Issue> = []
      for (const [key, result] of Object.entries(results)) {
        if (Result.isSuccess(result)) values[key] = result.success
        else if (Schema.isSchemaError(result.failure.cause)) issues.push(result.failure.cause.issue)
        else return Effect.fail(result.failure) // the provider could not be read
      }
      const [first, ...rest] = issues
      if (first === undefined) return Effect.succeed(values as { -readonly [K in keyof C]: Config.Success<C[K]> })
      return Effect.fail(new Config.ConfigError(new Schema.SchemaError(rest.length === 0 ? first : new SchemaIssue.Composite(Schema.Unknown.ast, [first, ...rest]))))
    })
  )

export const serverConfig: Config.Config<ServerConfigShape> = allSettings({
  host: Config.String("HOST").pipe(Config.withDefault("127.0.0.1")),
  port: port("PORT").pipe(Config.withDefault(8080)),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.data")),
  databaseUrl: Config.option(Config.String("DATABASE_URL").pipe(refine("DATABASE_URL", (url: string) =>
    isPostgresUrl(url)
      ? Result.succeed(Redacted.make(url))
      : Result.fail("must be a postgres:// (or postgresql://) URL naming a host, e.g. postgres://postgres@127.0.0.1:5432/switchboard")
  ))),
  apiUrl: Config.option(Config.String("API_URL")),
  dashboardUrl: Config.option(Config.String("DASHBOARD_URL")),
  spectrumUrl: Config.option(Config.String("SPECTRUM_URL")),
  docsUrl: Config.option(Config.String("DOCS_URL")),
  bootstrapEmail: Config.String("BOOTSTRAP_EMAIL").pipe(Config.withDefault("admin@localhost")),
  bootstrapPassword: Config.option(Config.Redacted("BOOTSTRAP_PASSWORD")),
  maxBodyBytes: boundedInteger("MAX_BODY_BYTES", 1024 * 1024, 1024, 64 * 1024 * 1024),
  idempotencyRetentionHours: boundedInteger("IDEMPOTENCY_RETENTION_HOURS", 24, 1, 720),
  serviceKeyLimit: boundedInteger("SERVICE_KEY_LIMIT", 20, 1, 1000),
  shutdownGraceSeconds: boundedInteger("SHUTDOWN_GRACE_SECONDS", 10, 0, 600),
  secretKey: Config.option(Config.Redacted("SECRET_KEY").pipe(refine("SECRET_KEY", (v: Redacted.Redacted<string>) =>
    Redacted.value(v).length >= 32 ? Result.succeed(v) : Result.fail("SECRET_KEY must be at least 32 characters")
  ))),
  rateLimitQuota: boundedInteger("RATE_LIMIT_QUOTA", 100, 1, 1_000_000),
  channelHeartbeatMs: boundedInteger("CHANNEL_HEARTBEAT_MS", 15_000, 100, 300_000),
  channelMaxFrameBytes: boundedInteger("CHANNEL_MAX_FRAME_BYTES", 1024 * 1024, 1024, 16 * 1024 * 1024),
  channelSessionBufferBytes: boundedInteger("CHANNEL_SESSION_BUFFER_BYTES", 8 * 1024 * 1024, 64 * 1024, 256 * 1024 * 1024),
  channelProjectBufferBytes: boundedInteger("CHANNEL_PROJECT_BUFFER_BYTES", 16 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
  channelInitTimeoutMs: boundedInteger("CHANNEL_INIT_TIMEOUT_MS", 10_000, 100, 120_000),
  channelTokenTtlSeconds: boundedInteger("CHANNEL_TOKEN_TTL_SECONDS", 900, 1, 3600),
  eventRetentionHours: boundedInteger("EVENT_RETENTION_HOURS", 168, 1, 87_600),
  ingressMaxBytes: boundedInteger("INGRESS_MAX_BYTES", 1024 * 1024, 1024, 16 * 1024 * 1024),
  ingressRateLimitPerMinute: boundedInteger("INGRESS_RATE_LIMIT_PER_MINUTE", 600, 1, 1_000_000),
  ingressReplyWaitMs: boundedInteger("INGRESS_REPLY_WAIT_MS", 10_000, 0, 60_000),
  rateLimitWindowSeconds: boundedInteger("RATE_LIMIT_WINDOW_SECONDS", 10, 1, 3600),
  credentialCacheSeconds: boundedInteger("CREDENTIAL_CACHE_SECONDS", 30, 0, 60),
  oauthSweepIntervalSeconds: boundedInteger("OAUTH_SWEEP_INTERVAL_SECONDS", 3600, 0, 86_400),
  egressIps: Config.String("EGRESS_IPS").pipe(Config.withDefault(""), refine("EGRESS_IPS", (raw: string) => {
    const parsed = parseEgressIps(raw)
    return "ok" in parsed ? Result.succeed(parsed.ok) : Result.fail(`EGRESS_IPS must list public IPv4 addresses: ${parsed.error}`)
  })),
  allowPrivateWebhookTargets: boolean("ALLOW_PRIVATE_WEBHOOK_TARGETS").pipe(Config.withDefault(false)),
  webhookDeliveryEnabled: boolean("WEBHOOK_DELIVERY_ENABLED").pipe(Config.withDefault(true)),
  webhookPollIntervalMs: boundedInteger("WEBHOOK_POLL_INTERVAL_MS", 500, 10, 60_000),
  webhookRetryBaseMs: boundedInteger("WEBHOOK_RETRY_BASE_MS", 200, 1, 60_000),
  webhookRetryMaxMs: boundedInteger("WEBHOOK_RETRY_MAX_MS", 10_000, 1, 3_600_000),
  webhookMaxAttempts: boundedInteger("WEBHOOK_MAX_ATTEMPTS", 6, 1, 50),
  webhookRetryHorizonHours: boundedInteger("WEBHOOK_RETRY_HORIZON_HOURS", 24, 0, 720),
  webhookTimeoutSeconds: boundedInteger("WEBHOOK_TIMEOUT_SECONDS", 30, 1, 300),
  webhookConcurrency: boundedInteger("WEBHOOK_CONCURRENCY", 16, 1, 256),
  webhookDestinationConcurrency: boundedInteger("WEBHOOK_DESTINATION_CONCURRENCY", 4, 1, 256),
  tlsCert: Config.option(Config.String("TLS_CERT")),
  tlsKey: Config.option(Config.String("TLS_KEY")),
  tlsPort: boundedInteger("TLS_PORT", 8443, 0, 65535),
  trustProxy: boolean("TRUST_PROXY").pipe(Config.withDefault(false)),
  managementRateLimitQuota: boundedInteger("MANAGEMENT_RATE_LIMIT", 5, 1, 1_000_000),
  managementRateLimitWindowSeconds: boundedInteger("MANAGEMENT_RATE_LIMIT_WINDOW_SECONDS", 1, 1, 3600),
  releaseLine: literal("RELEASE_LINE", ["stable", "beta"]).pipe(Config.withDefault("stable" as const)),
  sessionTtlHours: boundedInteger("SESSION_TTL_HOURS", 168, 1, 8760),
  signInMaxFailures: boundedInteger("SIGN_IN_MAX_FAILURES", 10, 1, 1000),
  signInWindowMinutes: boundedInteger("SIGN_IN_WINDOW_MINUTES", 15, 1, 1440),
  signUpEnabled: boolean("SIGN_UP_ENABLED").pipe(Config.withDefault(true)),
  privacyJobEnabled: boolean("PRIVACY_JOB_ENABLED").pipe(Config.withDefault(true)),
  privacyJobIntervalSeconds: boundedInteger("PRIVACY_JOB_INTERVAL_SECONDS", 30, 1, 86_400),
  plansFile: Config.option(Config.String("PLANS_FILE")),
  billingSchedulerEnabled: boolean("BILLING_SCHEDULER_ENABLED").pipe(Config.withDefault(true)),
  billingTickSeconds: boundedInteger("BILLING_TICK_SECONDS", 30, 1, 3600),
  requestTimeoutMs: boundedInteger("REQUEST_TIMEOUT_MS", 30_000, 100, 600_000),
  databaseStatementTimeoutMs: boundedInteger("DATABASE_STATEMENT_TIMEOUT_MS", 10_000, 100, 600_000),
  databaseConnectTimeoutMs: boundedInteger("DATABASE_CONNECT_TIMEOUT_MS", 5_000, 100, 120_000),
  maxHeaderBytes: boundedInteger("MAX_HEADER_BYTES", 16 * 1024, 1024, 1024 * 1024),
  cacheDir: Config.option(Config.String("SWITCHBOARD_CACHE_DIR")),
  pgliteSharedBuffersMb: boundedInteger("PGLITE_SHARED_BUFFERS_MB", 32, 1, 16_384),
  allowPrivateSsoProviders: boolean("ALLOW_PRIVATE_SSO_PROVIDERS").pipe(Config.withDefault(false)),
  ssoTimeoutMs: boundedInteger("SSO_TIMEOUT_MS", 10_000, 100, 60_000),
  deviceClientId: Config.option(Config.String("DEVICE_CLIENT_ID")),
  deviceCodeTtlSeconds: boundedInteger("DEVICE_CODE_TTL_SECONDS", 600, 10, 3600),
  devicePollIntervalSeconds: boundedInteger("DEVICE_POLL_INTERVAL_SECONDS", 5, 1, 60),
  accessLog: literal("ACCESS_LOG", ["off", "debug", "info", "warning"], { warn: "warning" }).pipe(Config.withDefault("info" as const)),
  logLevel: literal("LOG_LEVEL", ["debug", "info", "warning", "error"], levelAliases).pipe(Config.withDefault("info" as const)),
  logFormat: literal("LOG_FORMAT", ["json", "pretty"]).pipe(Config.withDefault("pretty" as const)),
  ssoReturnToOrigins: Config.String("SSO_RETURN_TO_ORIGINS").pipe(
    Config.withDefault(""),
    Config.map((s) => s.split(",").map((o) => o.trim()).filter((o) => o.length > 0))
  )
}).pipe(Config.map((c) => {
  // Every surface defaults to the server's own origin (API.md §0).
  const origin = `http://${c.host.includes(":") ? `[${c.host}]` : c.host}:${c.port}`
  const url = (o: Option.Option<string>) => trimSlash(Option.getOrElse(o, () => origin))
  return {
    ...c,
    apiUrl: url(c.apiUrl),
    dashboardUrl: url(c.dashboardUrl),
    // The management API is HTTPS only: its default is the TLS listener's origin.
    spectrumUrl: Option.isNone(c.spectrumUrl) && c.tlsPort !== 0
      ? `https://${c.host.includes(":") ? `[${c.host}]` : c.host}:${c.tlsPort}`
      : url(c.spectrumUrl),
    docsUrl: url(c.docsUrl)
  }
}))

export const ServerConfigLive = Layer.effect(ServerConfig, Effect.map(serverConfig, (c) => c))

/** A config for tests and embedding: defaults with overrides. */
export const makeServerConfig = (overrides: Partial<ServerConfigShape> = {}): ServerConfigShape => ({
  host: "127.0.0.1",
  port: 0,
  dataDir: "./.data",
  databaseUrl: Option.none(),
  apiUrl: "http://127.0.0.1",
  dashboardUrl: "http://127.0.0.1",
  spectrumUrl: "http://127.0.0.1",
  docsUrl: "http://127.0.0.1",
  bootstrapEmail: "admin@localhost",
  bootstrapPassword: Option.none(),
  maxBodyBytes: 1024 * 1024,
  idempotencyRetentionHours: 24,
  serviceKeyLimit: 20,
  shutdownGraceSeconds: 10,
  credentialCacheSeconds: 30,
  oauthSweepIntervalSeconds: 3600,
  secretKey: Option.none(),
  rateLimitQuota: 100,
  channelHeartbeatMs: 15_000,
  channelMaxFrameBytes: 1024 * 1024,
  channelSessionBufferBytes: 8 * 1024 * 1024,
  channelProjectBufferBytes: 16 * 1024 * 1024,
  channelInitTimeoutMs: 10_000,
  channelTokenTtlSeconds: 900,
  eventRetentionHours: 168,
  ingressMaxBytes: 1024 * 1024,
  ingressRateLimitPerMinute: 600,
  ingressReplyWaitMs: 10_000,
  rateLimitWindowSeconds: 10,
  egressIps: [],
  allowPrivateWebhookTargets: false,
  webhookDeliveryEnabled: true,
  webhookPollIntervalMs: 500,
  webhookRetryBaseMs: 200,
  webhookRetryMaxMs: 10_000,
  webhookMaxAttempts: 6,
  webhookRetryHorizonHours: 24,
  webhookTimeoutSeconds: 30,
  webhookConcurrency: 16,
  webhookDestinationConcurrency: 4,
  tlsCert: Option.none(),
  tlsKey: Option.none(),
  tlsPort: 8443,
  trustProxy: false,
  managementRateLimitQuota: 5,
  managementRateLimitWindowSeconds: 1,
  releaseLine: "stable",
  sessionTtlHours: 168,
  signInMaxFailures: 10,
  signInWindowMinutes: 15,
  signUpEnabled: true,
  privacyJobEnabled: true,
  privacyJobIntervalSeconds: 30,
  plansFile: Option.none(),
  billingSchedulerEnabled: true,
  billingTickSeconds: 30,
  requestTimeoutMs: 30_000,
  databaseStatementTimeoutMs: 10_000,
  databaseConnectTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  cacheDir: Option.none(),
  pgliteSharedBuffersMb: 32,
  allowPrivateSsoProviders: false,
  ssoTimeoutMs: 10_000,
  ssoReturnToOrigins: [],
  deviceClientId: Option.none(),
  deviceCodeTtlSeconds: 600,
  devicePollIntervalSeconds: 5,
  accessLog: "off",
  logLevel: "info",
  logFormat: "pretty",
  ...overrides
})
