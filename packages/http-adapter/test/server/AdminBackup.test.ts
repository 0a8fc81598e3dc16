/**
 * `switchboard admin backup FILE` and `admin restore FILE` as an operator runs them
 * (docs/operations.md, "Backup and restore"): a backup taken WHILE the server runs and requests
 * write (through the server's admin socket), restored into a new data directory where a server
 * starts and serves the same account, project and key; the restored state is one the server was
 * in (each rename and its event together). A non-empty data directory and a corrupted file are
 * refused with nothing changed; with no server running the command backs up directly.
 */
import { PGlite } from "@electric-sql/pglite"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { bootstrapOf, cliEnv, runCli, startServer, stopServer } from "../support/CliProcess.js"

const root = mkdtempSync(join(tmpdir(), "switchboard-backup-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const original = join(root, "original")
const file = join(root, "backups", "switchboard.backup")
/** PNG bytes: the magic number, then filler. */
const picture = new Uint8Array(4096).fill(0x42)
picture.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
/** A URL of the server's (on API_URL, its own origin when it started) on the origin `base`. */
const local = (url: string, base: string) => url.replace(/^https?:\/\/[^/]+/, base)

describe("switchboard admin backup and restore", { timeout: 240_000 }, () => {
  it("a backup taken while the server runs and writes restores into a new data directory that serves the same data", async () => {
    const first = await startServer(cliEnv(original, { SECRET_KEY: undefined }), 90_000)
    const boot = bootstrapOf(first.output())!
    let n = 0
    const send = async (base: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${boot.serviceKey}`, "content-type": "application/json", "idempotency-key": `backup-${++n}` },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const json = await res.json() as Record<string, any>
      expect(res.status, JSON.stringify(json)).toBeLessThan(300)
      return json
    }
    let projectId = ""
    let pictureUrl = ""
    try {
      const org = await send(first.baseUrl, "POST", "/v1/organizations", { name: "Backed up" })
      const project = await send(first.baseUrl, "POST", `/v1/organizations/${org.organizationId}/projects`, { name: "Name 0", slug: "backed-up" })
      projectId = project.projectId as string
      // An uploaded file (DATA_DIR/blobs): the account's picture.
      const ticket = await send(first.baseUrl, "POST", "/v1/account/profile-picture/uploads", { contentType: "image/png" })
      const form = new FormData()
      for (const [k, v] of Object.entries(ticket.formFields as Record<string, string>)) form.append(k, v)
      form.append("file", new Blob([picture], { type: "image/png" }), "picture")
      const uploaded = await fetch(local(ticket.uploadUrl, first.baseUrl), { method: "POST", body: form })
      expect(uploaded.status, await uploaded.text()).toBe(204)
      pictureUrl = (await send(first.baseUrl, "PUT", "/v1/account/profile-picture", { uploadId: ticket.uploadId })).pictureUrl
      // Renames keep coming while the backup is taken: each commits the new name and its event together.
      let writing = true
      let renames = 0
      const writer = (async () => {
        while (writing) await send(first.baseUrl, "PATCH", `/v1/projects/${projectId}`, { name: `Name ${++renames}` })
      })()
      while (renames < 3) await new Promise((r) => setTimeout(r, 20))
      const backup = await runCli(["admin", "backup", file], cliEnv(original))
      const renamesAtBackup = renames
      writing = false
      await writer
      expect(backup.code, backup.stderr).toBe(0)
      expect(backup.stdout).toContain("through the running server")
      expect(backup.stdout).toContain("It holds the server secret")
      expect(renamesAtBackup).toBeGreaterThan(3)
      // The channel: a Unix-domain socket in the data directory, for its owner only.
      const socket = statSync(join(original, "admin.sock"))
      expect(socket.isSocket()).toBe(true)
      expect(socket.mode & 0o777).toBe(0o600)
    } finally {
      expect(await stopServer(first)).toBe(0)
    }
    expect(existsSync(join(original, "admin.sock"))).toBe(false)
    // The file: mode 0600, a manifest line, no temporary file left beside it.
    expect(statSync(file).mode & 0o077).toBe(0)
    expect(readdirSync(join(root, "backups"))).toEqual(["switchboard.backup"])
    const manifest = JSON.parse(readFileSync(file).subarray(0, readFileSync(file).indexOf(0x0a)).toString("utf8")) as Record<string, any>
    expect(manifest).toMatchObject({ format: "switchboard-backup", formatVersion: 1 })
    expect(manifest.schemaVersion).toBeGreaterThanOrEqual(160)
    expect(manifest.sections.map((s: { name: string }) => s.name.replace(/^blobs\/.*/, "blobs/…"))).toEqual(["pglite.tar.gz", "secret.key", "blobs/…"])
    expect(manifest.sections[0].sha256).toMatch(/^[0-9a-f]{64}$/)

    // Restored into a new data directory (that does not exist yet).
    const restored = join(root, "restored")
    const restore = await runCli(["admin", "restore", file], cliEnv(restored))
    expect(restore.code, restore.stderr).toBe(0)
    expect(restore.stdout).toContain(`into ${restored}`)
    expect(statSync(join(restored, "secret.key")).mode & 0o077).toBe(0)
    // A consistent state: as many rename events as the name the project has.
    const db = await PGlite.create(join(restored, "pglite"))
    let name: string
    try {
      name = (await db.query<{ name: string }>("select name from projects")).rows[0]!.name
      const events = (await db.query<{ n: number }>("select count(*)::int as n from events where type = 'project.updated'")).rows[0]!.n
      expect(name).toMatch(/^Name \d+$/)
      expect(events).toBe(Number(name.slice(5)))
    } finally {
      await db.close()
    }
    const second = await startServer(cliEnv(restored, { SECRET_KEY: undefined }), 90_000)
    try {
      // The same account's key, the same project.
      const got = await send(second.baseUrl, "GET", `/v1/projects/${projectId}`)
      expect(got.name).toBe(name)
      const served = await fetch(local(pictureUrl, second.baseUrl))
      expect(served.status).toBe(200)
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(picture)
      expect(second.output()).not.toContain("{\"bootstrap\"")
    } finally {
      expect(await stopServer(second)).toBe(0)
    }
  })

  it("refuses a data directory that is not empty and a corrupted file, changing nothing; backs up directly when no server runs", async () => {
    // The server of the first test is stopped: the command opens the database itself.
    const direct = join(root, "direct.backup")
    const backup = await runCli(["admin", "backup", direct], cliEnv(original))
    expect(backup.code, backup.stderr).toBe(0)
    expect(backup.stdout).toContain("directly (no server running)")

    const full = mkdtempSync(join(root, "full-"))
    writeFileSync(join(full, "notes.txt"), "mine")
    const refused = await runCli(["admin", "restore", direct], cliEnv(full))
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim()).toBe(
      `switchboard: cannot restore: DATA_DIR ${full} is not empty (it holds notes.txt); restore into a new, empty data directory; nothing changed`
    )
    expect(readdirSync(full)).toEqual(["notes.txt"])

    const corrupted = join(root, "corrupted.backup")
    const bytes = readFileSync(direct)
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff
    writeFileSync(corrupted, bytes)
    const target = join(root, "never")
    const bad = await runCli(["admin", "restore", corrupted], cliEnv(target))
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("is corrupted: the checksum of section")
    expect(existsSync(target)).toBe(false)

    const truncated = join(root, "truncated.backup")
    const intact = readFileSync(direct)
    writeFileSync(truncated, intact.subarray(0, intact.length - 10))
    const short = await runCli(["admin", "restore", truncated], cliEnv(target))
    expect(short.code).toBe(1)
    expect(short.stderr).toContain("is truncated")
    expect(existsSync(target)).toBe(false)

    const usage = await runCli(["admin", "restore"], cliEnv(target))
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain("restore takes one argument, the backup file")
  })
})
