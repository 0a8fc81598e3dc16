/**
 * The console's pure parts: the HTML template escapes what it is given (so a name or a URL a user
 * typed cannot become markup), the hourly counts put each item in its hour and lose none of the
 * last 24 hours, and the charts say in words what they draw.
 */
import { DateTime } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { hourlyChart, perHour, timelineChart } from "../../src/console/ConsoleCharts.js"
import { html, raw } from "../../src/console/ConsoleHtml.js"
import { callTimeline } from "../../src/console/ConsoleVoice.js"

const HOUR = 3_600_000

describe("console HTML and charts (pure)", () => {
  it("escapes interpolated text, keeps nested fragments and raw markup", () => {
    const name = `<script>alert("x")</script>&'`
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      "<p title=\"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;\">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>"
    )
    expect(html`<ul>${["a<", "b"].map((x) => html`<li>${x}</li>`)}</ul>`.value).toBe("<ul><li>a&lt;</li><li>b</li></ul>")
    expect(html`${raw("<b>")}${null}${undefined}${false}${0}`.value).toBe("<b>0")
  })

  it("counts items per hour over the last 24 hours, by series, and drops what is older or later", () => {
    const now = Date.UTC(2030, 0, 1, 12, 30)
    const items = [
      { at: now, s: 0 },
      { at: now - 10 * 60_000, s: 1 },
      { at: now - 2 * HOUR, s: 0 },
      { at: now - 25 * HOUR, s: 0 },
      { at: now + 2 * HOUR, s: 0 },
      { at: now, s: 5 }
    ]
    const bins = perHour(items, (i) => i.at, (i) => i.s, 2, now)
    expect(bins).toHaveLength(24)
    expect(bins[23]).toEqual([1, 1])
    expect(bins[21]).toEqual([1, 0])
    expect(bins.flat().reduce((a, b) => a + b, 0)).toBe(3)
  })

  it("property: every item of the last 24 hours is counted exactly once", () => {
    const now = Date.UTC(2030, 5, 1, 8, 15)
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 24 * HOUR - 1 }), fc.integer({ min: 0, max: 2 })), { maxLength: 50 }), (raw) => {
        const end = Math.floor(now / HOUR) * HOUR + HOUR
        const items = raw.map(([ago, s]) => ({ at: end - 1 - ago, s }))
        const bins = perHour(items, (i) => i.at, (i) => i.s, 3, now)
        expect(bins.flat().reduce((a, b) => a + b, 0)).toBe(items.length)
      }),
      { numRuns: 50 }
    )
  })

  it("draws a chart whose description gives the totals, and a timeline in time order with offsets", () => {
    const now = Date.UTC(2030, 0, 1, 12)
    const chart = hourlyChart("Deliveries per hour", [{ label: "delivered", colour: "#000" }, { label: "failed", colour: "#f00" }], perHour([now, now], (t) => t, () => 0, 2, now), now).value
    expect(chart).toContain("<desc id=\"deliveries-per-hour-d\">Last 24 hours: 2 delivered, 0 failed; busiest hour 2.</desc>")
    expect(chart).toContain("role=\"img\"")
    const timeline = timelineChart("Status timeline", [{ label: "started", at: 1000 }, { label: "ended", at: 4500 }]).value
    expect(timeline).toContain("started at +0.0 s, ended at +3.5 s")
  })

  it("puts a call's milestones and key presses on its timeline in order", () => {
    const t = (ms: number) => DateTime.makeUnsafe(ms)
    const call = {
      status: "completed",
      timestamps: { startedAt: t(0), ringingAt: t(1000), answeredAt: t(2000), connectedAt: t(2500), endedAt: t(9000) },
      dtmfInputs: [{ digit: "5", timestamp: t(3000), actorId: "u" }]
    } as never
    expect(callTimeline(call).map((p) => `${p.label}${p.detail ?? ""}@${p.at}`)).toEqual([
      "started@0",
      "ringing@1000",
      "answered@2000",
      "connected@2500",
      "key5@3000",
      "ended@9000"
    ])
  })
})
