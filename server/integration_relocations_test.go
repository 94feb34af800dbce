package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/hbase"
	"rangecopy/internal/testsupport"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// waitRelocation polls GET /relocations/{id} until cond holds, for at most d; it fails the
// test if the relocation fails or is cancelled unless cond accepts that.
func (r *rig) waitRelocation(id string, d time.Duration, what string, cond func(api.RelocationOut) bool) api.RelocationOut {
	r.t.Helper()
	deadline := time.Now().Add(d)
	var v api.RelocationOut
	for {
		a := r.do(r.viewer, http.MethodGet, api.APIPrefix+"/relocations/"+id, nil)
		if a.status != http.StatusOK {
			r.t.Fatalf("get relocation %s: %d %s", id, a.status, a.body)
		}
		v = api.RelocationOut{}
		a.decode(r.t, &v)
		if cond(v) {
			return v
		}
		if v.Phase == "failed" || v.Phase == "cancelled" {
			r.t.Fatalf("relocation %s %s: %s", id, v.Phase, v.Why)
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("relocation %s: not %s after %s: phase %s (%s), %d windows, gates %+v", id, what, d, v.Phase, v.Why, len(v.Windows), v.Gates)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func countOutcomes(ws []api.WindowOut) map[string]int {
	out := map[string]int{}
	for _, w := range ws {
		out[string(w.Outcome)]++
	}
	return out
}

// writer puts rows into the source tables with server timestamps, and deletes some, until
// stopped.
type writer struct {
	stop   chan struct{}
	done   chan struct{}
	writes atomic.Int64
	err    error
}

func startWriter(t *testing.T, env *testenv.Env, tables ...string) *writer {
	c := testsupport.Dial(t, env.Source)
	w := &writer{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		ctx := context.Background()
		for i := 0; ; i++ {
			select {
			case <-w.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			for _, tb := range tables {
				row := []byte(fmt.Sprintf("w%05d", i))
				m := hbase.NewPut(row).Add([]byte("cf1"), []byte("q"), hbase.LatestTimestamp, []byte(fmt.Sprintf("v%d", i))).
					Add([]byte("cf2"), []byte("q"), hbase.LatestTimestamp, []byte(strings.Repeat("x", i%50)))
				if err := c.Put(ctx, tb, m); err != nil {
					w.err = fmt.Errorf("put %s into %s: %w", row, tb, err)
					return
				}
				// Overwrite an older row, and delete a column of another now and then.
				old := []byte(fmt.Sprintf("w%05d", i/2))
				if err := c.Put(ctx, tb, hbase.NewPut(old).Add([]byte("cf1"), []byte("q"), hbase.LatestTimestamp, []byte(fmt.Sprintf("again%d", i)))); err != nil {
					w.err = fmt.Errorf("overwrite %s in %s: %w", old, tb, err)
					return
				}
				if i%7 == 3 {
					gone := []byte(fmt.Sprintf("w%05d", i/3))
					if err := c.Delete(ctx, tb, hbase.NewDelete(gone).DeleteColumn([]byte("cf2"), []byte("q"), hbase.LatestTimestamp)); err != nil {
						w.err = fmt.Errorf("delete from %s in %s: %w", gone, tb, err)
						return
					}
				}
				w.writes.Add(1)
			}
		}
	}()
	return w
}

func (w *writer) halt(t *testing.T) int64 {
	t.Helper()
	close(w.stop)
	<-w.done
	if w.err != nil {
		t.Fatal(w.err)
	}
	return w.writes.Load()
}

// TestServerRelocation relocates two tables (one renamed) on a schedule of seconds while a
// writer writes, pauses and resumes it, changes it, and cuts it over: the target equals the
// source, raw cell for raw cell.
func TestServerRelocation(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 2)
	r.registerClusters(env)
	ta := copytest.CreateSource(t, env, "rela")
	tb := copytest.CreateSource(t, env, "relb")
	tbMoved := tb + "_moved"
	copytest.WriteRounds(t, env.Source, ta, copytest.BinaryRows(200), 2, time.Now().UnixMilli()-3_600_000, true)
	copytest.WriteRounds(t, env.Source, tb, copytest.BinaryRows(100), 2, time.Now().UnixMilli()-3_600_000, true)
	copytest.DropTargetLater(t, env, ta)
	copytest.DropTargetLater(t, env, tbMoved)

	base := func() map[string]any {
		return map[string]any{"source": "src", "target": "dst", "tables": []string{ta, tb + "→" + tbMoved},
			"schedule": "*/5 * * * * *", "margin": "30s"}
	}
	with := func(k string, v any) map[string]any {
		m := base()
		m[k] = v
		return m
	}
	// Bad input: a 400 naming the field, nothing created.
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{with("schedule", "every five seconds"), "schedule"},
		{with("schedule", "*/5 * * * * * *"), "schedule"},
		{with("source", "nope"), "source"},
		{with("target", "nowhere"), "target"},
		{with("margin", "-1m"), "margin"},
		{with("margin", "soon"), "margin"},
		{with("tables", []string{"bad table!"}), "tables[0]"},
		{func() map[string]any { m := with("startRow", "b"); m["stopRow"] = "a"; return m }(), "stopRow"},
		{with("bandwidth", "fast"), "bandwidth"},
	} {
		a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations", c.body)
		if a.status != http.StatusBadRequest || !strings.Contains(string(a.body), c.field) {
			t.Errorf("create %v: %d %s; want a 400 naming %s", c.body, a.status, a.body, c.field)
		}
	}
	if a := r.do(r.viewer, http.MethodPost, api.APIPrefix+"/relocations", base()); a.status != http.StatusForbidden {
		t.Errorf("create by a viewer: %d; want 403", a.status)
	}
	if rs, _ := r.s.Catalog().ListRelocations(t.Context(), false); len(rs) != 0 {
		t.Fatalf("refused creations created relocations: %+v", rs)
	}

	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations", base())
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	var rel api.RelocationOut
	a.decode(t, &rel)
	if rel.Phase != "copying" || len(rel.Tables) != 2 || rel.Tables[1].Target != tbMoved || rel.Margin != "30s" || rel.MaxLag != "5m0s" ||
		len(rel.Windows) != 1 || rel.Windows[0].Kind != "full" || rel.CreatedBy != "test operator" {
		t.Errorf("created %+v", rel)
	}
	// The same table again overlaps.
	if a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations", with("tables", []string{tb})); a.status != http.StatusBadRequest ||
		!strings.Contains(string(a.body), "tables") || !strings.Contains(string(a.body), rel.ID) {
		t.Errorf("an overlapping relocation: %d %s; want a 400 naming tables and %s", a.status, a.body, rel.ID)
	}
	w := startWriter(t, env, ta, tb)
	defer func() {
		select {
		case <-w.done:
		default:
			w.halt(t)
		}
	}()

	// The full copy, then windows; a dry run before any catch-up is blocked by the lag gate.
	rel = r.waitRelocation(rel.ID, 4*time.Minute, "catching up", func(v api.RelocationOut) bool { return v.Phase != "copying" })
	var dry struct{ Body api.CutoverOut }
	r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations/"+rel.ID+"/cutover", map[string]any{"dryRun": true}).decode(t, &dry.Body)
	if !dry.Body.DryRun || (rel.LagMs == nil && dry.Body.Blocked != "lag") {
		t.Errorf("dry run before a catch-up: %+v", dry.Body)
	}
	rel = r.waitRelocation(rel.ID, 4*time.Minute, "ready with 3 windows run", func(v api.RelocationOut) bool {
		return v.Phase == "ready" && countOutcomes(v.Windows)["ran"] >= 4
	})
	if rel.Verification == nil || !rel.Verification.Passed || rel.LagMs == nil || *rel.LagMs <= 0 {
		t.Errorf("ready relocation: verification %+v lag %v", rel.Verification, rel.LagMs)
	}
	for i, win := range rel.Windows {
		if win.Outcome == "ran" && win.Kind == "catch-up" {
			prev := rel.Windows[:i]
			var wm int64
			for _, p := range prev {
				if p.Outcome == "ran" {
					wm = p.SnapshotTime
				}
			}
			if win.StartTime != max(0, wm-30_000) || win.EndTime != win.SnapshotTime || len(win.JobIDs) != 2 || win.FinishedAt == nil {
				t.Errorf("window %d %+v; want [%d - 30s, snapshot) with 2 jobs", win.Seq, win, wm)
			}
		}
	}

	// Changed while it runs.
	a = r.do(r.oper, http.MethodPatch, api.APIPrefix+"/relocations/"+rel.ID, map[string]any{"schedule": "*/3 * * * * *", "margin": "20s", "bandwidth": "50MB/s"})
	if a.status != http.StatusOK {
		t.Fatalf("patch: %d %s", a.status, a.body)
	}
	var patched api.RelocationOut
	a.decode(t, &patched)
	if patched.Schedule != "*/3 * * * * *" || patched.Margin != "20s" || patched.Bandwidth != "50MB/s" {
		t.Errorf("patched %+v", patched)
	}
	if a := r.do(r.oper, http.MethodPatch, api.APIPrefix+"/relocations/"+rel.ID, map[string]any{"margin": "-5s"}); a.status != http.StatusBadRequest || !strings.Contains(string(a.body), "margin") {
		t.Errorf("patch a negative margin: %d %s", a.status, a.body)
	}

	// Paused: no window starts; resumed: windows go on.
	if a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations/"+rel.ID+"/pause", nil); a.status != http.StatusOK {
		t.Fatalf("pause: %d %s", a.status, a.body)
	}
	// A window running when the relocation pauses has its jobs paused with it (it ends after
	// the resume), so the relocation is paused with or without a running window.
	paused := r.waitRelocation(rel.ID, time.Minute, "paused", func(v api.RelocationOut) bool {
		return v.Phase == "paused"
	})
	if a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations/"+rel.ID+"/pause", nil); a.status != http.StatusConflict {
		t.Errorf("pause again: %d %s; want 409", a.status, a.body)
	}
	// The tick due next would start a window: once it is due the server looks at the
	// relocation every 50 ms (at most every poll, 500 ms). Watch for a window from the pause
	// until that tick (or now, if it was due already) and a further tick of */3 have come,
	// several looks each.
	if paused.NextTick == nil {
		t.Fatalf("paused relocation %+v has no next tick: nothing shows whether a tick starts a window", paused)
	}
	due := *paused.NextTick
	if now := time.Now(); due.Before(now) {
		due = now
	}
	for quiet := due.Add(3*time.Second + 4*500*time.Millisecond); ; {
		again := r.waitRelocation(rel.ID, time.Second, "paused", func(api.RelocationOut) bool { return true })
		if len(again.Windows) != len(paused.Windows) {
			t.Fatalf("windows made while paused: %d, then %d", len(paused.Windows), len(again.Windows))
		}
		if time.Now().After(quiet) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations/"+rel.ID+"/resume", nil); a.status != http.StatusOK {
		t.Fatalf("resume: %d %s", a.status, a.body)
	}
	rel = r.waitRelocation(rel.ID, 3*time.Minute, "ready, with windows after the pause", func(v api.RelocationOut) bool {
		return v.Phase == "ready" && len(v.Windows) > len(paused.Windows) && v.Windows[len(paused.Windows)].FinishedAt != nil &&
			countOutcomes(v.Windows)["ran"] > countOutcomes(paused.Windows)["ran"]
	})
	// With no window running at the pause, the missed ticks make one catch-up at once; with
	// one running (its jobs paused, then resumed), that tick may find it still running.
	if after := rel.Windows[len(paused.Windows)]; after.Kind != "catch-up" || (paused.RunningWindow == 0 && after.Outcome == "skipped") {
		t.Errorf("the first window after resuming: %+v (a window was running at the pause: %v); want one catch-up at once", after, paused.RunningWindow != 0)
	}

	// The writers stop (the application moves); the cut-over, a viewer first.
	writes := w.halt(t)
	if a := r.do(r.viewer, http.MethodPost, api.APIPrefix+"/relocations/"+rel.ID+"/cutover", map[string]any{}); a.status != http.StatusForbidden {
		t.Errorf("cut-over by a viewer: %d; want 403", a.status)
	}
	dry.Body = api.CutoverOut{}
	r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations/"+rel.ID+"/cutover", map[string]any{"dryRun": true}).decode(t, &dry.Body)
	if dry.Body.Blocked != "" || len(dry.Body.Steps) < 4 || len(dry.Body.Gates) != 3 {
		t.Errorf("dry run when ready: %+v", dry.Body)
	}
	a = r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations/"+rel.ID+"/cutover", map[string]any{})
	if a.status != http.StatusOK {
		t.Fatalf("cut-over: %d %s", a.status, a.body)
	}
	done := r.waitRelocation(rel.ID, 6*time.Minute, "done", func(v api.RelocationOut) bool { return v.Phase == "done" })
	rep := done.Report
	if rep == nil || len(rep.Tables) != 2 || rep.Remaining != 0 || rep.CellsCompared == 0 || rep.BytesCopied == 0 || rep.Windows["ran"] < 5 ||
		done.FinishedAt == nil || done.Windows[len(done.Windows)-1].Kind != "final" {
		t.Fatalf("done: report %+v, windows %d", rep, len(done.Windows))
	}
	if a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations/"+rel.ID+"/cancel", nil); a.status != http.StatusConflict {
		t.Errorf("cancel a done relocation: %d %s; want 409", a.status, a.body)
	}
	na := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: ta, TargetTable: ta, Mode: testsupport.Raw})
	nb := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: tb, TargetTable: tbMoved, Mode: testsupport.Raw})

	var list struct {
		Relocations []api.RelocationOut `json:"relocations"`
	}
	r.do(r.viewer, http.MethodGet, api.APIPrefix+"/relocations", nil).decode(t, &list)
	if len(list.Relocations) != 1 || list.Relocations[0].Phase != "done" {
		t.Errorf("list: %+v", list.Relocations)
	}
	var audit struct {
		Entries []api.AuditOut `json:"entries"`
	}
	r.do(r.admin, http.MethodGet, api.APIPrefix+"/audit?limit=1000", nil).decode(t, &audit)
	ops := map[string]int{}
	for _, e := range audit.Entries {
		ops[e.Operation+"/"+http.StatusText(e.Status)]++
	}
	for _, want := range []string{"create-relocation/Created", "create-relocation/Bad Request", "create-relocation/Forbidden", "patch-relocation/OK",
		"pause-relocation/OK", "resume-relocation/OK", "cutover-relocation/OK", "cutover-relocation/Forbidden"} {
		if ops[want] == 0 {
			t.Errorf("audit log has no %s: %v", want, ops)
		}
	}
	t.Logf("relocated %d + %d raw cells; %d writes meanwhile; windows %v; report: %d cells compared, %d differences, %d remaining, %d ranges re-copied, %d bytes copied, %d ms",
		na.Cells, nb.Cells, writes, countOutcomes(done.Windows), rep.CellsCompared, rep.Differences, rep.Remaining, rep.RangesRecopied, rep.BytesCopied, rep.DurationMs)
}
