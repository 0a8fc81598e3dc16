/**
 * A new PGlite data directory, made cheaply. PGlite's own first `create` of an
 * empty directory runs initdb in the same process: a second PGlite instance, a tar of its result
 * unpacked into the first, every file synced to disk — seconds, and 600 MB to 1 GB of resident
 * memory the process keeps for its whole life. Instead:
 *
 * - with a template (a cluster initdb made before, cached in `templateDir` under the PGlite
 *   version) the new directory is a plain copy of it — a cleanly shut down cluster of the same
 *   PGlite build is a valid data directory, as a file-system copy of a stopped PostgreSQL is;
 * - without one, initdb runs in a child process (PGlite creates the cluster and closes it
 *   cleanly), so its memory goes back to the system when the child exits; the result is then
 *   saved as the template (atomically: copied beside it, renamed into place) for the next one.
 *
 * Either way the caller then opens the directory as an existing one. Migrations are not part of
 * the template: they run on every open as before.
 */
import { spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { basename, dirname, join } from "node:path"

const require = createRequire(import.meta.url)

/** PGlite's CommonJS entry (the child loads it) and its version (what a template is valid for). */
const pglitePackage = () => {
  const entry = require.resolve("@electric-sql/pglite")
  for (let dir = dirname(entry); dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, "package.json")
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string }
      if (pkg.name === "@electric-sql/pglite" && typeof pkg.version === "string") return { entry, version: pkg.version }
    }
  }
  throw new Error("cannot find the version of @electric-sql/pglite")
}

/**
 * Makes this PGlite version's template in `templateDir` now, if it is not there yet (what the first
 * start of a new data directory would otherwise do): "made" or "present".
 */
export const preparePgliteTemplate = async (templateDir: string): Promise<"made" | "present"> => {
  if (isCluster(pgliteTemplatePath(templateDir))) return "present"
  mkdirSync(templateDir, { recursive: true })
  const scratch = join(templateDir, `scratch-${process.pid}`)
  try {
    await initPgliteDataDir(scratch, templateDir)
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
  return "made"
}

/** The template of this PGlite version in `templateDir`. */
export const pgliteTemplatePath = (templateDir: string) => join(templateDir, `pglite-${pglitePackage().version}`)

const isCluster = (dir: string) => existsSync(join(dir, "PG_VERSION")) && existsSync(join(dir, "global", "pg_control"))

/** Whether `dataDir` is missing or empty (PGlite would run initdb there). */
export const needsInit = (dataDir: string) => !existsSync(dataDir) || readdirSync(dataDir).length === 0

/** Runs initdb for `dataDir` in a child process: PGlite creates the cluster and shuts it down cleanly. */
const initdbInChild = (dataDir: string) =>
  new Promise<void>((resolve, reject) => {
    const { entry } = pglitePackage()
    const code = `require(${JSON.stringify(entry)}).PGlite.create(${JSON.stringify(dataDir)})` +
      `.then((db) => db.close()).then(() => process.exit(0), (e) => { console.error(e); process.exit(1) })`
    const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } })
    let stderr = ""
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on("exit", (code) =>
      code === 0 && isCluster(dataDir) ? resolve() : reject(new Error(`initdb of ${dataDir} failed (exit ${code}): ${stderr.trim().slice(-2000)}`)))
  })

/** Saves `dataDir` (a fresh, cleanly closed cluster) as the template; a failure only loses the cache. */
const saveTemplate = (dataDir: string, template: string) => {
  const tmp = `${template}.${process.pid}.tmp`
  try {
    rmSync(tmp, { recursive: true, force: true })
    cpSync(dataDir, tmp, { recursive: true })
    renameSync(tmp, template)
  } catch {
    // Another process saved it first, or the cache is not writable: nothing lost but time next time.
    rmSync(tmp, { recursive: true, force: true })
  }
}

/**
 * Makes `dataDir` (missing or empty) a new cluster: from the template in `templateDir` if there is
 * one, else by initdb in a child process (then saved as the template when `templateDir` is given).
 * Tells how it was made.
 */
export const initPgliteDataDir = async (dataDir: string, templateDir: string | undefined): Promise<"template" | "initdb"> => {
  const template = templateDir === undefined ? undefined : pgliteTemplatePath(templateDir)
  // Made beside it and renamed into place: a crash midway never leaves a half-made cluster behind.
  // The caller holds the directory's lock, so a staging directory of another pid is a crash's leftover.
  const parent = dirname(dataDir)
  const prefix = `${basename(dataDir)}.init-`
  for (const f of existsSync(parent) ? readdirSync(parent) : []) {
    if (f.startsWith(prefix)) rmSync(join(parent, f), { recursive: true, force: true })
  }
  const staging = join(parent, `${prefix}${process.pid}`)
  let made: "template" | "initdb"
  try {
    if (template !== undefined && isCluster(template)) {
      cpSync(template, staging, { recursive: true })
      made = "template"
    } else {
      await initdbInChild(staging)
      if (template !== undefined && !existsSync(template)) saveTemplate(staging, template)
      made = "initdb"
    }
    if (existsSync(dataDir)) rmdirSync(dataDir)
    renameSync(staging, dataDir)
  } catch (e) {
    rmSync(staging, { recursive: true, force: true })
    throw e
  }
  return made
}
