package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/hbase"
	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// mixedWriter writes into the source tables until stopped: puts with server timestamps,
// overwrites, every delete kind, and, once late is set, late puts with old timestamps, some
// inside the relocation's margin and some older than watermark − margin. The late writes are
// puts into rows of their own: the cut-over's repair copies missing cells again but cannot
// remove cells only the target has, and a late put under a newer delete would be hidden from
// the visible-mode verification.
type mixedWriter struct {
	stop    chan struct{}
	done    chan struct{}
	late    atomic.Bool
	writes  atomic.Int64
	deletes [4]atomic.Int64 // Delete, DeleteColumn, DeleteFamily, DeleteFamilyVersion
	lateIn  atomic.Int64
	lateOut atomic.Int64
	err     error
}

func startMixedWriter(t *testing.T, env *testenv.Env, margin time.Duration, tables ...string) *mixedWriter {
	c := testsupport.Dial(t, env.Source)
	w := &mixedWriter{stop: make(chan struct{}), done: make(chan struct{})}
	cf1, cf2, q := []byte("cf1"), []byte("cf2"), []byte("q")
	go func() {
		defer close(w.done)
		ctx := context.Background()
		do := func(what, tb string, m *hbase.Mutation, del bool) bool {
			var err error
			if del {
				err = c.Delete(ctx, tb, m)
			} else {
				err = c.Put(ctx, tb, m)
			}
			if err != nil {
				w.err = fmt.Errorf("%s in %s: %w", what, tb, err)
				return false
			}
			return true
		}
		row := func(i int) []byte { return []byte(fmt.Sprintf("w%05d", i)) }
		for i := 0; ; i++ {
			select {
			case <-w.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			for _, tb := range tables {
				if !do("put", tb, hbase.NewPut(row(i)).Add(cf1, q, hbase.LatestTimestamp, []byte(fmt.Sprintf("v%d", i))).
					Add(cf2, q, hbase.LatestTimestamp, []byte(strings.Repeat("x", i%50))), false) {
					return
				}
				// Overwrite an older row.
				if !do("overwrite", tb, hbase.NewPut(row(i/2)).Add(cf1, q, hbase.LatestTimestamp, []byte(fmt.Sprintf("again%d", i))), false) {
					return
				}
				switch i % 4 {
				case 0: // the version just overwritten
					if !do("delete a version", tb, hbase.NewDelete(row(i/2)).DeleteVersion(cf1, q, hbase.LatestTimestamp), true) {
						return
					}
				case 1:
					if !do("delete a column", tb, hbase.NewDelete(row(i/3)).DeleteColumn(cf2, q, hbase.LatestTimestamp), true) {
						return
					}
				case 2:
					if !do("delete a family", tb, hbase.NewDelete(row(i/4)).DeleteFamily(cf2, hbase.LatestTimestamp), true) {
						return
					}
				case 3: // the cells of cf1 at one timestamp of the writer's
					ts := uint64(time.Now().UnixMilli() - 1)
					if !do("put at a timestamp", tb, hbase.NewPut(row(i)).Add(cf1, []byte("fv"), ts, []byte("gone")), false) ||
						!do("delete a family version", tb, hbase.NewDelete(row(i)).DeleteFamilyVersion(cf1, ts), true) {
						return
					}
				}
				w.deletes[i%4].Add(1)
				if w.late.Load() && i%2 == 0 {
					now := time.Now().UnixMilli()
					in := uint64(now - margin.Milliseconds()/3)
					out := uint64(now - 10*margin.Milliseconds())
					if !do("late put inside the margin", tb, hbase.NewPut([]byte(fmt.Sprintf("late-in%05d", i))).Add(cf1, q, in, []byte("in")), false) ||
						!do("late put outside the margin", tb, hbase.NewPut([]byte(fmt.Sprintf("late-out%05d", i))).Add(cf2, q, out, []byte("out")), false) {
						return
					}
					w.lateIn.Add(1)
					w.lateOut.Add(1)
				}
				w.writes.Add(1)
			}
		}
	}()
	return w
}

func (w *mixedWriter) halt(t *testing.T) int64 {
	t.Helper()
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	if w.err != nil {
		t.Fatal(w.err)
	}
	return w.writes.Load()
}

// TestServerRelocationRestart relocates two tables while a writer writes every kind of
// mutation, kills the server process (SIGKILL) between two windows and starts another on the
// same data folder and ZooKeeper root (the windows go on, no job is submitted twice), slows a window down until a
// tick is skipped, and cuts over after late writes outside the margin: the cut-over's
// verification re-copies them and the target equals the source, raw cell for raw cell.
func TestServerRelocationRestart(t *testing.T) {
	env := testenv.Get(t)
	bin := filepath.Join(t.TempDir(), "rangecopy")
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "rangecopy/cmd/rangecopy").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	u := testenv.UniqueName(t, "s")
	dataDir := t.TempDir()
	args := []string{"--zk", env.Target.ZKQuorum, "--zk-root", "/rangecopy-test/" + u, "--workers", "2",
		"--user", env.Target.User, "--work-dir", "/tmp/rangecopy-test/" + u, "--session-timeout", "4s"}
	r, first := startServerProc(t, bin, dataDir, args...)
	r.registerClusters(env)
	ta := copytest.CreateSource(t, env, "rrsa")
	tb := copytest.CreateSource(t, env, "rrsb")
	tbMoved := tb + "_moved"
	copytest.WriteRounds(t, env.Source, ta, copytest.BinaryRows(80), 2, time.Now().UnixMilli()-3_600_000, true)
	copytest.WriteRounds(t, env.Source, tb, copytest.BinaryRows(40), 2, time.Now().UnixMilli()-3_600_000, true)
	copytest.DropTargetLater(t, env, ta)
	copytest.DropTargetLater(t, env, tbMoved)

	const margin = 30 * time.Second
	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations", map[string]any{"source": "src", "target": "dst",
		"tables": []string{ta, tb + "→" + tbMoved}, "schedule": "*/4 * * * * *", "margin": margin.String()})
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	var rel api.RelocationOut
	a.decode(t, &rel)
	w := startMixedWriter(t, env, margin, ta, tb)
	defer w.halt(t)

	// Ready, and between two windows: the server is stopped.
	before := r.waitRelocation(rel.ID, 4*time.Minute, "ready, 2 catch-ups run, between windows", func(v api.RelocationOut) bool {
		return v.Phase == "ready" && countOutcomes(v.Windows)["ran"] >= 3 && v.RunningWindow == 0
	})
	first.Kill()
	// A tick passes with no server: the one due next, by the last look before the kill.
	if before.NextTick == nil {
		t.Fatalf("relocation %+v has no next tick", before)
	}
	for time.Now().Before(before.NextTick.Add(200 * time.Millisecond)) {
		time.Sleep(100 * time.Millisecond)
	}
	r, second := startServerProc(t, bin, dataDir, args...)
	restarted := r.waitRelocation(rel.ID, 2*time.Minute, "ready with 2 windows run after the restart", func(v api.RelocationOut) bool {
		return v.Phase == "ready" && countOutcomes(v.Windows)["ran"] >= countOutcomes(before.Windows)["ran"]+2
	})
	if n := len(before.Windows); !windowsPrefix(before.Windows, restarted.Windows) ||
		restarted.Windows[n].Kind != "catch-up" || restarted.Windows[n].Outcome != "ran" {
		t.Errorf("windows before the restart %+v, after %+v; want the same first %d, then a catch-up that ran", before.Windows, restarted.Windows, n)
	}

	// A slow window: a tick that finds it running is skipped.
	if a := r.do(r.oper, http.MethodPatch, api.APIPrefix+"/relocations/"+rel.ID, map[string]any{"schedule": "*/2 * * * * *", "bandwidth": "2KB/s"}); a.status != http.StatusOK {
		t.Fatalf("patch a low bandwidth: %d %s", a.status, a.body)
	}
	r.waitRelocation(rel.ID, 2*time.Minute, "with a skipped window", func(v api.RelocationOut) bool {
		for _, win := range v.Windows[len(restarted.Windows):] {
			if win.Outcome == "skipped" {
				return true
			}
		}
		return false
	})
	if a := r.do(r.oper, http.MethodPatch, api.APIPrefix+"/relocations/"+rel.ID, map[string]any{"schedule": "*/4 * * * * *", "bandwidth": "none"}); a.status != http.StatusOK {
		t.Fatalf("patch the bandwidth away: %d %s", a.status, a.body)
	}
	rel = r.waitRelocation(rel.ID, 3*time.Minute, "ready after the slow window", func(v api.RelocationOut) bool { return v.Phase == "ready" && v.RunningWindow == 0 })

	// Late writes, then the writer stops and the cut-over runs.
	w.late.Store(true)
	for w.lateOut.Load() < 6 {
		select {
		case <-w.done:
			t.Fatalf("writer: %v", w.err)
		case <-time.After(200 * time.Millisecond):
		}
	}
	writes := w.halt(t)
	a = r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations/"+rel.ID+"/cutover", map[string]any{})
	if a.status != http.StatusOK {
		t.Fatalf("cut-over: %d %s", a.status, a.body)
	}
	done := r.waitRelocation(rel.ID, 6*time.Minute, "done", func(v api.RelocationOut) bool { return v.Phase == "done" })
	rep := done.Report
	if rep == nil || len(rep.Tables) != 2 || rep.Differences == 0 || rep.RangesRecopied < 1 || rep.Remaining != 0 || rep.Windows["skipped"] < 1 {
		t.Fatalf("done: report %+v", rep)
	}
	// The windows copied the late writes inside the margin; the verification found the others.
	if rep.Differences != w.lateOut.Load() {
		t.Errorf("the cut-over found %d differences; want the %d late writes outside the margin", rep.Differences, w.lateOut.Load())
	}
	na := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: ta, TargetTable: ta, Mode: testsupport.Raw})
	nb := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: tb, TargetTable: tbMoved, Mode: testsupport.Raw})

	// Nothing submitted twice: every window's jobs are its own, and no two jobs of the
	// catalog copy the same table, rows and time range.
	seen := map[string]int{}
	for _, win := range done.Windows {
		want := 2
		if win.Outcome == "skipped" {
			want = 0
		}
		if len(win.JobIDs) != want {
			t.Errorf("window %d (%s) has jobs %v; want %d", win.Seq, win.Outcome, win.JobIDs, want)
		}
		for _, id := range win.JobIDs {
			if s, ok := seen[id]; ok {
				t.Errorf("job %s is in windows %d and %d", id, s, win.Seq)
			}
			seen[id] = win.Seq
		}
	}
	if err := second.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := second.Wait(); err != nil {
		t.Fatalf("server after SIGTERM: %v\nstderr:\n%s", err, second.Stderr())
	}
	cat, err := catalog.Open(t.Context(), "sqlite://"+filepath.Join(dataDir, "catalog.db"), catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	jobs := allJobs(t, cat)
	specs := map[string]string{}
	for _, j := range jobs {
		var req job.Request
		if err := json.Unmarshal([]byte(j.Spec), &req); err != nil {
			t.Fatalf("job %s spec %s: %v", j.ID, j.Spec, err)
		}
		k := fmt.Sprintf("%s [%q, %q) [%d, %d)", req.Table, req.StartRow, req.StopRow, deref(req.StartTime), deref(req.EndTime))
		if other, ok := specs[k]; ok {
			t.Errorf("jobs %s and %s both copy %s", other, j.ID, k)
		}
		specs[k] = j.ID
		delete(seen, j.ID)
	}
	if len(seen) != 0 {
		t.Errorf("window jobs not in the catalog: %v", seen)
	}
	t.Logf("relocated %d + %d raw cells; %d writes (deletes by kind %d/%d/%d/%d, %d late inside the margin, %d outside); server killed after window %d; windows %v; %d jobs; report: %d cells compared, %d differences, %d remaining, %d ranges re-copied, %d bytes copied, %d ms",
		na.Cells, nb.Cells, writes, w.deletes[0].Load(), w.deletes[1].Load(), w.deletes[2].Load(), w.deletes[3].Load(), w.lateIn.Load(), w.lateOut.Load(),
		len(before.Windows), countOutcomes(done.Windows), len(jobs), rep.CellsCompared, rep.Differences, rep.Remaining, rep.RangesRecopied, rep.BytesCopied, rep.DurationMs)
}

// startServerProc runs rangecopy server as a process on dataDir with args until it serves, and
// returns a rig that calls it with the bootstrap admin token in every role.
func startServerProc(t *testing.T, bin, dataDir string, args ...string) (*rig, *testenv.Process) {
	t.Helper()
	p := testenv.StartProcess(t, 5*time.Minute, bin, append([]string{"server", "--data-dir", dataDir, "--listen", "127.0.0.1:0"}, args...)...)
	deadline := time.Now().Add(time.Minute)
	for {
		for _, line := range strings.Split(p.Stderr(), "\n") {
			if u, ok := strings.CutPrefix(line, "rangecopy server: serving "); ok {
				tok, err := os.ReadFile(filepath.Join(dataDir, "admin-token"))
				if err != nil {
					t.Fatalf("admin token: %v", err)
				}
				secret := strings.TrimSpace(string(tok))
				r := &rig{t: t, url: strings.TrimSuffix(strings.TrimSpace(u), api.APIPrefix), admin: secret, viewer: secret, oper: secret, stop: p.Kill}
				r.loadSpec()
				return r, p
			}
		}
		if time.Now().After(deadline) {
			p.Kill()
			t.Fatalf("rangecopy server does not serve after a minute; stderr:\n%s", p.Stderr())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// windowsPrefix tells whether the windows of a and b agree on a's windows (seq, kind, outcome,
// jobs): what a restart must keep.
func windowsPrefix(a, b []api.WindowOut) bool {
	if len(b) <= len(a) {
		return false
	}
	for i := range a {
		if a[i].Seq != b[i].Seq || a[i].Kind != b[i].Kind || a[i].Outcome != b[i].Outcome || strings.Join(a[i].JobIDs, ",") != strings.Join(b[i].JobIDs, ",") {
			return false
		}
	}
	return true
}

func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// allJobs reads every job of the catalog, page after page.
func allJobs(t *testing.T, c *catalog.Catalog) []catalog.Job {
	t.Helper()
	var out []catalog.Job
	f := catalog.JobFilter{Limit: catalog.MaxPageSize}
	for {
		p, err := c.ListJobs(t.Context(), f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Jobs...)
		if p.Next == "" {
			return out
		}
		f.Cursor = p.Next
	}
}
