/**
 * Backups of the embedded database (docs/operations.md, "Backup and restore"). A backup file is
 * one line of JSON — the manifest: format, Switchboard and schema versions, when it was made, and
 * each section's size and SHA-256 — followed by the sections' bytes: the PGlite data directory as
 * a gzipped tar (PGlite's `dumpDataDir`, taken after a CHECKPOINT between two statements, see
 * PgliteWorker.mjs), the generated server secret `DATA_DIR/secret.key` (unless SECRET_KEY is set)
 * and the uploaded files of `DATA_DIR/blobs`.
 * It is written to a temporary file beside its destination, synced and renamed into place, so a
 * crash never leaves half a backup under the final name.
 */
import { PGlite } from "@electric-sql/pglite"
import { Data } from "effect"
import { createHash } from "node:crypto"
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { MIGRATIONS_TABLE } from "./Migrations.js"
import { pgliteParsers } from "./PgliteClient.js"

export { dumpEmbedded } from "./PgliteClient.js"

/** The first bytes of every backup file. */
export const BACKUP_FORMAT = "switchboard-backup"

export interface BackupSection {
  /** `pglite.tar.gz` (the data directory), `secret.key`, or `blobs/<key>` (an uploaded file). */
  readonly name: string
  readonly bytes: number
  readonly sha256: string
}

export interface BackupManifest {
  readonly format: typeof BACKUP_FORMAT
  readonly formatVersion: 1
  readonly switchboardVersion: string
  readonly schemaVersion: number
  readonly createdAt: string
  readonly sections: ReadonlyArray<BackupSection>
}

/** A backup file that cannot be used: unreadable, not a backup, truncated, or its checksum does not match. */
export class BackupInvalid extends Data.TaggedError("BackupInvalid")<{ readonly message: string }> {}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/**
 * Writes a backup of `sections` to `file` atomically (a temporary file beside it, synced, renamed
 * into place), mode 0600: it holds everything the data directory holds. Returns its manifest.
 */
export const writeBackupFile = (
  file: string,
  meta: { readonly switchboardVersion: string; readonly schemaVersion: number },
  sections: ReadonlyArray<{ readonly name: string; readonly data: Uint8Array }>
): BackupManifest => {
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    formatVersion: 1,
    switchboardVersion: meta.switchboardVersion,
    schemaVersion: meta.schemaVersion,
    createdAt: new Date().toISOString(),
    sections: sections.map((s) => ({ name: s.name, bytes: s.data.length, sha256: sha256(s.data) }))
  }
  mkdirSync(dirname(file), { recursive: true })
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`)
  const fd = openSync(tmp, "w", 0o600)
  try {
    writeSync(fd, `${JSON.stringify(manifest)}\n`)
    for (const s of sections) writeSync(fd, s.data)
    fsyncSync(fd)
  } catch (e) {
    closeSync(fd)
    rmSync(tmp, { force: true })
    throw e
  }
  closeSync(fd)
  try {
    renameSync(tmp, file)
  } catch (e) {
    rmSync(tmp, { force: true })
    throw e
  }
  try {
    const dir = openSync(dirname(file), "r")
    fsyncSync(dir)
    closeSync(dir)
  } catch {
    // a directory that cannot be synced (some file systems): the rename is still atomic
  }
  return manifest
}

/** Reads and checks a backup file: its manifest and each section, every size and SHA-256 verified. */
export const readBackupFile = (file: string): { readonly manifest: BackupManifest; readonly sections: ReadonlyMap<string, Uint8Array> } => {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch (e) {
    throw new BackupInvalid({ message: `cannot read ${file}: ${(e as Error).message}` })
  }
  const newline = bytes.indexOf(0x0a)
  let manifest: BackupManifest
  try {
    if (newline < 0 || newline > 64 * 1024) throw new Error("no manifest")
    manifest = JSON.parse(bytes.subarray(0, newline).toString("utf8")) as BackupManifest
    if (manifest.format !== BACKUP_FORMAT || !Array.isArray(manifest.sections)) throw new Error("not a backup")
  } catch {
    throw new BackupInvalid({ message: `${file} is not a Switchboard backup (no manifest line)` })
  }
  if (manifest.formatVersion !== 1) {
    throw new BackupInvalid({ message: `${file} is a backup of format ${manifest.formatVersion}: restore it with the Switchboard that made it` })
  }
  const sections = new Map<string, Uint8Array>()
  let at = newline + 1
  for (const s of manifest.sections) {
    const data = bytes.subarray(at, at + s.bytes)
    if (data.length !== s.bytes) throw new BackupInvalid({ message: `${file} is truncated: section ${s.name} has ${data.length} of its ${s.bytes} bytes` })
    if (sha256(data) !== s.sha256) throw new BackupInvalid({ message: `${file} is corrupted: the checksum of section ${s.name} does not match` })
    sections.set(s.name, data)
    at += s.bytes
  }
  if (at !== bytes.length) throw new BackupInvalid({ message: `${file} is corrupted: ${bytes.length - at} bytes after its last section` })
  if (!sections.has(PGLITE_SECTION)) throw new BackupInvalid({ message: `${file} holds no database (section ${PGLITE_SECTION})` })
  return { manifest, sections }
}

/** The section that holds the data directory. */
export const PGLITE_SECTION = "pglite.tar.gz"
/** The section that holds `DATA_DIR/secret.key`. */
export const SECRET_SECTION = "secret.key"

/** The schema version of an open PGlite (0 without migrations). */
export const pgliteSchemaVersion = async (db: PGlite): Promise<number> => {
  const found = (await db.query<{ found: boolean }>(`select to_regclass('${MIGRATIONS_TABLE}') is not null as found`)).rows[0]?.found === true
  if (!found) return 0
  return (await db.query<{ version: number | null }>(`select max(migration_id) as version from ${MIGRATIONS_TABLE}`)).rows[0]?.version ?? 0
}

/** A consistent dump of a PGlite this process opened (and locked): CHECKPOINT, then its data directory as a gzipped tar. */
export const dumpPglite = async (db: PGlite): Promise<Uint8Array> => {
  await db.exec("CHECKPOINT")
  return new Uint8Array(await (await db.dumpDataDir("gzip")).arrayBuffer())
}

/**
 * Makes `dataDir` (which must not exist) from a dump: unpacked by PGlite into a directory beside
 * it, opened once (so it is known to start), then renamed into place. Returns its schema version.
 */
export const restorePglite = async (dataDir: string, dump: Uint8Array): Promise<number> => {
  if (existsSync(dataDir)) throw new Error(`${dataDir} exists`)
  mkdirSync(dirname(dataDir), { recursive: true })
  const staging = join(dirname(dataDir), `${basename(dataDir)}.restore-${process.pid}`)
  rmSync(staging, { recursive: true, force: true })
  try {
    const db = await PGlite.create(staging, { loadDataDir: new Blob([dump as Uint8Array<ArrayBuffer>]), parsers: pgliteParsers })
    let version: number
    try {
      version = await pgliteSchemaVersion(db)
    } finally {
      await db.close()
    }
    renameSync(staging, dataDir)
    return version
  } catch (e) {
    rmSync(staging, { recursive: true, force: true })
    throw e
  }
}
