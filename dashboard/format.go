package dashboard

import (
	"fmt"
	"html/template"
	"math"
	"strings"
	"time"

	"rangecopy/progress"
	"rangecopy/render"
)

// bytesText writes a byte count with a binary unit (12.5 MiB).
func bytesText(n int64) string { return progress.Bytes(n) }

// rateText writes a rate in decimal units, as operators type them (20.0 kB/s, 1.5 MB/s).
func rateText(bps float64) string {
	if bps <= 0 || math.IsNaN(bps) || math.IsInf(bps, 0) {
		return "0 B/s"
	}
	units := []string{"B/s", "kB/s", "MB/s", "GB/s", "TB/s"}
	i := 0
	for bps >= 1000 && i < len(units)-1 {
		bps /= 1000
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B/s", bps)
	}
	return fmt.Sprintf("%.1f %s", bps, units[i])
}

// limitText writes a bandwidth cap; 0 is none.
func limitText(bps float64) string {
	if bps <= 0 {
		return "no limit"
	}
	return rateText(bps)
}

// durationText writes a duration for people, two units at most: 45 s, 3 m 20 s, 2 h 5 m,
// 3 d 4 h.
func durationText(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s < 0 {
		s = 0
	}
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		return join2(s/60, "m", s%60, "s")
	case s < 86400:
		return join2(s/3600, "h", s%3600/60, "m")
	}
	return join2(s/86400, "d", s%86400/3600, "h")
}

// lagText writes a lag: tenths of a second under 10 s (3.6 s), as durationText above.
func lagText(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.1f s", max(0, d.Seconds()))
	}
	return durationText(d)
}

// goDurationText writes a duration in Go's form (5m0s) as durationText does; what does not
// parse stays as it is.
func goDurationText(s string) string {
	d, err := time.ParseDuration(s)
	if err != nil {
		return s
	}
	return durationText(d)
}

func join2(a int64, au string, b int64, bu string) string {
	if b == 0 {
		return fmt.Sprintf("%d %s", a, au)
	}
	return fmt.Sprintf("%d %s %d %s", a, au, b, bu)
}

// etaText says how long a job has left: "3 m 20 s left", or "—" when unknown.
func etaText(d time.Duration) string {
	if d <= 0 {
		return "—"
	}
	return durationText(d) + " left"
}

// percentText writes a fraction as a percentage (42.5 %).
func percentText(f float64) string {
	return fmt.Sprintf("%.1f %%", min(100, max(0, f*100)))
}

// tasksText sums up task counts: "3 of 12 done, 2 running, 1 failed".
func tasksText(c TaskCounts) string {
	if c.Total == 0 {
		return "not planned yet"
	}
	parts := []string{fmt.Sprintf("%d of %d done", c.Done, c.Total)}
	if c.Running > 0 {
		parts = append(parts, fmt.Sprintf("%d running", c.Running))
	}
	if c.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", c.Failed))
	}
	return strings.Join(parts, ", ")
}

// timeHTML is a <time> element of t in UTC; "—" for the zero time.
func timeHTML(t time.Time) template.HTML {
	if t.IsZero() {
		return "—"
	}
	// Without JavaScript it reads as render writes times (RFC 3339 in UTC); the page's script
	// rewrites it in the viewer's zone.
	u := t.UTC()
	return template.HTML(`<time datetime="` + u.Format(time.RFC3339) + `">` + render.Time(u) + `</time>`)
}

// rowText writes a row bound (\xNN form) as render does: the key in quotes, or "first
// row" and "last row" for the table's start and end.
func rowText(key string, start bool) string {
	if start {
		return render.StartRow(key)
	}
	return render.StopRow(key)
}

// jobStates are the states the jobs page filters by, in the order of a job's life.
func jobStates() []string {
	return []string{"pending", "planning", "running", "paused", "cancelling", "done", "failed", "cancelled", "lost"}
}

// actionsFor are the actions the job page offers for a job in state: those its state allows.
func actionsFor(state string) []Action {
	switch state {
	case "pending", "planning", "running":
		return []Action{ActionPause, ActionCancel}
	case "paused":
		return []Action{ActionResume, ActionCancel}
	}
	return nil
}
