type Json = Record<string, any>

/**
 * Effect writes its built-in schemas with an `$id` wherever they occur — `Schema.Never` (a call
 * timestamp a status cannot have yet) as `{ $id: "/schemas/never", not: {} }`, `Schema.Unknown` as
 * `{ $id: "/schemas/unknown" }`; an `$id` names one schema, so a document repeating it cannot be
 * resolved (Redocly could not check the examples holding one). The rest of each says the same without it.
 */
const dropBuiltinIds = (value: unknown): void => {
  if (typeof value !== "object" || value === null) return
  if (Array.isArray(value)) return value.forEach(dropBuiltinIds)
  const o = value as Json
  if (typeof o.$id === "string" && o.$id.startsWith("/schemas/")) delete o.$id
  for (const child of Object.values(o)) dropBuiltinIds(child)
}

/** The document, without the `$id`s of Effect's built-in schemas (changed in place). */
export const withoutBuiltinIds = <A>(document: A): A => {
  dropBuiltinIds(document)
  return document
}
