/**
 * `fn("Service.method")(function*() { … })`: a service method that is traced as a span while a
 * tracer is on (`Effect.fn`) and costs nothing extra while it is off (`Effect.fnUntraced`). The
 * standalone server turns the tracer off when no exporter is configured
 * (docs/architecture.md#hot-paths), and `Effect.fn` would still capture a call-site stack and copy
 * the fiber's context for a no-op span on every call — on hot paths (credential checks, cached
 * reads) that was a measurable share of a request. The tracer switch is read per call, so a host
 * that enables tracing gets its spans.
 */
import { Effect, References } from "effect"

export const fn: (name: string) => typeof Effect.fnUntraced = (name) =>
  ((body: (...args: Array<any>) => Generator<any, any, any>, ...pipeables: Array<any>) => {
    const traced = (Effect.fn(name) as any)(body, ...pipeables)
    const untraced = (Effect.fnUntraced as any)(body, ...pipeables)
    return Object.defineProperty(function(this: unknown, ...args: Array<unknown>) {
      return Effect.flatMap(References.TracerEnabled, (on) => (on ? traced : untraced).apply(this, args))
    }, "length", { value: body.length, configurable: true })
  }) as any
