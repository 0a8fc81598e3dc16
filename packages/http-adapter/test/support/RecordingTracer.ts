/**
 * A tracer for tests that records every span it makes (Effect's native spans): the span, the
 * options it was made with, and its exit once it ends.
 */
import type { Exit } from "effect"
import { Tracer } from "effect"

export interface RecordedSpan {
  readonly span: Tracer.Span
  readonly options: Parameters<Tracer.Tracer["span"]>[0]
  readonly name: string
  readonly kind: string
  readonly sampled: boolean
  readonly attributes: ReadonlyMap<string, unknown>
  exit?: Exit.Exit<unknown, unknown>
}

export const recordingTracer = () => {
  const spans: Array<RecordedSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = Tracer.nativeTracer.span(options)
      const record: RecordedSpan = { span, options, name: options.name, kind: options.kind, sampled: options.sampled, attributes: span.attributes }
      spans.push(record)
      const end = span.end.bind(span)
      span.end = (endTime, exit) => {
        record.exit = exit
        end(endTime, exit)
      }
      return span
    }
  })
  return { spans, tracer }
}
