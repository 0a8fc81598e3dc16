/**
 * Charts drawn on the server as SVG, where a person would rather look than read:
 * counts per hour over the last 24 hours as stacked bars, and a status timeline (a call's). Each
 * chart is an image with a title and a description that says the same in words, so a screen
 * reader gets the numbers; colours are paired with a legend and have enough contrast on white.
 */
import { html } from "./ConsoleHtml.js"

export interface Series {
  readonly label: string
  readonly colour: string
}

const HOUR = 3_600_000

/**
 * `items` counted per hour (`timeOf`, epoch ms) for the 24 hours ending at `now`, split by
 * `seriesOf`; each item counts `weightOf` (1 unless given: an item that is already a count).
 */
export const perHour = <A>(
  items: ReadonlyArray<A>,
  timeOf: (a: A) => number,
  seriesOf: (a: A) => number,
  seriesCount: number,
  now: number,
  weightOf: (a: A) => number = () => 1
): ReadonlyArray<ReadonlyArray<number>> => {
  const end = Math.floor(now / HOUR) * HOUR + HOUR
  const bins = Array.from({ length: 24 }, () => Array.from({ length: seriesCount }, () => 0))
  for (const a of items) {
    const index = 23 - Math.floor((end - 1 - timeOf(a)) / HOUR)
    const s = seriesOf(a)
    if (index >= 0 && index < 24 && s >= 0 && s < seriesCount) bins[index]![s]! += weightOf(a)
  }
  return bins
}

/** Stacked bars, one per hour; `bins[hour][series]`. */
export const hourlyChart = (title: string, series: ReadonlyArray<Series>, bins: ReadonlyArray<ReadonlyArray<number>>, now: number, empty = "Nothing in the last 24 hours.") => {
  // No axes drawn around nothing: a chart with no counts says so in words.
  if (bins.every((b) => b.every((n) => n === 0))) return noData(title, empty)
  const width = 600
  const height = 180
  const left = 32
  const bottom = 24
  const top = 10
  const plotH = height - bottom - top
  const barW = (width - left - 8) / 24
  const totals = bins.map((b) => b.reduce((x, y) => x + y, 0))
  const max = Math.max(1, ...totals)
  const sum = series.map((_, s) => bins.reduce((acc, b) => acc + (b[s] ?? 0), 0))
  const desc = `Last 24 hours: ${series.map((s, i) => `${sum[i]} ${s.label}`).join(", ")}; busiest hour ${Math.max(0, ...totals)}.`
  const endHour = new Date(Math.floor(now / HOUR) * HOUR)
  const id = title.toLowerCase().replace(/[^a-z0-9]+/g, "-")
  const bars = bins.map((b, i) => {
    let y = top + plotH
    return b.map((count, s) => {
      if (count === 0) return ""
      const h = (count / max) * plotH
      y -= h
      return html`<rect x="${(left + i * barW + 1).toFixed(1)}" y="${y.toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${series[s]?.colour ?? "#555"}"><title>${count} ${series[s]?.label ?? ""}</title></rect>`
    })
  })
  const labels = [0, 6, 12, 18, 23].map((i) => {
    const hour = new Date(endHour.getTime() - (23 - i) * HOUR).getUTCHours()
    return html`<text x="${(left + i * barW + barW / 2).toFixed(1)}" y="${height - 6}" font-size="11" text-anchor="middle" fill="#4b5563">${String(hour).padStart(2, "0")}:00</text>`
  })
  return html`<figure><svg class="chart" role="img" aria-labelledby="${id}-t ${id}-d" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-t">${title}</title><desc id="${id}-d">${desc}</desc>
<line x1="${left}" y1="${top + plotH}" x2="${width - 8}" y2="${top + plotH}" stroke="#9ca3af"/>
<text x="${left - 4}" y="${top + 8}" font-size="11" text-anchor="end" fill="#4b5563">${max}</text>
<text x="${left - 4}" y="${top + plotH}" font-size="11" text-anchor="end" fill="#4b5563">0</text>
${bars}${labels}</svg>
<figcaption class="muted">${title} (UTC). ${series.map((s) => html`<span><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${s.colour}"/></svg> ${s.label}</span> `)}</figcaption></figure>`
}

/** The place of a chart that has nothing to draw yet. */
export const noData = (title: string, text: string) =>
  html`<div class="nodata" data-chart-empty><p><strong>No data yet</strong><span class="muted">${title}: ${text}</span></p></div>`

export interface TimelinePoint {
  readonly label: string
  readonly at: number
  readonly detail?: string | undefined
}

/** Points in time on one line, labelled (a call's statuses and DTMF), with their offsets from the first. */
export const timelineChart = (title: string, points: ReadonlyArray<TimelinePoint>) => {
  if (points.length === 0) return noData(title, "nothing happened yet.")
  const width = 600
  const rowH = 26
  const height = 30 + points.length * rowH
  const first = points[0]!.at
  const span = Math.max(1, points[points.length - 1]!.at - first)
  const x = (t: number) => 40 + ((t - first) / span) * (width - 260)
  const id = title.toLowerCase().replace(/[^a-z0-9]+/g, "-")
  const desc = points.map((p) => `${p.label} at +${((p.at - first) / 1000).toFixed(1)} s`).join(", ")
  return html`<svg class="chart" role="img" aria-labelledby="${id}-t ${id}-d" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-t">${title}</title><desc id="${id}-d">${desc}</desc>
<line x1="40" y1="16" x2="${width - 220}" y2="16" stroke="#9ca3af"/>
${
    points.map((p, i) =>
      html`<circle cx="${x(p.at).toFixed(1)}" cy="16" r="5" fill="#4f46e5"/><line x1="${x(p.at).toFixed(1)}" y1="21" x2="${x(p.at).toFixed(1)}" y2="${30 + i * rowH}" stroke="#c3c9d4"/>
<text x="${(x(p.at) + 6).toFixed(1)}" y="${34 + i * rowH}" font-size="12" fill="#111827">${p.label}${p.detail === undefined ? "" : ` ${p.detail}`} · +${((p.at - first) / 1000).toFixed(1)} s</text>`
    )
  }</svg>`
}
