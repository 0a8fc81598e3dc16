/**
 * `switchboard` — the CLI of the standalone server.
 *   switchboard serve                                   run the server (what `npm start` runs)
 *   switchboard admin create-account --email E [--password P] [--json]
 *   switchboard admin rotate-signing-key [--json]
 *   switchboard admin prepare-cache
 *   switchboard admin export --to <postgres-url> [--progress-rows N]
 *   switchboard admin backup <file>
 *   switchboard admin restore <file>
 *   switchboard --version | --help | <command> --help
 * Flags map onto the same configuration as the environment (docs/configuration.md).
 */
import { provisionAccount } from "@switchboard/core/accounts"
import { SigningKeys } from "@switchboard/core/oauth"
import { Email } from "@switchboard/core/shared"
import { preparePgliteTemplate } from "@switchboard/sql-adapter"
import { Cause, type Config, ConfigProvider, Deferred, Effect, Exit, Layer, type LogLevel, Option, Redacted, References, Schema, SchemaIssue } from "effect"
import { readFileSync } from "node:fs"
import { serverConfig } from "../http/ServerConfig.js"
import { backupCommand, exportCommand, restoreCommand } from "./DataCommands.js"
import { appLayer, bootstrapLine, runServer, serverLoggers } from "./Server.js"

const version = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version

const usage = `Usage:
  switchboard serve
  switchboard admin create-account --email <email> [--password <password>] [--json]
  switchboard admin rotate-signing-key [--json]
  switchboard admin prepare-cache
  switchboard admin export --to <postgres-url> [--progress-rows <n>]
  switchboard admin backup <file>
  switchboard admin restore <file>
  switchboard --version
  switchboard <command> --help

Configuration comes from environment variables (every one: docs/configuration.md): HOST, PORT, DATA_DIR, DATABASE_URL,
API_URL, DASHBOARD_URL, SPECTRUM_URL, DOCS_URL, BOOTSTRAP_EMAIL, BOOTSTRAP_PASSWORD, SECRET_KEY,
TLS_CERT, TLS_KEY, TLS_PORT, TRUST_PROXY, PLANS_FILE, EGRESS_IPS, ALLOW_PRIVATE_WEBHOOK_TARGETS, ...`

/** `switchboard <command> --help`: what each command does, its flags, its exit codes. */
const commandHelp: Record<string, string> = {
  serve: `Usage: switchboard serve

Runs the server (what \`npm start\` runs) until SIGINT/SIGTERM, then finishes in-flight requests and
closes the database. Takes no flags: it is configured by environment variables
(docs/configuration.md). A first start on an empty store prints the bootstrap account's credentials once
and keeps them in DATA_DIR/bootstrap.json (mode 0600); later starts say whether that file is there.
Exit codes: 0 stopped cleanly, 1 could not start or run, 2 bad configuration or arguments.`,
  admin: `Usage:
  switchboard admin create-account --email <email> [--password <password>] [--json]
  switchboard admin rotate-signing-key [--json]
  switchboard admin prepare-cache
  switchboard admin export --to <postgres-url> [--progress-rows <n>]
  switchboard admin backup <file>
  switchboard admin restore <file>

Run \`switchboard admin <command> --help\` for one command.`,
  "admin create-account": `Usage: switchboard admin create-account --email <email> [--password <password>] [--json]

Creates an account and its first service key on the configured store, and prints the email, the
password (generated when --password is not given; 8 to 256 characters) and the service key once.
  --json   print one line {"bootstrap":{accountId,email,password,serviceKey}}
Exit codes: 0 created, 1 failed (e.g. the email is taken), 2 bad arguments.`,
  "admin rotate-signing-key": `Usage: switchboard admin rotate-signing-key [--json]

Rotates the OAuth token signing keys: the published next key starts signing, the current one
retires (published until its last token expires), and a new next key is published. With the
embedded database run it while the server is stopped.
  --json   print one line {"rotated":{current,next,retired}}
Exit codes: 0 rotated, 1 failed, 2 bad arguments.`,
  "admin prepare-cache": `Usage: switchboard admin prepare-cache

Fills the cache directory (SWITCHBOARD_CACHE_DIR) with the embedded database's cluster template,
which a first start would otherwise make. \`npm ci\` runs it.
Exit codes: 0 prepared (or nothing to do), 1 failed.`,
  "admin export": `Usage: switchboard admin export --to <postgres-url> [--progress-rows <n>]

Copies the embedded database (DATA_DIR/pglite) into the EMPTY PostgreSQL database at <postgres-url>,
in one transaction: migrates it to the same schema version, copies every table, sets the sequences,
compares each table's row count, and prints them. A failure leaves the target empty. Run it with
the server stopped (it takes the data directory's lock, and refuses while the server holds it).
Then start the server with DATABASE_URL=<postgres-url> and the same server secret (DATA_DIR/secret.key
or SECRET_KEY): it is not in the database. See docs/operations.md, "Moving off the embedded database".
  --progress-rows <n>   a progress line every n rows of a large table (default 10000)
Exit codes: 0 exported, 1 failed or refused (a target that is not empty, a schema version that is
not this Switchboard's, the server running), 2 bad arguments.`,
  "admin backup": `Usage: switchboard admin backup <file>

Writes a consistent backup of the embedded database to <file> (atomically: a temporary file, then
renamed). While the server runs it is taken by the server, through its admin socket
DATA_DIR/admin.sock; otherwise this command opens the database itself. The file starts with a
manifest line (schema version, creation time, Switchboard version, SHA-256 of each part) and holds
DATA_DIR/secret.key too when SECRET_KEY is not set: keep it private. See docs/operations.md,
"Backup and restore".
Exit codes: 0 written, 1 failed (e.g. on PostgreSQL: use pg_dump), 2 bad arguments.`,
  "admin restore": `Usage: switchboard admin restore <file>

Restores a backup made by \`admin backup\` into DATA_DIR, which must be missing or empty: the
checksums are verified first, and nothing is changed when anything is wrong. The server then starts
on it (with the same SECRET_KEY when the backup holds no secret.key).
Exit codes: 0 restored, 1 refused or failed (a non-empty DATA_DIR, a corrupted file), 2 bad arguments.`
}

const isHelp = (a: string | undefined) => a === "--help" || a === "-h"

const fail = (message: string, code = 2): never => {
  process.stderr.write(`switchboard: ${message}\n`)
  process.exit(code)
}

const flags = (args: ReadonlyArray<string>) => {
  const out = new Map<string, string | true>()
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (!a.startsWith("--")) fail(`unexpected argument ${JSON.stringify(a)}\n${usage}`)
    const eq = a.indexOf("=")
    if (eq > 0) out.set(a.slice(2, eq), a.slice(eq + 1))
    else if (args[i + 1] !== undefined && !args[i + 1]!.startsWith("--")) out.set(a.slice(2), args[++i]!)
    else out.set(a.slice(2), true)
  }
  return out
}

/** Listening errors of Node, as operators read them (the port named, what to do). */
const listenProblems: Record<string, (port: unknown, address: unknown) => string> = {
  EADDRINUSE: (port, address) => `port ${port} on ${address} is already in use (EADDRINUSE): stop the other process, or set PORT / TLS_PORT`,
  EACCES: (port, address) => `no permission to listen on port ${port} on ${address} (EACCES): use a port above 1023`,
  EADDRNOTAVAIL: (_port, address) => `${address} is not an address of this machine (EADDRNOTAVAIL): check HOST`
}

/** One line (never a stack trace) for why a command failed: a listening error names its port. */
const describeFailure = (cause: Cause.Cause<unknown>) => {
  const e = Cause.squash(cause) as { message?: unknown; _tag?: unknown }
  const seen = new Set<unknown>()
  for (let c = e as { code?: unknown; port?: unknown; address?: unknown; cause?: unknown } | undefined; typeof c === "object" && c !== null && !seen.has(c); c = c.cause as typeof c) {
    seen.add(c)
    const listen = typeof c.code === "string" ? listenProblems[c.code] : undefined
    if (listen !== undefined && c.port !== undefined) return listen(c.port, c.address)
  }
  const message = typeof e?.message === "string" && e.message !== "" && e.message !== "An error has occurred" ? e.message : undefined
  return message ?? String(Cause.squash(cause)).split("\n")[0]!.slice(0, 500)
}

/** A value as it may be shown: a URL's password masked (DATABASE_URL), at most 200 characters. */
const shown = (value: string) => JSON.stringify(value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i, "$1***@").slice(0, 200))

const issueEntries = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Each variable of a configuration error with its value and what is wrong, one per line: the
 * error's schema issue holds one entry per variable, at the variable's name (its path).
 */
export const configProblems = (error: Config.ConfigError): Array<string> => {
  const cause = error.cause
  if (cause._tag === "SourceError") return [cause.message]
  return [...new Set(issueEntries(cause.issue).issues.map((issue) => {
    const name = (issue.path ?? []).map(String).join("_")
    const value = process.env[name]
    return `${name}=${value === undefined ? "(not set)" : shown(value)}: ${issue.message}`
  }))]
}

/**
 * The configuration from the environment, checked before anything heavy is built: a bad setting
 * stops the command with each variable named, its value and the reason (exit 2, no stack trace).
 */
const loadConfig = serverConfig.parse(ConfigProvider.fromEnv()).pipe(
  Effect.catch((error) => Effect.sync(() => fail(`configuration error:\n  ${configProblems(error).join("\n  ")}`)))
)

const minimumLevel: Record<"debug" | "info" | "warning" | "error", LogLevel.LogLevel> = { debug: "Debug", info: "Info", warning: "Warn", error: "Error" }

const serve = () => {
  const stop = Effect.runSync(Deferred.make<void>())
  let signals = 0
  const onSignal = (signal: string) => {
    signals += 1
    if (signals > 1) process.exit(130)
    process.stdout.write(`\nReceived ${signal}: finishing in-flight requests, then closing the database.\n`)
    Effect.runSync(Deferred.succeed(stop, undefined))
  }
  process.on("SIGINT", () => onSignal("SIGINT"))
  process.on("SIGTERM", () => onSignal("SIGTERM"))
  // LOG_FORMAT=json: the server's own log lines are JSON too (one object a line), like the access log;
  // LOG_LEVEL: the least severe of them written (the access log's writer checks it once itself).
  const program = Effect.flatMap(loadConfig, (config) =>
    runServer(config, { stop, print: (line) => process.stdout.write(`${line}\n`) }).pipe(
      Effect.provide(serverLoggers(config.logFormat)),
      Effect.provideService(References.MinimumLogLevel, minimumLevel[config.logLevel])
    ))
  Effect.runPromiseExit(program).then((exit) => {
    if (Exit.isSuccess(exit)) {
      process.stdout.write("Stopped.\n")
      process.exit(0)
    }
    fail(`could not run the server: ${describeFailure(exit.cause)}`, 1)
  })
}

const createAccount = (args: ReadonlyArray<string>) => {
  const f = flags(args)
  const email = f.get("email")
  if (typeof email !== "string") return fail(`--email is required\n${usage}`)
  if (Option.isNone(Schema.decodeUnknownOption(Email)(email))) return fail(`--email ${JSON.stringify(email)} is not an email address`)
  const password = f.get("password")
  if (password === true || (typeof password === "string" && (password.length < 8 || password.length > 256))) {
    return fail("--password must be 8 to 256 characters")
  }
  const json = f.get("json") === true
  const program = Effect.flatMap(loadConfig, (config) =>
    provisionAccount({
      email,
      password: typeof password === "string" ? Option.some(Redacted.make(password)) : Option.none(),
      keyName: "admin"
    }).pipe(Effect.provide(Layer.fresh(appLayer(config)))))
  Effect.runPromiseExit(program).then((exit) => {
    if (Exit.isFailure(exit)) {
      const failure = Cause.findErrorOption(exit.cause)
      if (Option.isSome(failure) && (failure.value as { _tag?: string })._tag === "EmailTaken") {
        return fail(`an account with email ${email} already exists`, 1)
      }
      return fail(`could not create the account: ${describeFailure(exit.cause)}`, 1)
    }
    const line = bootstrapLine(exit.value)
    if (json) process.stdout.write(`${line}\n`)
    else {
      const { bootstrap } = JSON.parse(line) as { bootstrap: Record<string, string> }
      process.stdout.write(Object.entries(bootstrap).map(([k, v]) => `${k.padEnd(11)} ${v}`).join("\n") + "\n")
      process.stdout.write("The password and service key are shown once; store them now.\n")
    }
    process.exit(0)
  })
}

/**
 * Rotates the JWT signing keys (docs/api-notes/oauth.md): the next key, published since the last
 * rotation (so every relying party and server already holds it), starts signing; the current key
 * retires but stays published until the last token it signed has expired; a new next key is
 * published. Servers pick the change up within their key cache's lifetime (30 s) and keep
 * accepting tokens of the retired key meanwhile. With the embedded database, run it while the
 * server is stopped (PGlite has one owner); with PostgreSQL, any time.
 */
const rotateSigningKey = (args: ReadonlyArray<string>) => {
  const f = flags(args)
  for (const key of f.keys()) if (key !== "json") fail(`rotate-signing-key takes no --${key}\n${usage}`)
  const json = f.get("json") === true
  const program = Effect.flatMap(loadConfig, (config) =>
    Effect.flatMap(SigningKeys, (keys) => keys.rotate()).pipe(Effect.provide(Layer.fresh(appLayer(config)))))
  Effect.runPromiseExit(program).then((exit) => {
    if (Exit.isFailure(exit)) return fail(`could not rotate the signing keys: ${describeFailure(exit.cause)}`, 1)
    const { current, next, retired } = exit.value
    if (json) process.stdout.write(`${JSON.stringify({ rotated: { current, next, retired } })}\n`)
    else {
      process.stdout.write(`signing key ${current} now signs\n`)
      if (retired !== null) process.stdout.write(`signing key ${retired} retired; published until its last token expires\n`)
      process.stdout.write(`signing key ${next} published as the next key\n`)
    }
    process.exit(0)
  })
}

/**
 * Fills the cache directory (SWITCHBOARD_CACHE_DIR; `npm ci` runs this through the root package's
 * `prepare`) with what a first start would otherwise make: the embedded database's cluster template.
 */
const prepareCache = (args: ReadonlyArray<string>) => {
  if (args.length > 0) fail(`prepare-cache takes no arguments\n${usage}`)
  const dir = process.env.SWITCHBOARD_CACHE_DIR
  if (dir === undefined || dir === "") {
    process.stdout.write("no cache directory (SWITCHBOARD_CACHE_DIR): nothing to prepare\n")
    return process.exit(0)
  }
  preparePgliteTemplate(dir).then(
    (done) => {
      process.stdout.write(`embedded database template ${done === "made" ? "made" : "already there"} in ${dir}\n`)
      process.exit(0)
    },
    (e: unknown) => fail(`could not prepare the cache: ${e instanceof Error ? e.message : String(e)}`, 1)
  )
}

/** Runs one of the data commands (DataCommands.ts) on the configuration, and exits with its code. */
const dataCommand = (run: (config: Parameters<typeof exportCommand>[0]) => Promise<number>) => {
  Effect.runPromise(loadConfig).then(run).then(
    (code) => process.exit(code),
    (e: unknown) => fail(`the command failed: ${e instanceof Error ? e.message : String(e)}`, 1)
  )
}

/** Lines of a data command: its failures (they start with "switchboard: ") on stderr, the rest on stdout. */
const err = { line: (text: string) => void (text.startsWith("switchboard: ") ? process.stderr : process.stdout).write(`${text}\n`) }

const exportData = (args: ReadonlyArray<string>) => {
  const f = flags(args)
  for (const key of f.keys()) if (key !== "to" && key !== "progress-rows") fail(`export takes no --${key}\n${usage}`)
  const to = f.get("to")
  if (typeof to !== "string" || !/^postgres(ql)?:\/\//.test(to)) return fail(`--to <postgres://…> is required: the empty PostgreSQL database to export into\n${usage}`)
  const rows = f.get("progress-rows")
  const progressRows = rows === undefined ? 10_000 : Number(rows)
  if (!Number.isInteger(progressRows) || progressRows < 1) return fail("--progress-rows must be a whole number of rows, at least 1")
  dataCommand((config) => exportCommand(config, to, progressRows, err))
}

/** The one <file> argument of backup and restore. */
const fileArgument = (name: string, args: ReadonlyArray<string>) => {
  if (args.length !== 1 || args[0]!.startsWith("--")) return fail(`${name} takes one argument, the backup file\n${usage}`)
  return args[0]!
}

const [command, ...rest] = process.argv.slice(2)
// `switchboard <command> [<subcommand>] … --help` or `switchboard help <command> [<subcommand>]`.
const helpWords = command === "help" && rest.length > 0 ? rest : rest.some(isHelp) ? [command!, ...rest] : undefined
const helpTopic = helpWords === undefined
  ? undefined
  : [helpWords.slice(0, 2).join(" "), helpWords[0]!].find((t) => commandHelp[t] !== undefined) ?? helpWords.filter((w) => !isHelp(w)).join(" ")
if (helpTopic !== undefined) {
  const text = commandHelp[helpTopic]
  if (text === undefined) fail(`unknown command ${JSON.stringify(helpTopic)}\n${usage}`)
  process.stdout.write(`${text}\n`)
  process.exit(0)
}
switch (command) {
  case "serve":
    if (rest.length > 0) fail(`serve takes no arguments (configure it with environment variables)\n${usage}`)
    serve()
    break
  case "admin":
    if (rest[0] === "create-account") createAccount(rest.slice(1))
    else if (rest[0] === "rotate-signing-key") rotateSigningKey(rest.slice(1))
    else if (rest[0] === "prepare-cache") prepareCache(rest.slice(1))
    else if (rest[0] === "export") exportData(rest.slice(1))
    else if (rest[0] === "backup") {
      const file = fileArgument("backup", rest.slice(1))
      dataCommand((config) => backupCommand(config, file, version, err))
    } else if (rest[0] === "restore") {
      const file = fileArgument("restore", rest.slice(1))
      dataCommand((config) => restoreCommand(config, file, err))
    } else fail(`unknown admin command ${JSON.stringify(rest[0] ?? "")}\n${usage}`)
    break
  case "--version":
  case "version":
    process.stdout.write(`switchboard ${version}\n`)
    break
  case undefined:
  case "--help":
  case "-h":
  case "help":
    process.stdout.write(`switchboard ${version}\n${usage}\n`)
    break
  default:
    fail(`unknown command ${JSON.stringify(command)}\n${usage}`)
}
