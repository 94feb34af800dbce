package dashboard

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"rangecopy/render"
)

func (d *Dashboard) relocationsPage(w http.ResponseWriter, r *http.Request) {
	rs, err := d.cfg.Source.Relocations(r.Context())
	if err != nil {
		d.sourceFail(w, r, "The relocations", err)
		return
	}
	d.render(w, r, http.StatusOK, "relocations", "Relocations", struct {
		Relocations []Relocation
		Now         time.Time
	}{rs, time.Now()})
}

type relocationBody struct {
	R        Relocation
	Actions  []RelocationAct
	LagChart template.HTML
	Strip    template.HTML
	Outcomes string // the windows by outcome, "4 ran, 1 skipped"
	Did      string
	Plan     *CutoverPlan
	Now      time.Time
}

func (d *Dashboard) relocationPage(w http.ResponseWriter, r *http.Request) {
	d.showRelocation(w, r, http.StatusOK, "", nil)
}

// showRelocation renders a relocation's page; note is a message of an action's outcome,
// plan a dry run's answer.
func (d *Dashboard) showRelocation(w http.ResponseWriter, r *http.Request, status int, note string, plan *CutoverPlan) {
	id := r.PathValue("id")
	rel, err := d.cfg.Source.Relocation(r.Context(), id)
	if err != nil {
		d.sourceFail(w, r, "Relocation "+id, err)
		return
	}
	b := relocationBody{R: rel, LagChart: lagChartSVG(rel.Windows, rel.MaxLag), Strip: windowStripSVG(rel.Windows),
		Plan: plan, Now: time.Now()}
	if !rel.Final {
		b.Actions = relocationActionsFor(rel.Phase)
	}
	b.Outcomes = outcomes(rel.Windows)
	switch did := r.URL.Query().Get("did"); did {
	case "pause", "resume", "cancel":
		b.Did = map[string]string{"pause": "Pause asked: no new windows; the running window's jobs pause.",
			"resume": "Resumed: ticks missed make one catch-up at once.",
			"cancel": "Cancel asked: its running jobs and verification stop; what was copied stays."}[did]
	}
	if note != "" {
		b.Did = note
	}
	d.render(w, r, status, "relocation", "Relocation "+rel.ID, b)
}

// relocAct does a POSTed action on a relocation: pause, resume and cancel go back to the
// page; a dry run shows the page with its plan.
func (d *Dashboard) relocAct(w http.ResponseWriter, r *http.Request) {
	id, act := r.PathValue("id"), RelocationAct(r.PathValue("action"))
	switch act {
	case RelocationPause, RelocationResume, RelocationCancel, RelocationDryRun:
	default:
		d.fail(w, r, http.StatusNotFound, "There is no action "+string(act)+".")
		return
	}
	plan, err := d.cfg.Source.RelocationAction(r.Context(), sessionOf(r.Context()).who, id, act)
	if err != nil {
		var ue *UserError
		if errors.As(err, &ue) && !errors.Is(err, ErrNotFound) {
			d.showRelocation(w, r, ue.Status, "Refused: "+ue.Message, nil)
			return
		}
		d.sourceFail(w, r, "Relocation "+id, err)
		return
	}
	if act == RelocationDryRun {
		note := "Dry run: a cut-over now would start (nothing was changed)."
		if plan.Blocked != "" {
			note = "Dry run: a cut-over now is blocked by the " + plan.Blocked + " gate (nothing was changed)."
		}
		d.showRelocation(w, r, http.StatusOK, note, &plan)
		return
	}
	http.Redirect(w, r, "/relocations/"+url.PathEscape(id)+"?did="+string(act), http.StatusSeeOther)
}

// relocationActionsFor are the actions the relocation page offers in a phase: those the
// phase allows.
func relocationActionsFor(phase string) []RelocationAct {
	switch phase {
	case "copying":
		return []RelocationAct{RelocationPause, RelocationCancel}
	case "catching-up", "ready":
		return []RelocationAct{RelocationPause, RelocationCancel, RelocationDryRun}
	case "paused":
		return []RelocationAct{RelocationResume, RelocationCancel}
	case "cutting-over":
		return []RelocationAct{RelocationCancel}
	}
	return nil
}

// lagPoints are the lags of the windows that ran, at their end: the catch-ups and the final
// window (the full copy's lag is its whole run, not a lag behind the source's writes).
func lagPoints(ws []Window) []lagPoint {
	var out []lagPoint
	for _, w := range ws {
		if w.Outcome == "ran" && w.Kind != "full" && !w.FinishedAt.IsZero() {
			out = append(out, lagPoint{w.Seq, w.FinishedAt, w.Lag})
		}
	}
	return out
}

type lagPoint struct {
	Seq int
	At  time.Time
	Lag time.Duration
}

// lagChartSVG draws the lag of each window that ran over time, with the cut-over's bound
// (maxLag, a Go duration) as a dashed line when it fits the scale.
func lagChartSVG(ws []Window, maxLag string) template.HTML {
	ps := lagPoints(ws)
	if len(ps) < 2 {
		return `<p class="muted">The lag over time appears here once two catch-up windows have run.</p>`
	}
	t0, t1 := ps[0].At, ps[len(ps)-1].At
	span := t1.Sub(t0).Seconds()
	if span <= 0 {
		span = 1
	}
	top := 0.0
	for _, p := range ps {
		top = max(top, p.Lag.Seconds())
	}
	bound, _ := time.ParseDuration(maxLag)
	if b := bound.Seconds(); b > top && b <= 2*top {
		top = b
	}
	top = niceCeil(top)
	plotW, plotH := float64(chartW-chartLeft-10), float64(chartH-chartBottom-10)
	x := func(t time.Time) float64 { return float64(chartLeft) + t.Sub(t0).Seconds()/span*plotW }
	y := func(s float64) float64 { return 10 + plotH - s/top*plotH }
	secs := func(s float64) string { return lagText(time.Duration(s * float64(time.Second))) }
	var b strings.Builder
	last := ps[len(ps)-1]
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-labelledby="lag-title">`, chartW, chartH)
	fmt.Fprintf(&b, `<title id="lag-title">Lag of the %d windows that ran over %s: last %s (window %d), at most %s</title>`,
		len(ps), durationText(t1.Sub(t0)), lagText(last.Lag), last.Seq, secs(top))
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		fmt.Fprintf(&b, `<line class="grid" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>`, chartLeft, y(v), chartW-10, y(v))
		fmt.Fprintf(&b, `<text class="axis" x="%d" y="%.1f" text-anchor="end">%s</text>`, chartLeft-6, y(v)+4, secs(v))
	}
	if s := bound.Seconds(); s > 0 && s <= top {
		fmt.Fprintf(&b, `<line class="bound" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>`, chartLeft, y(s), chartW-10, y(s))
		fmt.Fprintf(&b, `<text class="axis" x="%d" y="%.1f" text-anchor="end">cut-over bound %s</text>`, chartW-12, y(s)-4,
			template.HTMLEscapeString(durationText(bound)))
	}
	fmt.Fprintf(&b, `<text class="axis" x="%d" y="%d">window %d</text>`, chartLeft, chartH-6, ps[0].Seq)
	fmt.Fprintf(&b, `<text class="axis" x="%d" y="%d" text-anchor="end">window %d</text>`, chartW-10, chartH-6, last.Seq)
	var pts strings.Builder
	for i, p := range ps {
		if i > 0 {
			pts.WriteByte(' ')
		}
		fmt.Fprintf(&pts, "%.1f,%.1f", x(p.At), y(p.Lag.Seconds()))
	}
	fmt.Fprintf(&b, `<polyline class="line" points="%s"/>`, pts.String())
	for _, p := range ps {
		fmt.Fprintf(&b, `<circle class="dot" cx="%.1f" cy="%.1f" r="3"><title>window %d: lag %s</title></circle>`,
			x(p.At), y(p.Lag.Seconds()), p.Seq, lagText(p.Lag))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// stripW and stripH are the window strip's coordinate system.
const stripW, stripH = 640, 28

// windowStripSVG draws the windows as a strip of equal cells, oldest first, each coloured
// by its outcome; nothing when there are none.
func windowStripSVG(ws []Window) template.HTML {
	if len(ws) == 0 {
		return ""
	}
	cell := float64(stripW) / float64(len(ws))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="strip" viewBox="0 0 %d %d" preserveAspectRatio="none" role="img" aria-labelledby="strip-title">`, stripW, stripH)
	fmt.Fprintf(&b, `<title id="strip-title">%d windows, oldest first: %s</title>`, len(ws), outcomes(ws))
	for i, w := range ws {
		fmt.Fprintf(&b, `<rect class="w-%s" x="%.2f" y="0" width="%.2f" height="%d"><title>window %d, %s: %s</title></rect>`,
			template.HTMLEscapeString(w.Outcome), float64(i)*cell+0.5, max(cell-1, 0.5), stripH, w.Seq,
			template.HTMLEscapeString(w.Kind), template.HTMLEscapeString(w.Outcome))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// outcomes writes windows by outcome, "4 ran, 1 skipped".
func outcomes(ws []Window) string {
	n := map[string]int{}
	for _, w := range ws {
		n[w.Outcome]++
	}
	return render.Outcomes(n)
}
