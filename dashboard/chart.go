package dashboard

import (
	"fmt"
	"html/template"
	"strings"
	"time"
)

// Sample is how far a job was at a time.
type Sample struct {
	At        time.Time
	BytesDone int64
}

// Point is the throughput at a time.
type Point struct {
	At  time.Time
	BPS float64
}

// throughput turns samples into rates: at each sample, the bytes done since the earliest
// sample within window before it, over that time (at least the sample before). Samples
// that do not move forward in time are skipped.
func throughput(ss []Sample, window time.Duration) []Point {
	var out []Point
	j := 0
	for i := 1; i < len(ss); i++ {
		for j < i-1 && ss[i].At.Sub(ss[j].At) > window {
			j++
		}
		dt := ss[i].At.Sub(ss[j].At).Seconds()
		if dt <= 0 {
			continue
		}
		out = append(out, Point{At: ss[i].At, BPS: max(0, float64(ss[i].BytesDone-ss[j].BytesDone)/dt)})
	}
	return out
}

// chartSize is the drawing's coordinate system; CSS scales it to the page's width.
const (
	chartW, chartH         = 640, 200
	chartLeft, chartBottom = 70, 24
)

// chartSVG draws the throughput points as an SVG line chart with its scale, or a note that
// there is nothing to draw yet. now is the right edge's time.
func chartSVG(ps []Point, now time.Time) template.HTML {
	if len(ps) < 2 {
		return `<p class="muted">Throughput appears here after a few samples of the running job (taken every 5 s and kept in the catalog for an hour).</p>`
	}
	t0, t1 := ps[0].At, now
	if !t1.After(t0) {
		t1 = ps[len(ps)-1].At
	}
	span := t1.Sub(t0).Seconds()
	if span <= 0 {
		span = 1
	}
	top := 0.0
	for _, p := range ps {
		top = max(top, p.BPS)
	}
	top = niceCeil(top)
	plotW, plotH := float64(chartW-chartLeft-10), float64(chartH-chartBottom-10)
	var pts strings.Builder
	for i, p := range ps {
		x := float64(chartLeft) + p.At.Sub(t0).Seconds()/span*plotW
		y := 10 + plotH - p.BPS/top*plotH
		if i > 0 {
			pts.WriteByte(' ')
		}
		fmt.Fprintf(&pts, "%.1f,%.1f", x, y)
	}
	var b strings.Builder
	last := ps[len(ps)-1]
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-labelledby="chart-title">`, chartW, chartH)
	fmt.Fprintf(&b, `<title id="chart-title">Throughput over the last %s: now %s, at most %s</title>`,
		template.HTMLEscapeString(durationText(t1.Sub(t0))), rateText(last.BPS), rateText(top))
	for i := 0; i <= 4; i++ {
		y := 10 + plotH - float64(i)/4*plotH
		fmt.Fprintf(&b, `<line class="grid" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>`, chartLeft, y, chartW-10, y)
		fmt.Fprintf(&b, `<text class="axis" x="%d" y="%.1f" text-anchor="end">%s</text>`, chartLeft-6, y+4, rateText(top*float64(i)/4))
	}
	fmt.Fprintf(&b, `<text class="axis" x="%d" y="%d">%s ago</text>`, chartLeft, chartH-6, template.HTMLEscapeString(durationText(t1.Sub(t0))))
	fmt.Fprintf(&b, `<text class="axis" x="%d" y="%d" text-anchor="end">now</text>`, chartW-10, chartH-6)
	fmt.Fprintf(&b, `<polyline class="line" points="%s"/>`, pts.String())
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// niceCeil rounds a positive rate up to 1, 2 or 5 times a power of ten (1 B/s at least), so
// the scale reads in round numbers.
func niceCeil(v float64) float64 {
	if v <= 1 {
		return 1
	}
	p := 1.0
	for p*10 <= v {
		p *= 10
	}
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
