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
import { HttpApp } from "@effect/platform"
import { Cause, Effect, Exit, Fiber, FiberRef, Option, Runtime } from "effect"
import { problem, type ProblemFailure } from "../../v1/ProblemFailure.js"
import type { Failures } from "./Failures.js"
import type { Respond } from "./Respond.js"
import type { Served } from "./Served.js"

/**
 * Runs `work` (which never fails) with a deadline: past `ms`, the caller gets a failed exit with
 * `onTimeout()` at once and the work is interrupted in the background. One forked fiber and one
 * timer per request (cheaper than a race of fibers); the work's pre-response handlers (the
 * management API's headers) come back to the caller when it finishes.
 */
const withDeadline = <A, E, R>(
  work: Effect.Effect<Exit.Exit<A, E>, never, R>,
  ms: number,
  onTimeout: () => ProblemFailure
): Effect.Effect<Exit.Exit<A, E | ProblemFailure>, never, R> =>
  Effect.flatMap(Effect.fork(Effect.interruptible(work)), (fiber) =>
    Effect.async<Exit.Exit<A, E | ProblemFailure>>((resume) => {
      let done = false
      const timer = setTimeout(() => {
        if (done) return
        done = true
        resume(Effect.as(Fiber.interruptFork(fiber), Exit.fail(onTimeout())))
      }, ms)
      fiber.addObserver((exit) => {
        clearTimeout(timer)
        if (done) return
        done = true
        if (Exit.isFailure(exit)) return resume(Effect.failCause(exit.cause as Cause.Cause<never>))
        // Only the pre-response handlers come back (a full join diffs every fiber-local value).
        const handlers = fiber.getFiberRef(HttpApp.currentPreResponseHandlers)
        resume(Option.isNone(handlers) ? Effect.succeed(exit.value) : Effect.as(FiberRef.set(HttpApp.currentPreResponseHandlers, handlers), exit.value))
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
  const onDeadline = (served: Served, fiber: Fiber.RuntimeFiber<unknown, unknown>) => {
    const node = served.node!
    if (served.settled || node.headersSent || node.writableEnded || node.destroyed) return
    served.timedOut = true
    const p = timeoutProblem()
    const response = finish(served, failures.render(served, p))
    node.writeHead(response.status, { ...response.headers })
    node.end(response.body._tag === "Uint8Array" ? response.body.body : undefined)
    const runtime = Runtime.make({ context: fiber.currentContext, fiberRefs: fiber.getFiberRefs(), runtimeFlags: Runtime.defaultRuntimeFlags })
    Runtime.runFork(runtime)(failures.logFailure(served, "warning", "request deadline passed", Cause.fail(p), response.status))
    fiber.unsafeInterruptAsFork(fiber.id())
  }

  return (
    served: Served,
    fiber: Fiber.RuntimeFiber<unknown, unknown>,
    work: HttpApp.Default<unknown>,
    leave: () => void
  ): HttpApp.Default => {
    if (served.node !== undefined) {
      const timer = setTimeout(onDeadline, requestTimeoutMs, served, fiber)
      fiber.addObserver(() => {
        clearTimeout(timer)
        leave()
      })
      return Effect.flatMap(Effect.exit(work), (exit) => respond(served, exit))
    }
    fiber.addObserver(leave)
    return Effect.flatMap(withDeadline(Effect.exit(work), requestTimeoutMs, timeoutProblem), (exit) => respond(served, exit))
  }
}
