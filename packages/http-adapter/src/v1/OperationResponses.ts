/** The answer of every provisioning request (issue 18): 202 with the operation, `Location` (where to poll) and `Retry-After`. */
import { Operation } from "@switchboard/core/platforms"
import { rendered } from "./Pipeline.js"

/** Seconds between polls of an unfinished operation. */
export const POLL_SECONDS = "2"
export const noStore = { "cache-control": "no-store" }

export const operationUrl = (apiUrl: string, projectId: string, operationId: string) =>
  `${apiUrl}/v1/projects/${projectId}/platforms/operations/${operationId}`

export const acceptedOperation = (apiUrl: string, projectId: string, op: Operation) =>
  rendered(Operation, op, 202, { location: operationUrl(apiUrl, projectId, op.operationId), "retry-after": POLL_SECONDS, ...noStore })
