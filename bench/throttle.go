package bench

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"slices"
)

// CurvePoint is one copy on the throttle curve: its rate and the source's
// Get latency meanwhile.
type CurvePoint struct {
	Method Method
	// Limit is the fixed --bandwidth, bytes/s (0: none or adaptive).
	Limit float64
	// Rate is the copy's rate (CopyRate), bytes/s; Share that over the
	// unthrottled copy's.
	Rate, Share float64
	// P50 and P99 are the source Get latencies during the copy, ms.
	P50, P99 float64
}

// curveMethods are the copies the throttle curve is drawn from.
var curveMethods = []Method{RangecopyBandwidthQuarter, RangecopyBandwidth, RangecopyBandwidthThreeQuarters, RangecopyFull, RangecopyProtect}

// ThrottleCurve returns the run's points of the throttle curve, fixed
// limits by rate then the adaptive throttle; none unless the unthrottled
// copy and at least one throttled one succeeded. Pure.
func ThrottleCurve(r *Run) []CurvePoint {
	full, ok := r.Result(RangecopyFull)
	if !ok || CopyRate(full) <= 0 {
		return nil
	}
	var pts []CurvePoint
	for _, m := range curveMethods {
		x, ok := r.Result(m)
		if !ok || CopyRate(x) <= 0 || x.Latency.Count == 0 {
			continue
		}
		pts = append(pts, CurvePoint{Method: m, Limit: x.BandwidthLimit, Rate: CopyRate(x), Share: CopyRate(x) / CopyRate(full), P50: x.Latency.P50, P99: x.Latency.P99})
	}
	if len(pts) < 2 {
		return nil
	}
	slices.SortStableFunc(pts, func(a, b CurvePoint) int {
		if (a.Method == RangecopyProtect) != (b.Method == RangecopyProtect) {
			if a.Method == RangecopyProtect {
				return 1
			}
			return -1
		}
		switch {
		case a.Rate < b.Rate:
			return -1
		case a.Rate > b.Rate:
			return 1
		}
		return 0
	})
	return pts
}

// ErrNoCurve reports a run without the copies a throttle curve needs.
var ErrNoCurve = errors.New("no throttle curve: the run lacks the unthrottled copy or every throttled one")

// Curve chart geometry, in pixels.
const (
	curveW, curveH = 760, 460
	curveLeft      = 70
	curveBottom    = 50
	curveTop       = 56
	curveRight     = 30
)

var (
	chartGrid    = color.RGBA{0xe0, 0xe0, 0xe0, 0xff}
	chartProtect = color.RGBA{0x8e, 0x3c, 0xc8, 0xff}
	chartLimit   = color.RGBA{0xc0, 0x20, 0x20, 0xff}
)

// WriteThrottleChart draws the throttle curve as a PNG: source Get p99
// (ms, up) against the copy's rate (MB/s, across), the fixed limits joined
// by a line, the adaptive throttle as a point of its own, the idle p99 as a
// grey line and twice it (the throttle's target) as a red one.
func WriteThrottleChart(w io.Writer, r *Run) error {
	pts := ThrottleCurve(r)
	if len(pts) == 0 {
		return ErrNoCurve
	}
	img := image.NewRGBA(image.Rect(0, 0, curveW, curveH))
	draw.Draw(img, img.Bounds(), &image.Uniform{chartBG}, image.Point{}, draw.Src)
	maxX, maxY := 0.0, 2*r.Idle.P99
	for _, p := range pts {
		maxX, maxY = max(maxX, p.Rate/1e6), max(maxY, p.P99)
	}
	maxX, maxY = niceCeil(maxX*1.1), niceCeil(maxY*1.15)
	pw, ph := curveW-curveLeft-curveRight, curveH-curveTop-curveBottom
	at := func(x, y float64) (int, int) {
		return curveLeft + int(x/maxX*float64(pw)), curveTop + ph - int(y/maxY*float64(ph))
	}
	text(img, chartMargin, 22, "Source Get p99 (ms) against copy rate (MB/s): fixed --bandwidth (blue), --protect-source 2x (purple)", chartText)
	for i := 0; i <= 5; i++ {
		x, y := maxX*float64(i)/5, maxY*float64(i)/5
		gx, _ := at(x, 0)
		_, gy := at(0, y)
		fill(img, image.Rect(gx, curveTop, gx+1, curveTop+ph), chartGrid)
		fill(img, image.Rect(curveLeft, gy, curveLeft+pw, gy+1), chartGrid)
		text(img, gx-10, curveTop+ph+16, fmt.Sprintf("%.0f", x), chartText)
		text(img, curveLeft-50, gy+4, fmt.Sprintf("%.1f", y), chartText)
	}
	text(img, curveLeft+pw/2-30, curveH-12, "MB/s", chartText)
	text(img, 8, curveTop-12, "p99 ms", chartText)
	if r.Idle.P99 > 0 {
		_, iy := at(0, r.Idle.P99)
		fill(img, image.Rect(curveLeft, iy, curveLeft+pw, iy+2), chartIdle)
		text(img, curveLeft+pw-150, iy-4, fmt.Sprintf("idle %.1f ms", r.Idle.P99), chartIdle)
		_, ty := at(0, 2*r.Idle.P99)
		fill(img, image.Rect(curveLeft, ty, curveLeft+pw, ty+2), chartLimit)
		text(img, curveLeft+pw-150, ty-4, fmt.Sprintf("2x idle %.1f ms", 2*r.Idle.P99), chartLimit)
	}
	var prevX, prevY int
	first := true
	for _, p := range pts {
		x, y := at(p.Rate/1e6, p.P99)
		c := color.Color(chartRate)
		if p.Method == RangecopyProtect {
			c = chartProtect
		} else {
			if !first {
				line(img, prevX, prevY, x, y, chartRate)
			}
			prevX, prevY, first = x, y, false
		}
		fill(img, image.Rect(x-4, y-4, x+5, y+5), c)
		label := fmt.Sprintf("%.0f%%", p.Share*100)
		if p.Method == RangecopyProtect {
			label = "adaptive"
		}
		text(img, x+7, y-6, label, c)
	}
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("encode throttle chart: %w", err)
	}
	return nil
}

func fill(img *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}

// line draws a 2-pixel line from (x0, y0) to (x1, y1).
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	n := max(abs(x1-x0), abs(y1-y0), 1)
	for i := 0; i <= n; i++ {
		x := x0 + (x1-x0)*i/n
		y := y0 + (y1-y0)*i/n
		fill(img, image.Rect(x, y, x+2, y+2), c)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten. Pure.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := 1.0
	for p*10 <= v {
		p *= 10
	}
	for p > v {
		p /= 10
	}
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
