/**
 * Helpers core shares with the adapters — encodings, hashing, the TTL cache, traced-or-not service
 * methods. Not part of the domain API: they are not in any context's namespace, and may change
 * with the packages that use them.
 */
export * from "./Crypto.js"
export * from "./Sha256.js"
export * from "./Traced.js"
export * from "./TtlCache.js"
export * from "./CauseSummary.js"
export * from "./Settings.js"
export * from "./AstRewrite.js"
