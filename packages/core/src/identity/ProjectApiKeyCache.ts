/** Verified project API keys kept in memory for a short while: a `TtlCache` (shared/TtlCache.ts). */
export { makeTtlCache as makeProjectApiKeyCache, type TtlCache as ProjectApiKeyCache } from "../shared/TtlCache.js"
