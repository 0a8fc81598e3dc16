/** An example problem document of a code (what the OpenAPI documents show for an error response). */
import { makeProblem } from "../http/Problem.js"
import { type ProblemCode, problemEntry } from "../http/ProblemCatalog.js"

export const exampleRequestId = "req_01jbexample0000000000000000"

export const problemExample = (docsUrl: string, code: ProblemCode) =>
  makeProblem(docsUrl, code, {
    detail: problemEntry(code).title,
    requestId: exampleRequestId,
    ...(code === "VALIDATION_FAILED"
      ? { issues: [{ code: "too_big", location: "json", message: "must be at most 256 characters", path: "/name" }] }
      : {})
  })
