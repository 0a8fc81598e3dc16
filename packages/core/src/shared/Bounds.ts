/** Numeric and string bounds shared by every context (docs/api-notes/requests.md). */
import { Schema } from "effect"

/** ±9007199254740991: the integer range of every billing field (docs/api-notes/requests.md). */
export const MAX_SAFE = Number.MAX_SAFE_INTEGER

/** An integer within ±9007199254740991. */
export const SafeInt = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: -MAX_SAFE, maximum: MAX_SAFE }))).annotate({ identifier: "SafeInt" })
/** An integer in 0..9007199254740991. */
export const NonNegativeSafeInt = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: MAX_SAFE }))).annotate({
  identifier: "NonNegativeSafeInt"
})
/** An integer in 1..9007199254740991 (`int+` in the contract). */
export const PositiveSafeInt = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: MAX_SAFE }))).annotate({ identifier: "PositiveSafeInt" })

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Text every store can hold: no U+0000 (PostgreSQL text refuses it) and no lone UTF-16 surrogate
 * (not representable in UTF-8). One rule for every string field; the HTTP edge applies the same
 * rule to whole bodies, queries and paths before decoding.
 */
export const isStorableText = (s: string): boolean => !s.includes("\u0000") && !loneSurrogate.test(s)

/** A string of `min..max` characters of storable text. */
export const BoundedString = (min: number, max: number) =>
  Schema.String.pipe(
    Schema.check(Schema.isMinLength(min)),
    Schema.check(Schema.isMaxLength(max)),
    Schema.check(Schema.makeFilter(isStorableText, { message: "must not contain U+0000 or a lone UTF-16 surrogate", toJsonSchema: () => ({}) }))
  )

/** Email's local part and domain (a JavaScript pattern that JSON Schema can carry too: the `u` flag). */
const emailPattern = /^(?!\.)(?!.*\.\.)[A-Za-z0-9_'+\-.]*[A-Za-z0-9_+-]@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/u

/**
 * Email: at most 254 characters; the contract's local-part rule, and a domain of one or more DNS
 * labels — a single label is allowed because the server's default bootstrap address is
 * `admin@localhost` (the contract's own pattern would require a top-level domain).
 */
export const Email = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(254)),
  Schema.check(Schema.isPattern(emailPattern, {
    message: "must be an email address",
    toJsonSchema: () => ({ pattern: emailPattern.source, format: "email" })
  }))
).annotate({ identifier: "Email" })
export type Email = typeof Email.Type
