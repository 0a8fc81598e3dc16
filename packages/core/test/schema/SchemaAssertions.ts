/** Assertions every schema test shares: decode, reject, round-trip, required keys, extra properties. */
import { Result, Schema } from "effect"
import { expect } from "vitest"
import { formatTypeId, formatUuid, type IdKind, uuidv7Bytes } from "../../src/shared/Identifiers.js"
import { issueTree } from "../../src/shared/SchemaIssues.js"

export const decode = <A, I>(schema: Schema.Codec<A, I>, input: unknown, options?: { readonly onExcessProperty: "error" }) =>
  Schema.decodeUnknownResult(schema)(input, options)

/** Decodes or fails the test with the parse error. */
export const accepts = <A, I>(schema: Schema.Codec<A, I>, input: unknown): A =>
  Result.getOrThrowWith(decode(schema, input), (e) => new Error(issueTree(e)))

/** Decoded with `onExcessProperty: "error"` (for schemas that forbid extras). */
export const acceptsStrict = <A, I>(schema: Schema.Codec<A, I>, input: unknown): A =>
  Result.getOrThrowWith(
    decode(schema, input, { onExcessProperty: "error" }),
    (e) => new Error(issueTree(e))
  )

/** Expects a decode failure; returns its message for further checks. */
export const rejects = <A, I>(schema: Schema.Codec<A, I>, input: unknown): string => {
  const result = decode(schema, input)
  if (Result.isSuccess(result)) throw new Error(`expected a rejection of ${JSON.stringify(input)}`)
  return issueTree(result.failure)
}

/** An unknown property is rejected, with and without `onExcessProperty: "error"`. */
export const rejectsExtra = <A, I>(schema: Schema.Codec<A, I>, input: object): void => {
  const withExtra = { ...input, unexpected: true }
  expect(Result.isFailure(decode(schema, withExtra, { onExcessProperty: "error" }))).toBe(true)
  expect(Result.isFailure(decode(schema, withExtra))).toBe(true)
}

/** Decode then encode gives back the canonical input. */
export const roundTrips = <A, I>(schema: Schema.Codec<A, I>, input: unknown): void => {
  const encoded = Schema.encodeResult(schema)(accepts(schema, input))
  if (Result.isFailure(encoded)) throw new Error(issueTree(encoded.failure))
  expect(encoded.success).toStrictEqual(input)
}

/** Removing any one of `keys` makes the input invalid. */
export const requiresEach = <A, I>(schema: Schema.Codec<A, I>, input: Record<string, unknown>, keys: ReadonlyArray<string>) => {
  for (const key of keys) {
    const { [key]: _, ...without } = input
    rejects(schema, without)
  }
}

export const T0 = Date.UTC(2030, 0, 1)
/** A deterministic id of a kind; `n` varies it. */
export const typeId = (kind: IdKind, n = 1) => formatTypeId(kind, uuidv7Bytes(T0 + n, new Uint8Array(10).fill(n)))
export const projectIdFixture = formatUuid(uuidv7Bytes(T0, new Uint8Array(10).fill(9)))
