/**
 * This package's version, read from its package.json: what `/api/health` reports and what each
 * OpenAPI document's `info.version` says. `0.0.0` when the file cannot be read (a bundle without it).
 */
import { readFileSync } from "node:fs"

export const packageVersion: string = (() => {
  try {
    return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version
  } catch {
    return "0.0.0"
  }
})()

/** The licence the documents state (the package's). */
export const documentLicense = { name: "Apache-2.0", identifier: "Apache-2.0" } as const
