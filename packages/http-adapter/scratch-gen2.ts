const { v1OperationSchemas } = await import("./src/docs/OpenApiDocument.js")
const { exampleOf } = await import("./src/docs/Examples.js")
for (const [id, s] of v1OperationSchemas()) { console.error("BEGIN", id)
  for (const [ct, p] of s.payloads) { const t = Date.now(); const e = exampleOf(p); console.error(id, "req", ct, Date.now() - t, JSON.stringify(e)?.slice(0, 150)) }
  for (const [st, p] of s.successes) { const t = Date.now(); const e = exampleOf(p); console.error(id, st, Date.now() - t, JSON.stringify(e)?.slice(0, 150)) }
}
