/**
 * This package's version (all four packages share one, CHANGELOG.md): what `/api/health` reports
 * and what each OpenAPI document's `info.version` says. A constant, not a read of package.json, so
 * the typed client (which shares the API declarations) bundles for a browser;
 * test/docs/ApiReference.test.ts fails when it differs from package.json's `version`.
 */
export const packageVersion: string = "0.1.0"

/** The licence the documents state (the package's). */
export const documentLicense = { name: "Apache-2.0", identifier: "Apache-2.0" } as const
