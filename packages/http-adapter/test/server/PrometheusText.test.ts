/**
 * The strict Prometheus text parser of test/support/PrometheusText.ts, on its own: a well-formed
 * exposition (escapes, special values, timestamps, a histogram) read back exactly, and each kind of
 * malformed input refused with the line it is on.
 */
import { describe, expect, it } from "vitest"
import { parsePrometheusText, samplesOf } from "../support/PrometheusText.js"

const good = [
  "# A comment line",
  "# HELP http_requests_total Requests, with a backslash \\\\ and a newline \\n in the help.",
  "# TYPE http_requests_total counter",
  "http_requests_total{method=\"GET\",route=\"/v1/a\\\"b\\\\c\\nd\"} 3",
  "http_requests_total{method=\"POST\",route=\"/v1/a\"} 1.5e2 1700000000000",
  "",
  "# TYPE temperature gauge",
  "temperature -Inf",
  "temperature{where=\"in\"} NaN",
  "temperature{where=\"out\"} +Inf",
  "# HELP latency_seconds Latency.",
  "# TYPE latency_seconds histogram",
  "latency_seconds_bucket{route=\"/a\",le=\"0.1\"} 1",
  "latency_seconds_bucket{route=\"/a\",le=\"1\"} 2",
  "latency_seconds_bucket{route=\"/a\",le=\"+Inf\"} 3",
  "latency_seconds_sum{route=\"/a\"} 4.2",
  "latency_seconds_count{route=\"/a\"} 3",
  "untyped_thing 7",
  ""
].join("\n")

const histogram = (buckets: ReadonlyArray<string>, tail = ["h_sum 1", "h_count 3"]) =>
  ["# TYPE h histogram", ...buckets, ...tail, ""].join("\n")

describe("parsePrometheusText", () => {
  it("reads a well-formed exposition: families, help, labels with escapes, special values", () => {
    const families = parsePrometheusText(good)
    expect([...families.keys()]).toEqual(["http_requests_total", "temperature", "latency_seconds", "untyped_thing"])
    const requests = families.get("http_requests_total")!
    expect(requests.type).toBe("counter")
    expect(requests.help).toBe("Requests, with a backslash \\ and a newline \n in the help.")
    expect(requests.samples).toEqual([
      { name: "http_requests_total", labels: { method: "GET", route: "/v1/a\"b\\c\nd" }, value: 3 },
      { name: "http_requests_total", labels: { method: "POST", route: "/v1/a" }, value: 150 }
    ])
    expect(samplesOf(families, "temperature").map((s) => s.value)).toEqual([-Infinity, NaN, Infinity])
    expect(families.get("latency_seconds")!.type).toBe("histogram")
    expect(samplesOf(families, "latency_seconds", { le: "+Inf" })[0]!.value).toBe(3)
    expect(families.get("untyped_thing")!.type).toBe("untyped")
    expect(parsePrometheusText("")).toEqual(new Map())
  })

  const malformed: ReadonlyArray<readonly [string, string, RegExp]> = [
    ["no final newline", "a 1", /last line/],
    ["a bad metric name", "1abc 1\n", /line 1: bad metric name/],
    ["a bad label name", "a{1x=\"v\"} 1\n", /bad label name/],
    ["an unquoted label value", "a{x=v} 1\n", /not quoted/],
    ["an unterminated label value", "a{x=\"v} 1\n", /unterminated/],
    ["a bad escape in a label", "a{x=\"\\t\"} 1\n", /bad escape/],
    ["a label twice", "a{x=\"1\",x=\"2\"} 1\n", /label x twice/],
    ["a missing value", "a{x=\"1\"}\n", /space before the value|expected a value/],
    ["a value that is not a number", "a 1O\n", /not a number/],
    ["a bad timestamp", "a 1 soon\n", /bad timestamp/],
    ["too many fields", "a 1 2 3\n", /expected a value/],
    ["an unknown type", "# TYPE a meter\na 1\n", /unknown type/],
    ["TYPE twice", "# TYPE a gauge\n# TYPE a gauge\na 1\n", /TYPE a twice/],
    ["HELP twice", "# HELP a x\n# HELP a y\na 1\n", /HELP a twice/],
    ["TYPE after the samples", "a 1\n# TYPE a gauge\n", /after its samples/],
    ["a bad escape in HELP", "# HELP a bad \\t\na 1\n", /bad escape/],
    ["a family split by another", "a 1\nb 1\na{x=\"2\"} 1\n", /line 3: samples of a are not together/],
    ["a series twice", "a{x=\"1\"} 1\na{x=\"1\"} 2\n", /line 2: series .* twice/],
    ["a negative counter", "# TYPE c counter\nc -1\n", /counter c is -1/],
    ["an unclosed label set", "a{x=\"1\" 1\n", /expected , or \}/]
  ]
  for (const [what, text, error] of malformed) {
    it(`refuses ${what}`, () => {
      expect(() => parsePrometheusText(text)).toThrow(error)
    })
  }

  it("checks histograms: le increasing, counts never falling, +Inf equal to _count, _sum present", () => {
    expect(() => parsePrometheusText(histogram(["h_bucket{le=\"1\"} 1", "h_bucket{le=\"+Inf\"} 3"]))).not.toThrow()
    expect(() => parsePrometheusText(histogram(["h_bucket{le=\"1\"} 1", "h_bucket{le=\"0.5\"} 2", "h_bucket{le=\"+Inf\"} 3"]))).toThrow(/le not increasing/)
    expect(() => parsePrometheusText(histogram(["h_bucket{le=\"1\"} 2", "h_bucket{le=\"2\"} 1", "h_bucket{le=\"+Inf\"} 3"]))).toThrow(/counts fall/)
    expect(() => parsePrometheusText(histogram(["h_bucket{le=\"1\"} 1", "h_bucket{le=\"2\"} 3"]))).toThrow(/no \+Inf bucket/)
    expect(() => parsePrometheusText(histogram(["h_bucket{le=\"+Inf\"} 2"]))).toThrow(/is not _count/)
    expect(() => parsePrometheusText(histogram(["h_bucket{le=\"+Inf\"} 3"], ["h_count 3"]))).toThrow(/no _sum/)
    expect(() => parsePrometheusText(histogram(["h_bucket{le=\"+Inf\"} 3"], ["h_sum 3"]))).toThrow(/no _count/)
    expect(() => parsePrometheusText(histogram(["h_bucket 3"]))).toThrow(/bucket without le/)
    expect(() => parsePrometheusText(histogram(["h_bucket{le=\"+Inf\"} 3"], ["h_sum{le=\"1\"} 1", "h_count 3"]))).toThrow(/le on a sample/)
  })
})
