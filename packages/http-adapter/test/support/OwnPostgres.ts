/**
 * A PostgreSQL cluster a test owns (never the shared one): `initdb` into a temporary directory,
 * started on a free port, and stopped, frozen (SIGSTOP on the postmaster and every backend) or
 * thawed at the test's will. Needs the PostgreSQL server binaries (Debian's postgresql package);
 * as root, the cluster runs as the `postgres` user. With `ssl` (a certificate and key in PEM), it
 * serves TLS and accepts TCP connections over TLS only (`hostssl` lines in pg_hba.conf).
 */
import { execFile, execFileSync } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./WebhookReceiver.js"

/** The directory of `initdb`/`pg_ctl`, if the server binaries are installed. */
export const postgresBin = (() => {
  const root = "/usr/lib/postgresql"
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin")
})()

export interface OwnPostgres {
  readonly url: string
  readonly stop: () => void
  readonly start: () => void
  readonly freeze: () => void
  readonly thaw: () => void
  readonly destroy: () => void
  /** `stop` without blocking this process's event loop (its sockets, timers and servers keep running). */
  readonly stopAsync: () => Promise<void>
  /** `start` without blocking this process's event loop. */
  readonly startAsync: () => Promise<void>
}

export interface OwnPostgresOptions {
  /** The server's certificate and private key, in PEM: TLS on, and TCP connections only over TLS. */
  readonly ssl?: { readonly cert: string; readonly key: string }
}

export const startOwnPostgres = async (o: OwnPostgresOptions = {}): Promise<OwnPostgres> => {
  if (postgresBin === undefined) throw new Error("the PostgreSQL server binaries are not installed")
  const asRoot = process.getuid?.() === 0
  const argvOf = (command: string, args: ReadonlyArray<string>) =>
    (asRoot ? ["runuser", ["-u", "postgres", "--", join(postgresBin!, command), ...args]] : [join(postgresBin!, command), [...args]]) as [string, Array<string>]
  const run = (command: string, args: ReadonlyArray<string>) => {
    const [file, argv] = argvOf(command, args)
    execFileSync(file, argv, { stdio: "pipe", timeout: 60_000 })
  }
  const runAsync = (command: string, args: ReadonlyArray<string>) =>
    new Promise<void>((resolve, reject) => {
      const [file, argv] = argvOf(command, args)
      execFile(file, argv, { timeout: 60_000 }, (error, _stdout, stderr) => (error === null ? resolve() : reject(new Error(`${command}: ${error.message} ${stderr}`))))
    })
  const dir = mkdtempSync(join(tmpdir(), "switchboard-pg-"))
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim())
    chownSync(dir, uid, gid)
  }
  const data = join(dir, "data")
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
  const port = await freePort()
  let options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`
  if (o.ssl !== undefined) {
    const owned = (name: string, text: string) => {
      const path = join(data, name)
      writeFileSync(path, text, { mode: 0o600 })
      if (asRoot) chownSync(path, Number(execFileSync("id", ["-u", "postgres"]).toString().trim()), Number(execFileSync("id", ["-g", "postgres"]).toString().trim()))
    }
    owned("server.crt", o.ssl.cert)
    owned("server.key", o.ssl.key)
    owned("pg_hba.conf", "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostssl all all ::1/128 trust\n")
    options += " -c ssl=on"
  }
  const startArgs = ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"]
  const start = () => run("pg_ctl", startArgs)
  start()
  let frozen = false
  /** The postmaster and its children (the backends, checkpointer, …). */
  const processes = () => {
    const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0])
    const children = execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)]).toString().split("\n").map((l) => Number(l.trim())).filter((n) => n > 0)
    return [pid, ...children]
  }
  const signal = (sig: NodeJS.Signals) => {
    for (const pid of processes()) {
      try {
        process.kill(pid, sig)
      } catch {
        // gone already
      }
    }
  }
  const thaw = () => {
    if (!frozen) return
    frozen = false
    signal("SIGCONT")
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop: () => {
      thaw()
      run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
    },
    freeze: () => {
      // Stop the postmaster first so it cannot fork new backends, then every child.
      frozen = true
      signal("SIGSTOP")
    },
    thaw,
    stopAsync: () => {
      thaw()
      return runAsync("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
    },
    startAsync: () => runAsync("pg_ctl", startArgs),
    destroy: () => {
      thaw()
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
      } catch {
        // not running
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
