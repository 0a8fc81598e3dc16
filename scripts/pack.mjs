// Shared by scripts/check-packages.mjs and scripts/examples.mjs: the workspace packages, packed as
// npm publishes them (`npm pack`, so `files` and the exports map decide what a host gets).
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export const root = join(dirname(fileURLToPath(import.meta.url)), "..")
/** In dependency order. */
export const packages = ["core", "testkit", "sql-adapter", "http-adapter"]
export const manifest = (name) => JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8"))

/** Fails with what to run when a package has no dist/ (the packages are checked as built). */
export const requireBuilt = (script) => {
  const missing = packages.filter((name) => !existsSync(join(root, "packages", name, "dist", "index.js")))
  if (missing.length > 0) {
    console.error(`${script}: packages/{${missing.join(",")}}/dist is missing — run \`npm run build\` first`)
    process.exit(1)
  }
}

/** Runs a command; on failure prints its output and exits with what failed. */
export const run = (script, what, command, args, options = {}) => {
  const r = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options })
  if (r.status !== 0) {
    process.stdout.write(r.stdout ?? "")
    process.stderr.write(r.stderr ?? "")
    console.error(`${script}: ${what} failed (exit ${r.status ?? r.signal}): ${command} ${args.join(" ")}`)
    process.exit(1)
  }
  return r.stdout
}

/** `npm pack` of every package into `dir`; returns { name (npm name), file (tarball path) } per package. */
export const packAll = (script, dir) =>
  packages.map((name) => {
    const out = run(script, `npm pack of packages/${name}`, "npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], {
      cwd: join(root, "packages", name)
    })
    const [info] = JSON.parse(out)
    return { dir: name, name: manifest(name).name, file: join(dir, info.filename), files: info.entryCount, size: info.size }
  })
