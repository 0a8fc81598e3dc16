import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import * as fc from "fast-check"
import { coerceFormFields, decodeBodyAs, fieldsToRecord } from "../../src/routes/DashboardBody.js"

const Body = Schema.Struct({
  flag: Schema.Boolean,
  count: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: -1000, maximum: 1000 }))),
  tags: Schema.Array(Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(10)))),
  note: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.check(Schema.isMinLength(1))))),
  name: Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(20)))
})

/** How a browser form would send a value of `Body`: strings, a list as repeated fields, null as empty. */
const asFormFields = (v: typeof Body.Type): Array<readonly [string, string]> => [
  ["flag", String(v.flag)],
  ["count", String(v.count)],
  ...(v.tags.length === 0 ? [["tags", ""] as const] : v.tags.map((t) => ["tags[]", t] as const)),
  ...(v.note === undefined ? [] : [["note", v.note ?? ""] as const]),
  ["name", v.name]
]

describe("the Dashboard body decoder", () => {
  it("groups repeated and [] fields into lists", () => {
    expect(fieldsToRecord([["a", "1"], ["b[]", "x"], ["a", "2"], ["c", "3"]])).toEqual({ a: ["1", "2"], b: ["x"], c: "3" })
  })

  it("coerces form strings by what the schema expects, and leaves JSON alone", () => {
    expect(coerceFormFields(Body.ast, { flag: "on", count: "-7", tags: "", note: "", name: "n" })).toEqual({
      flag: true,
      count: -7,
      tags: [],
      note: null,
      name: "n"
    })
    expect(coerceFormFields(Body.ast, { tags: "[\"a\",\"b\"]" })).toEqual({ tags: ["a", "b"] })
    expect(coerceFormFields(Body.ast, { tags: "solo", flag: "maybe", other: "x" })).toEqual({ tags: ["solo"], flag: "maybe", other: "x" })
    // JSON bodies are not coerced: "true" is not a boolean there.
    const json = Effect.runSync(Effect.result(decodeBodyAs(Body, { kind: "json", value: { flag: "true", count: 1, tags: [], name: "x" }, csrf: undefined })))
    expect(Result.isFailure(json) && json.failure.status).toBe(422)
    expect(Result.isFailure(json) && json.failure.message).toContain("flag")
  })

  it.prop("a value sent as form fields decodes to the same value as sent as JSON", { value: Body }, ({ value }) => {
    const form = Effect.runSync(decodeBodyAs(Body, { kind: "form", value: fieldsToRecord(asFormFields(value)), csrf: undefined }))
    const json = Effect.runSync(decodeBodyAs(Body, { kind: "json", value: Schema.encodeSync(Body)(value), csrf: undefined }))
    expect(form).toEqual(json)
    expect(form).toEqual(value)
  }, { arbitrary: { runs: 200 } })

  it("refuses unknown properties and names every wrong field", () => {
    const r = Effect.runSync(Effect.result(decodeBodyAs(Body, { kind: "form", value: { flag: "x", count: "1.5", tags: "", name: "", extra: "1" }, csrf: undefined })))
    expect(Result.isFailure(r)).toBe(true)
    const message = Result.isFailure(r) ? r.failure.message : ""
    for (const field of ["flag", "count", "name", "extra"]) expect(message).toContain(field)
  })

  it("property: form coercion never throws on arbitrary fields", () => {
    fc.assert(fc.property(
      fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }))),
      (record) => {
        const out = Effect.runSync(Effect.result(decodeBodyAs(Body, { kind: "multipart", value: record, csrf: undefined })))
        expect(Result.isFailure(out) ? out.failure.status : 200).toBeOneOf([200, 422])
      }
    ), { numRuns: 200 })
  })
})
