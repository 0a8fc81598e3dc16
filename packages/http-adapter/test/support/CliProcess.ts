/**
 * The `switchboard` binary in child processes, as an operator runs it: an environment on an
 * embedded database in a data directory, `serve` on a free port waited for until it listens,
 * one-shot commands with their output, and the bootstrap JSON line of the first start.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { freePort } from "./WebhookReceiver.js"

export const switchboardBin = join(import.meta.dirname, "..", "..", "bin", "switchboard.js")

/**
 * This process's environment with `DATA_DIR` and `HOST=127.0.0.1`, `DATABASE_URL` removed (the
 * embedded database), then `vars` applied: a string sets a variable, `undefined` removes it.
 */
export const cliEnv = (dataDir: string, vars: Record<string, string | undefined> = {}): Record<string, string> => {
  // TLS_PORT 0: the management API's HTTPS listener on a free port, so parallel test files never collide on 8443.
  const e: Record<string, string> = { ...process.env as Record<string, string>, DATA_DIR: dataDir, HOST: "127.0.0.1", TLS_PORT: "0" }
  delete e.DATABASE_URL
  for (const [name, value] of Object.entries(vars)) {
    if (value === undefined) delete e[name]
    else e[name] = value
  }
  return e
}

export interface Running {
  readonly child: ChildProcess
  /** Everything the server wrote so far, stdout and stderr interleaved. */
  readonly output: () => string
  readonly exited: Promise<number | null>
  readonly baseUrl: string
}

/**
 * `switchboard serve` with `env` on `port` (a free `PORT` unless given: a restart on the same port
 * is what a process manager does), in `cwd` when given, once it has printed its listening line.
 */
export const startServer = async (env: Record<string, string>, timeoutMs = 60_000, cwd?: string, port?: number): Promise<Running> => {
  port ??= await freePort()
  const child = spawn(process.execPath, [switchboardBin, "serve"], { cwd, env: { ...env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  child.stdout!.on("data", (d) => (out += d))
  child.stderr!.on("data", (d) => (out += d))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const deadline = Date.now() + timeoutMs
  while (!out.includes("Switchboard listening on")) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start:\n${out}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return { child, output: () => out, exited, baseUrl: `http://127.0.0.1:${port}` }
}

/** Signals the server (SIGTERM unless told) and resolves with its exit code. */
export const stopServer = (running: Running, signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> => {
  running.child.kill(signal)
  return running.exited
}

/** A one-shot `switchboard <args>` with `env`, resolved when it exits. */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [switchboardBin, ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })

/** The `{"bootstrap": …}` line of a first start or of `admin create-account --json`, if printed. */
export const bootstrapOf = (out: string) => {
  const line = out.split("\n").find((l) => l.startsWith("{\"bootstrap\""))
  return line === undefined ? undefined : (JSON.parse(line) as { bootstrap: Record<string, string> }).bootstrap
}
