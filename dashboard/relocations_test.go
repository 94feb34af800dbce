package dashboard

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRelocationActionsFor(t *testing.T) {
	for phase, want := range map[string][]RelocationAct{
		"copying":      {RelocationPause, RelocationCancel},
		"catching-up":  {RelocationPause, RelocationCancel, RelocationDryRun},
		"ready":        {RelocationPause, RelocationCancel, RelocationDryRun},
		"paused":       {RelocationResume, RelocationCancel},
		"cutting-over": {RelocationCancel},
		"done":         nil,
		"failed":       nil,
		"cancelled":    nil,
	} {
		if got := relocationActionsFor(phase); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", phase, got, want)
		}
	}
}

func TestLagChart(t *testing.T) {
	ws := fakeRelocations(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))[0].Windows
	var seqs []int
	for _, p := range lagPoints(ws) {
		seqs = append(seqs, p.Seq)
	}
	// The full copy (1), the skipped (4) and the failed (5) windows are no points.
	if !slices.Equal(seqs, []int{2, 3, 6}) {
		t.Errorf("lag points of windows %v, want 2, 3, 6", seqs)
	}
	svg := string(lagChartSVG(ws, "1m"))
	for _, want := range []string{`<svg class="chart"`, `role="img"`, "Lag of the 3 windows that ran", "last 45 s (window 6)",
		`class="bound"`, "cut-over bound 1 m", "window 2</text>", `<circle class="dot"`, "window 3: lag 30 s"} {
		if !strings.Contains(svg, want) {
			t.Errorf("lag chart lacks %q: %s", want, svg)
		}
	}
	if svg := string(lagChartSVG(ws, "5m")); strings.Contains(svg, `class="bound"`) {
		t.Errorf("a bound far above the lags is drawn: %s", svg)
	}
	if got := string(lagChartSVG(ws[:2], "5m")); !strings.Contains(got, "once two catch-up windows have run") {
		t.Errorf("one point: %s", got)
	}
	strip := string(windowStripSVG(ws))
	for _, want := range []string{"6 windows, oldest first: 4 ran, 1 skipped, 1 failed", `class="w-skipped"`, `class="w-failed"`, "window 1, full: ran"} {
		if !strings.Contains(strip, want) {
			t.Errorf("strip lacks %q: %s", want, strip)
		}
	}
	if strings.Count(strip, "<rect") != 6 {
		t.Errorf("strip has %d cells, want 6", strings.Count(strip, "<rect"))
	}
}

func TestRelocationPages(t *testing.T) {
	src := fakeSource(1, 0)
	d, err := New(Config{Source: src, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d)
	defer srv.Close()
	c := &client{t: t, url: srv.URL}
	if resp, _ := c.do("GET", "/relocations", nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("signed out: %d; want a redirect to sign in", resp.StatusCode)
	}
	c.do("POST", "/login", url.Values{"secret": {"sv"}})
	for _, p := range []struct {
		path   string
		status int
		want   []string
	}{
		{"/relocations", 200, []string{`href="/relocations" aria-current="page"`, `<a href="/relocations/reloc-aaaa">`, "ns:b → ns:b2",
			"dc1 → dc2", "catching-up", "45 s", `<time datetime="2026-03-01T12:10:00Z">`, "reloc-bbbb", "ended"}},
		{"/relocations/reloc-aaaa", 200, []string{"Lag now", "45 s", `<svg class="chart"`, `<svg class="strip"`,
			"4 ran, 1 skipped, 1 failed.", `data-seq="4" data-outcome="skipped"`, "the window before still ran",
			`data-seq="5" data-outcome="failed"`, "5.0 GiB", "every cell up to", `<a href="/jobs/reloc-job-2">`,
			"<strong>verification</strong>: blocks (a forced cut-over passes over it) — no verification passed yet",
			"No verification ran yet", "There is a report once the relocation has cut over", "*/10 * * * *",
			"<dd>5 m</dd>", "<dd>10 m</dd>"}},
		{"/relocations/reloc-bbbb", 200, []string{"passed (the cut-over", "123456", "7 found, 0 left after the repair",
			"1 h (5 m verifying)", "3.0 GiB", "appears here once two"}},
		{"/relocations/nope", 404, []string{"no such thing"}},
	} {
		resp, body := c.do("GET", p.path, nil)
		if resp.StatusCode != p.status {
			t.Errorf("%s: %d, want %d", p.path, resp.StatusCode, p.status)
		}
		for _, w := range p.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q", p.path, w)
			}
		}
	}

	// A viewer sees no buttons, and a POST of theirs is refused.
	_, body := c.do("GET", "/relocations/reloc-aaaa", nil)
	if strings.Contains(body, `action="/relocations/`) || strings.Contains(body, `class="act-`) {
		t.Error("a viewer's relocation page has action forms")
	}
	viewerCSRF := csrfOf(t, body)
	if resp, _ := c.do("POST", "/relocations/reloc-aaaa/pause", url.Values{"csrf": {viewerCSRF}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer's pause: %d; want 403", resp.StatusCode)
	}

	// An operator: the buttons the phase allows; forged POSTs refused; the actions done.
	c.do("POST", "/logout", url.Values{"csrf": {viewerCSRF}})
	c.do("POST", "/login", url.Values{"secret": {"so"}})
	_, body = c.do("GET", "/relocations/reloc-aaaa", nil)
	for _, a := range []string{"pause", "cancel", "dry-run"} {
		if !strings.Contains(body, `action="/relocations/reloc-aaaa/`+a+`"`) {
			t.Errorf("the operator's page has no %s form", a)
		}
	}
	if strings.Contains(body, `/reloc-aaaa/resume"`) {
		t.Error("a catching-up relocation offers resume")
	}
	if _, done := c.do("GET", "/relocations/reloc-bbbb", nil); strings.Contains(done, `action="/relocations/`) {
		t.Error("an ended relocation offers actions")
	}
	token := csrfOf(t, body)
	for _, forged := range []url.Values{{}, {"csrf": {"x" + token}}, {"csrf": {csrfFor("sv", nil)}}} {
		if resp, _ := c.do("POST", "/relocations/reloc-aaaa/cancel", forged); resp.StatusCode != http.StatusForbidden {
			t.Errorf("cancel with csrf %v: %d; want 403", forged, resp.StatusCode)
		}
	}
	if resp, _ := c.do("POST", "/relocations/reloc-aaaa/pause", url.Values{"csrf": {token}}); resp.StatusCode != http.StatusSeeOther ||
		resp.Header.Get("Location") != "/relocations/reloc-aaaa?did=pause" {
		t.Errorf("pause: %d %s; want 303 to the page", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, body := c.do("GET", "/relocations/reloc-aaaa?did=pause", nil); !strings.Contains(body, "Pause asked") {
		t.Error("after pause the page says nothing")
	}
	if resp, body := c.do("POST", "/relocations/reloc-aaaa/dry-run", url.Values{"csrf": {token}}); resp.StatusCode != http.StatusOK ||
		!strings.Contains(body, "blocked by the verification gate") || !strings.Contains(body, "<li>final window</li>") {
		t.Errorf("dry run: %d; want the page with the plan", resp.StatusCode)
	}
	if resp, body := c.do("POST", "/relocations/reloc-aaaa/resume", url.Values{"csrf": {token}}); resp.StatusCode != http.StatusConflict ||
		!strings.Contains(body, "Refused: only a paused relocation") {
		t.Errorf("resume of a relocation not paused: %d; want 409 with the reason", resp.StatusCode)
	}
	if resp, _ := c.do("POST", "/relocations/reloc-aaaa/explode", url.Values{"csrf": {token}}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown action: %d; want 404", resp.StatusCode)
	}
	if resp, _ := c.do("POST", "/relocations/nope/pause", url.Values{"csrf": {token}}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("pause of no relocation: %d; want 404", resp.StatusCode)
	}
	if got := strings.Join(src.acts, "; "); got != "bob pause reloc-aaaa; bob dry-run reloc-aaaa" {
		t.Errorf("actions done: %s", got)
	}
}

// TestRelocationLive: a relocation page's stream says "changed" when a window is added and
// "end" once the relocation ended; an unknown relocation is a 404 and no id a 400.
func TestRelocationLive(t *testing.T) {
	src := fakeSource(1, 0)
	d, err := New(Config{Source: src, Version: "test", Live: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d)
	defer srv.Close()
	c := &client{t: t, url: srv.URL}
	c.do("POST", "/login", url.Values{"secret": {"sv"}})
	if resp, _ := c.do("GET", "/live/relocation", nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("no id: %d; want 400", resp.StatusCode)
	}
	if resp, _ := c.do("GET", "/live/relocation?id=nope", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown relocation: %d; want 404", resp.StatusCode)
	}
	if _, body := c.do("GET", "/relocations/reloc-aaaa", nil); !strings.Contains(body, `data-relocation="reloc-aaaa"`) {
		t.Error("a running relocation's page does not ask to be followed")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/live/relocation?id=reloc-aaaa", nil)
	req.AddCookie(c.jar[0])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("live: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	edit := func(f func(r *Relocation)) {
		src.mu.Lock()
		defer src.mu.Unlock()
		for i := range src.relocs {
			if src.relocs[i].ID == "reloc-aaaa" {
				f(&src.relocs[i])
			}
		}
	}
	sc := bufio.NewScanner(resp.Body)
	next := func() string {
		for sc.Scan() {
			if ev, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				return ev
			}
		}
		return ""
	}
	edit(func(r *Relocation) {
		r.Windows = append(r.Windows, Window{Seq: 99, Kind: "catch-up", Outcome: "running"})
	})
	if ev := next(); ev != "changed" {
		t.Fatalf("after a new window: event %q; want changed", ev)
	}
	edit(func(r *Relocation) { r.Phase, r.Final = "done", true })
	if ev := next(); ev != "changed" {
		t.Fatalf("after the end: event %q; want changed", ev)
	}
	if ev := next(); ev != "end" {
		t.Fatalf("after the end: event %q; want end", ev)
	}
}
