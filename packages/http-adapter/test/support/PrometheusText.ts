/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), for the tests that
 * scrape `/metrics`: `# HELP` and `# TYPE` lines (once per family, before its samples), samples
 * with labels (escapes `\\`, `\"`, `\n` in values), float values (`+Inf`, `-Inf`, `NaN`) and an
 * optional timestamp; a family's samples together; no series twice. Histograms are checked: per
 * label set, `le` buckets increasing with counts that never fall, a `+Inf` bucket equal to
 * `_count`, and a `_sum`. Anything else throws, naming the line.
 */

export type MetricType = "counter" | "gauge" | "histogram" | "summary" | "untyped"

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Family {
  readonly name: string
  readonly type: MetricType
  readonly help: string | undefined
  readonly samples: ReadonlyArray<Sample>
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const types: ReadonlyArray<MetricType> = ["counter", "gauge", "histogram", "summary", "untyped"]

const fail = (line: number, message: string): never => {
  throw new Error(`line ${line}: ${message}`)
}

/** A sample value: a Go float (`1`, `-2.5e-3`, `+Inf`, `-Inf`, `NaN`). */
const parseValue = (text: string, line: number): number => {
  if (text === "+Inf" || text === "Inf") return Infinity
  if (text === "-Inf") return -Infinity
  if (text === "NaN") return NaN
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) fail(line, `not a number: ${JSON.stringify(text)}`)
  return Number(text)
}

/** `# HELP` text: `\\` and `\n` escapes only. */
const unescapeHelp = (text: string, line: number) =>
  text.replace(/\\(.?)/g, (_, c: string) => (c === "\\" ? "\\" : c === "n" ? "\n" : fail(line, `bad escape \\${c} in HELP`)))

/** `{a="x",b="y"}` from `i` (at `{`): the labels and the index after `}`. */
const parseLabels = (text: string, i: number, line: number): [Record<string, string>, number] => {
  const labels: Record<string, string> = {}
  i++ // {
  for (;;) {
    if (text[i] === "}") return [labels, i + 1]
    const eq = text.indexOf("=", i)
    if (eq === -1) fail(line, "label without =")
    const name = text.slice(i, eq).trim()
    if (!labelName.test(name)) fail(line, `bad label name ${JSON.stringify(name)}`)
    if (name in labels) fail(line, `label ${name} twice`)
    i = eq + 1
    if (text[i] !== "\"") fail(line, `label ${name}: value not quoted`)
    i++
    let value = ""
    for (;;) {
      const c = text[i]
      if (c === undefined) fail(line, `label ${name}: unterminated value`)
      if (c === "\"") break
      if (c === "\\") {
        const e = text[i + 1]
        if (e === "\\") value += "\\"
        else if (e === "\"") value += "\""
        else if (e === "n") value += "\n"
        else fail(line, `label ${name}: bad escape \\${e ?? ""}`)
        i += 2
      } else {
        value += c
        i++
      }
    }
    labels[name] = value
    i++ // closing quote
    if (text[i] === ",") i++
    else if (text[i] !== "}") fail(line, `label ${name}: expected , or }`)
  }
}

const familyOf = (sample: string, declared: ReadonlyMap<string, MetricType>): string => {
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (sample.endsWith(suffix)) {
      const base = sample.slice(0, -suffix.length)
      const t = declared.get(base)
      if (t === "histogram" || (t === "summary" && suffix !== "_bucket")) return base
    }
  }
  return sample
}

const seriesKey = (name: string, labels: Readonly<Record<string, string>>) =>
  `${name}{${Object.keys(labels).sort().map((k) => `${k}=${JSON.stringify(labels[k])}`).join(",")}}`

/** Checks the histograms of `families`; throws naming the family and label set. */
const checkHistogram = (f: Family) => {
  const groups = new Map<string, { buckets: Array<[number, number]>; sum?: number; count?: number }>()
  for (const s of f.samples) {
    const { le, ...rest } = s.labels
    const key = seriesKey("", rest)
    let g = groups.get(key)
    if (g === undefined) groups.set(key, (g = { buckets: [] }))
    if (s.name === `${f.name}_bucket`) {
      if (le === undefined) throw new Error(`${f.name}${key}: a bucket without le`)
      g.buckets.push([parseValue(le, 0), s.value])
    } else if (le !== undefined) {
      throw new Error(`${s.name}${key}: le on a sample that is not a bucket`)
    } else if (s.name === `${f.name}_sum`) g.sum = s.value
    else if (s.name === `${f.name}_count`) g.count = s.value
    else throw new Error(`${s.name}: not a sample of histogram ${f.name}`)
  }
  for (const [key, g] of groups) {
    const where = `${f.name}${key}`
    if (g.buckets.length === 0) throw new Error(`${where}: no buckets`)
    for (let i = 1; i < g.buckets.length; i++) {
      if (!(g.buckets[i]![0] > g.buckets[i - 1]![0])) throw new Error(`${where}: le not increasing`)
      if (g.buckets[i]![1] < g.buckets[i - 1]![1]) throw new Error(`${where}: bucket counts fall`)
    }
    const last = g.buckets[g.buckets.length - 1]!
    if (last[0] !== Infinity) throw new Error(`${where}: no +Inf bucket`)
    if (g.count === undefined) throw new Error(`${where}: no _count`)
    if (g.sum === undefined) throw new Error(`${where}: no _sum`)
    if (last[1] !== g.count) throw new Error(`${where}: +Inf bucket ${last[1]} is not _count ${g.count}`)
  }
}

/** The families of an exposition, in order. Throws on anything the format does not allow. */
export const parsePrometheusText = (text: string): Map<string, Family> => {
  const declared = new Map<string, MetricType>()
  const helps = new Map<string, string>()
  const samples = new Map<string, Array<Sample>>()
  const seen = new Set<string>()
  const finished = new Set<string>()
  let current: string | undefined
  const enter = (family: string, line: number) => {
    if (current === family) return
    if (finished.has(family)) fail(line, `samples of ${family} are not together`)
    if (current !== undefined) finished.add(current)
    current = family
  }
  if (text !== "" && !text.endsWith("\n")) fail(text.split("\n").length, "the last line does not end with a newline")
  const lines = text.split("\n")
  lines.forEach((raw, index) => {
    const line = index + 1
    if (raw.trim() === "") return
    if (raw.startsWith("#")) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(raw)
      if (m === null) return // a comment
      const [, kind, name, rest = ""] = m as unknown as [string, "HELP" | "TYPE", string, string | undefined]
      if (!metricName.test(name)) fail(line, `bad metric name ${JSON.stringify(name)}`)
      if (kind === "HELP") {
        if (helps.has(name)) fail(line, `HELP ${name} twice`)
        helps.set(name, unescapeHelp(rest, line))
      } else {
        const t = rest.trim() as MetricType
        if (!types.includes(t)) fail(line, `unknown type ${JSON.stringify(rest)}`)
        if (declared.has(name)) fail(line, `TYPE ${name} twice`)
        if (samples.has(name)) fail(line, `TYPE ${name} after its samples`)
        declared.set(name, t)
      }
      enter(name, line)
      return
    }
    let i = 0
    while (i < raw.length && raw[i] !== "{" && raw[i] !== " ") i++
    const name = raw.slice(0, i)
    if (!metricName.test(name)) fail(line, `bad metric name ${JSON.stringify(name)}`)
    let labels: Record<string, string> = {}
    if (raw[i] === "{") [labels, i] = parseLabels(raw, i, line)
    if (raw[i] !== " ") fail(line, "expected a space before the value")
    const fields = raw.slice(i + 1).trim().split(/\s+/)
    if (fields.length < 1 || fields.length > 2 || fields[0] === "") fail(line, "expected a value and an optional timestamp")
    const value = parseValue(fields[0]!, line)
    if (fields.length === 2 && !/^-?\d+$/.test(fields[1]!)) fail(line, `bad timestamp ${fields[1]}`)
    const family = familyOf(name, declared)
    const key = seriesKey(name, labels)
    if (seen.has(key)) fail(line, `series ${key} twice`)
    seen.add(key)
    enter(family, line)
    const t = declared.get(family) ?? "untyped"
    if (t === "counter" && (value < 0 || Number.isNaN(value))) fail(line, `counter ${name} is ${value}`)
    if ((t === "counter" || t === "gauge" || t === "untyped") && name !== family) fail(line, `${name} in family ${family}`)
    let list = samples.get(family)
    if (list === undefined) samples.set(family, (list = []))
    list.push({ name, labels, value })
  })
  const families = new Map<string, Family>()
  for (const name of new Set([...declared.keys(), ...helps.keys(), ...samples.keys()])) {
    const family: Family = { name, type: declared.get(name) ?? "untyped", help: helps.get(name), samples: samples.get(name) ?? [] }
    if (family.type === "histogram") checkHistogram(family)
    families.set(name, family)
  }
  return families
}

/** The samples of `family` whose labels include `labels`. */
export const samplesOf = (families: ReadonlyMap<string, Family>, family: string, labels: Readonly<Record<string, string>> = {}): ReadonlyArray<Sample> =>
  (families.get(family)?.samples ?? []).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
