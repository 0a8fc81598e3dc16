/**
 * Project slugs (docs/api-notes/accounts-and-projects.md): pure rules. A slug is 3..63 lower-case
 * letters and digits in hyphen-separated runs, unique across the service for ever (a deleted
 * project's slug is retired, never reused), and not one of the reserved words below. When one is
 * unavailable we suggest `<base>-<n>`, the first free number (contract example:
 * `example-project-2`).
 */

export const SLUG_MIN_LENGTH = 3
export const SLUG_MAX_LENGTH = 63

const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/** Whether a string has the slug shape (any length). */
export const hasSlugShape = (s: string): boolean => slugPattern.test(s)

/**
 * Words that would read as the service's own pages or surfaces in a URL, or are easily confused
 * with them. Words shorter than three characters (`sb`, `id`) are listed for documentation only:
 * they are too short anyway.
 */
export const reservedSlugs: ReadonlySet<string> = new Set([
  "about", "account", "accounts", "admin", "administrator", "api", "app", "apps", "assets", "auth",
  "billing", "blog", "cdn", "console", "dashboard", "default", "docs", "help", "internal", "login",
  "logout", "mail", "me", "new", "null", "oauth", "openapi", "organization", "organizations", "problems",
  "project", "projects", "root", "sb", "security", "settings", "signin", "signup", "spectrum", "static",
  "status", "support", "switchboard", "system", "undefined", "v1", "webhooks", "www"
])

export const isReservedSlug = (slug: string): boolean => reservedSlugs.has(slug)

/**
 * The base and the first number to try: `foo-2` continues at `foo-3`, `foo` starts at `foo-2`.
 * A trailing number counts only when something precedes it (`2024` stays the base `2024`).
 */
export const suggestionBase = (slug: string): { readonly base: string; readonly next: number } => {
  const m = /^(.*[a-z0-9])-(\d{1,6})$/.exec(slug)
  return m !== null ? { base: m[1]!, next: Number(m[2]) + 1 } : { base: slug, next: 2 }
}

/** `<base>-<suffix>`, with the base cut so the whole stays within 63 characters and well-formed. */
export const withSuffix = (base: string, suffix: string): string => {
  const room = SLUG_MAX_LENGTH - suffix.length - 1
  const cut = base.slice(0, Math.max(1, room)).replace(/-+$/, "")
  return `${cut}-${suffix}`
}

/** `count` numbered candidates from `from` on, leaving out reserved words. */
export const numberedCandidates = (slug: string, from: number, count: number): ReadonlyArray<string> => {
  const { base } = suggestionBase(slug)
  const out: Array<string> = []
  for (let n = from; n < from + count; n++) {
    const candidate = withSuffix(base, String(n))
    if (!isReservedSlug(candidate) && candidate !== slug) out.push(candidate)
  }
  return out
}

/** Why a slug (already of the right shape) cannot be had, from what holds it; undefined when free. */
export type SlugHolder = "active" | "retired"

export const unavailableReason = (
  slug: string,
  holder: SlugHolder | undefined
): "too_short" | "reserved" | "retired" | "taken" | undefined => {
  if (slug.length < SLUG_MIN_LENGTH) return "too_short"
  if (isReservedSlug(slug)) return "reserved"
  if (holder === "retired") return "retired"
  if (holder === "active") return "taken"
  return undefined
}
