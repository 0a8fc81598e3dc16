/**
 * The deadline step (REQUEST_TIMEOUT_MS): past it, the request answers 504 REQUEST_TIMEOUT with
 * `Retry-After` at once and its work is interrupted — work stuck where it cannot be interrupted (a
 * frozen database) must not hold the answer too. Either way the work's exit comes back to the
 * pipeline, so its failures are rendered like any other.
 * - Served by Node: a timer writes the answer on the Node response itself (`onDeadline`) and
 *   interrupts the request's fiber. No fiber is forked per request for this: a fork, its
 *   fiber-local copies and an async resume cost ~20 µs on every request.
 * - Otherwise (a web handler): the work runs in a fiber of its own (`withDeadline`).
 * The in-flight counter is counted out by the same observer of the request's fiber.
 */
import type { HttpServerResponse } from "effect/http"
import { Cause, type Context, Effect, Exit, type Fiber } from "effect"
import { problem, type ProblemFailure } from "../../v1/ProblemFailure.js"
import type { Failures } from "./Failures.js"
import type { Respond } from "./Respond.js"
import type { Served } from "./Served.js"

/**
 * Runs `work` (which never fails) with a deadline and hands its exit to `answer`, with the context
 * of the work's fiber (the route it matched): past `ms`, `answer` gets a failed exit with
 * `onTimeout()` at once and the work is interrupted in the background. One forked fiber and one
 * timer per request (cheaper than a race of fibers). The work's pre-response handlers (the
 * management API's headers) need no copying back: they live in the request's state, which the
 * forked fiber shares through its context.
 */
const withDeadline = <A, E, R>(
  work: Effect.Effect<Exit.Exit<A, E>, never, R>,
  ms: number,
  onTimeout: () => ProblemFailure,
  answer: (exit: Exit.Exit<A, E | ProblemFailure>, context: Context.Context<never>) => Effect.Effect<A>
): Effect.Effect<A, never, R> =>
  Effect.flatMap(Effect.forkChild(Effect.interruptible(work)), (fiber) =>
    Effect.callback<A>((resume) => {
      let done = false
      const timer = setTimeout(() => {
        if (done) return
        done = true
        fiber.interruptUnsafe()
        resume(answer(Exit.fail(onTimeout()), fiber.context))
      }, ms)
      fiber.addObserver((exit) => {
        clearTimeout(timer)
        if (done) return
        done = true
        // The work's fiber's context: the route it matched (its count, RequestCounts.ts).
        resume(Exit.isFailure(exit) ? Effect.failCause(exit.cause) : answer(exit.value, fiber.context))
      })
      return Effect.sync(() => clearTimeout(timer))
    }))

/**
 * The step: `work` (the rest of the pipeline) under the deadline, answered by `respond`; `leave`
 * runs when the request's fiber ends.
 */
export const makeDeadline = (requestTimeoutMs: number, failures: Failures, { finish, respond }: Respond) => {
  const timeoutProblem = () =>
    problem("REQUEST_TIMEOUT", `The request did not finish within ${requestTimeoutMs} ms; retry shortly.`, {
      headers: { "retry-after": "1" }
    })

  /**
   * Past the deadline of a request served by Node: the answer goes on the Node response at once,
   * is logged like any failure, and the request's fiber is interrupted.
   */
  const onDeadline = (served: Served, fiber: Fiber.Fiber<unknown, unknown>) => {
    const node = served.node!
    if (served.settled || node.headersSent || node.writableEnded || node.destroyed) return
    served.timedOut = true
    const p = timeoutProblem()
    const response = finish(served, failures.render(served, p), fiber.context)
    node.writeHead(response.status, { ...response.headers })
    node.end(response.body._tag === "Uint8Array" ? response.body.body : undefined)
    Effect.runForkWith(fiber.context)(failures.logFailure(served, "warning", "request deadline passed", Cause.fail(p), response.status))
    fiber.interruptUnsafe(fiber.id)
  }

  return <R>(
    served: Served,
    fiber: Fiber.Fiber<unknown, unknown>,
    work: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>,
    leave: () => void
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> => {
    if (served.node !== undefined) {
      const timer = setTimeout(onDeadline, requestTimeoutMs, served, fiber)
      fiber.addObserver(() => {
        clearTimeout(timer)
        leave()
      })
      // The platform runs a request uninterruptibly but for its route's handler; the whole work
      // may be interrupted here (the deadline passed, or the client went away).
      // The fiber's context still holds the route the router matched (its count, RequestCounts.ts).
      return Effect.flatMap(Effect.exit(Effect.interruptible(work)), (exit) => respond(served, exit, fiber.context))
    }
    fiber.addObserver(leave)
    return withDeadline(Effect.exit(work), requestTimeoutMs, timeoutProblem, (exit, context) => respond(served, exit, context))
  }
}
