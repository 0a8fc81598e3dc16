/**
 * Server configuration: only environment variables, read once at start, each with a default that
 * works for a local run. Every variable is declared once, in `Settings.ts`, with its default, its
 * range, its meaning and its parser; docs/configuration.md is generated from those declarations
 * (`npm run docs:config`), so the list an operator reads is the one the server reads.
 */
import { Config, Context, Effect, Layer, Option, type Redacted, Result, Schema, SchemaIssue } from "effect"
import { configsOf, everySetting, serverSettings } from "./Settings.js"

export { boundedInteger, isPostgresUrl } from "./Settings.js"

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
  /** How often the requests counted per project are added to the store (REQUEST_COUNTS_FLUSH_SECONDS; 0: not counted). */
  readonly requestCountsFlushSeconds: number
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
  /** First retry delay; each next one is 5× longer, capped at `webhookRetryMaxMs`, ±50 % jitter. */
  readonly webhookRetryBaseMs: number
  readonly webhookRetryMaxMs: number
  /** Attempts of the fast schedule before the long tail (default 6). */
  readonly webhookMaxAttempts: number
  /** How long the long tail keeps retrying after the fast attempts (WEBHOOK_RETRY_HORIZON_HOURS; 0: none). */
  readonly webhookRetryHorizonHours: number
  /** Per-attempt timeout (default 30 s). */
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
  /** Management API requests per project per window (default 5 per second). */
  readonly managementRateLimitQuota: number
  readonly managementRateLimitWindowSeconds: number
  /** The release line this server runs (RELEASE_LINE: stable, the default, or beta). */
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
  /** What DATABASE_URL reaches (DATABASE_POOL_MODE): the server or a session pooler, or a transaction pooler. */
  readonly databasePoolMode: "session" | "transaction"
  /** Connections in one process's PostgreSQL pool (DATABASE_POOL_SIZE). */
  readonly databasePoolSize: number
  /** A direct connection for LISTEN (DATABASE_LISTEN_URL); none: DATABASE_URL's. */
  readonly databaseListenUrl: Option.Option<Redacted.Redacted<string>>
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

const serverConfigs = configsOf(serverSettings)

/**
 * The settings the adapters read themselves (provisioning, WhatsApp, iMessage, limits), checked
 * here too: a bad one stops the start like a bad server setting, named before anything is built.
 */
const adapterChecks = Object.fromEntries(everySetting
  .filter((s) => !Object.values<unknown>(serverSettings).includes(s))
  .map((s) => [`adapter:${s.name}`, s.config]))

/** The server's configuration from the environment: every setting of `serverSettings` (Settings.ts). */
export const serverConfig: Config.Config<ServerConfigShape> = allSettings({ ...serverConfigs, ...adapterChecks } as typeof serverConfigs).pipe(Config.map((read) => {
  const c = Object.fromEntries(Object.keys(serverConfigs).map((key) => [key, read[key as keyof typeof read]])) as typeof read
  // Every surface defaults to the server's own origin.
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
  requestCountsFlushSeconds: 10,
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
  databasePoolMode: "session",
  databasePoolSize: 10,
  databaseListenUrl: Option.none(),
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
