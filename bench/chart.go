package bench

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Chart geometry, in pixels.
const (
	chartWidth  = 960
	chartLabelW = 250 // method names left of the bars
	chartValueW = 130 // figures right of the bars
	chartBarH   = 16
	chartGap    = 8
	chartTitleH = 30
	chartMargin = 12
)

var (
	chartBG     = color.RGBA{0xff, 0xff, 0xff, 0xff}
	chartText   = color.RGBA{0x20, 0x20, 0x20, 0xff}
	chartRate   = color.RGBA{0x2b, 0x6c, 0xb0, 0xff}
	chartRC     = color.RGBA{0x2f, 0x9e, 0x44, 0xff}
	chartP99    = color.RGBA{0xd9, 0x6c, 0x1e, 0xff}
	chartIdle   = color.RGBA{0x80, 0x80, 0x80, 0xff}
	chartFailed = color.RGBA{0xc0, 0x20, 0x20, 0xff}
)

// WriteChart draws the run as a PNG: one panel of throughput (MB/s) per
// method, rangecopy's bars in green, and one panel of the source Get p99
// during each method, with the idle p99 as a grey line.
func WriteChart(w io.Writer, r *Run) error {
	r = copiesOnly(r)
	n := len(r.Results)
	panelH := chartTitleH + n*(chartBarH+chartGap) + chartGap
	h := 2*panelH + 2*chartMargin
	img := image.NewRGBA(image.Rect(0, 0, chartWidth, h))
	draw.Draw(img, img.Bounds(), &image.Uniform{chartBG}, image.Point{}, draw.Src)

	rates := make([]float64, n)
	p99s := make([]float64, n)
	for i, x := range r.Results {
		if x.Error == "" {
			rates[i] = x.MBps()
			p99s[i] = x.Latency.P99
		}
	}
	top := chartMargin
	panel(img, top, "Throughput, MB/s (green: rangecopy)", r.Results, rates, 0, func(i int, v float64) string {
		return fmt.Sprintf("%.1f MB/s", v)
	}, func(i int) color.Color {
		if r.Results[i].Method.Rangecopy() {
			return chartRC
		}
		return chartRate
	})
	panel(img, top+panelH, fmt.Sprintf("Source Get p99 during the copy, ms (grey line: idle, %.1f ms)", r.Idle.P99), r.Results, p99s, r.Idle.P99,
		func(i int, v float64) string { return fmt.Sprintf("%.1f ms", v) },
		func(int) color.Color { return chartP99 })
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("encode chart: %w", err)
	}
	return nil
}

// panel draws one horizontal bar chart starting at y; ref > 0 draws a
// vertical reference line at that value.
func panel(img *image.RGBA, y int, title string, results []Result, vals []float64, ref float64, label func(int, float64) string, fill func(int) color.Color) {
	text(img, chartMargin, y+18, title, chartText)
	maxV := ref
	for _, v := range vals {
		maxV = max(maxV, v)
	}
	if maxV <= 0 {
		maxV = 1
	}
	barW := chartWidth - chartLabelW - chartValueW - 2*chartMargin
	x0 := chartMargin + chartLabelW
	for i, x := range results {
		by := y + chartTitleH + i*(chartBarH+chartGap)
		text(img, chartMargin, by+12, x.Method.Title(), chartText)
		if x.Error != "" {
			text(img, x0+4, by+12, "failed", chartFailed)
			continue
		}
		w := int(vals[i] / maxV * float64(barW))
		draw.Draw(img, image.Rect(x0, by, x0+max(w, 1), by+chartBarH), &image.Uniform{fill(i)}, image.Point{}, draw.Src)
		text(img, x0+w+6, by+12, label(i, vals[i]), chartText)
	}
	if ref > 0 {
		rx := x0 + int(ref/maxV*float64(barW))
		y1 := y + chartTitleH - 4
		y2 := y + chartTitleH + len(results)*(chartBarH+chartGap)
		draw.Draw(img, image.Rect(rx, y1, rx+2, y2), &image.Uniform{chartIdle}, image.Point{}, draw.Src)
	}
}

func text(img *image.RGBA, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// copiesOnly returns r with the verification methods left out: the chart
// compares copies.
func copiesOnly(r *Run) *Run {
	c := *r
	c.Results = nil
	for _, x := range r.Results {
		if !x.Method.Verifies() {
			c.Results = append(c.Results, x)
		}
	}
	return &c
}
