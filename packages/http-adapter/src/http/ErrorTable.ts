/**
 * Error tables (docs/architecture.md#rules-of-the-road): what a surface says for each core error,
 * one row per error tag, typed against the core error union it covers. A core error without a row
 * in a table typed against its union is a compile error, and each row receives its own error type
 * (no casts).
 *
 * This module imports no table, so the tables (`v1/*Errors.ts`, `routes/*Errors.ts`) and the
 * modules that assemble them (`v1/Problems.ts`, …) never import each other in a cycle.
 */

/** A tagged error (`Schema.TaggedError`, `Data.TaggedError`). */
export interface Tagged {
  readonly _tag: string
}

/** One row per tag of `E`, each receiving the error of its tag: a missing row is a compile error. */
export type ErrorTableOf<E extends Tagged, Out> = {
  readonly [K in E["_tag"]]: (e: Extract<E, { readonly _tag: K }>) => Out
}

/** Rows for some tags of `E` only: the places where a surface says something else than a shared table. */
export type PartialErrorTableOf<E extends Tagged, Out> = {
  readonly [K in E["_tag"]]?: (e: Extract<E, { readonly _tag: K }>) => Out
}

/** The row of `e`'s tag in `table`, if it has one (the one lookup every surface uses). */
export const rowOf = <E extends Tagged, Out>(
  table: PartialErrorTableOf<E, Out>,
  e: E
): ((e: E) => Out) | undefined => {
  if (!Object.hasOwn(table, e._tag)) return undefined
  // The mapped type pairs each tag with a row for that tag's error; TypeScript cannot follow the
  // pairing through an index by `e._tag`, so the row is widened here, once, for every table.
  const row: unknown = table[e._tag as E["_tag"]]
  return row as (e: E) => Out
}

/** `e` through its row of a complete table. */
export const applyRow = <E extends Tagged, Out>(table: ErrorTableOf<E, Out>, e: E): Out => {
  const row = rowOf<E, Out>(table, e)
  // Unreachable while `e` is an `E`: the table has a row for every tag of `E`.
  if (row === undefined) throw new Error(`No row for the error tag ${e._tag}`)
  return row(e)
}

/** Whether a value is a tagged error (what reaches a table at runtime). */
export const isTagged = (e: unknown): e is Tagged =>
  typeof e === "object" && e !== null && typeof (e as { readonly _tag?: unknown })._tag === "string"
