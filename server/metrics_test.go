package server

import (
	"bufio"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

func TestRelocationLag(t *testing.T) {
	now := time.UnixMilli(10_000_000)
	win := func(kind string, lagMs, snapshotAgoMs int64) *catalog.RelocationWindow {
		return &catalog.RelocationWindow{Kind: kind, LagMs: lagMs, SnapshotTime: now.UnixMilli() - snapshotAgoMs}
	}
	for _, c := range []struct {
		name          string
		last, running *catalog.RelocationWindow
		want          time.Duration
		ok            bool
	}{
		{name: "nothing ran"},
		{name: "the full copy runs", running: win("full", 0, 3_600_000)},
		{name: "the full copy ran", last: win("full", 90_000, 0)},
		{name: "a catch-up ran", last: win("catch-up", 40_000, 0), want: 40 * time.Second, ok: true},
		{name: "a catch-up runs, not yet past the last one's lag", last: win("catch-up", 40_000, 0),
			running: win("catch-up", 0, 10_000), want: 40 * time.Second, ok: true},
		{name: "a catch-up runs long", last: win("catch-up", 40_000, 0),
			running: win("catch-up", 0, 600_000), want: 10 * time.Minute, ok: true},
		{name: "the first catch-up runs after the full copy", last: win("full", 90_000, 0),
			running: win("catch-up", 0, 20_000), want: 20 * time.Second, ok: true},
		{name: "the final window runs", last: win("catch-up", 40_000, 0),
			running: win("final", 0, 50_000), want: 50 * time.Second, ok: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := relocationLag(c.last, c.running, now)
			if got != c.want || ok != c.ok {
				t.Errorf("lag %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

// TestRelocationMetrics: the leader exports an open relocation's lag, gate, phase and
// watermark from the catalog (a real SQLite one), a server that does not lead nothing.
func TestRelocationMetrics(t *testing.T) {
	cat, r := catalogWithRelocation(t)
	s := &Server{cat: cat, cfg: Config{Logger: slog.New(slog.DiscardHandler)},
		metrics: &serverMetrics{catalogErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "errors_total", Help: "x"})}}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(relocationCollector{s: s})
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 0 {
		t.Fatalf("%d series (%v) from a server that does not lead", n, err)
	}
	s.isLead = true
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range m.GetLabel() {
				key += "," + l.GetName() + "=" + l.GetValue()
			}
			got[key] = m.GetGauge().GetValue()
		}
	}
	rel := ",relocation=" + r.ID
	if v := got["rangecopy_relocation_lag_seconds"+rel]; v < 20*60 || v > 21*60 {
		t.Errorf("lag %v s, want about 1200 (the running window's 20 minutes)", v)
	}
	if v := got["rangecopy_relocation_max_lag_seconds"+rel]; v != 300 {
		t.Errorf("max lag %v s, want 300", v)
	}
	if v := got["rangecopy_relocation_phase,phase=catching-up"+rel]; v != 1 {
		t.Errorf("phase catching-up %v, want 1 (got %v)", v, got)
	}
	if v := got["rangecopy_relocation_watermark_timestamp_seconds"+rel]; v != float64(r.Watermark)/1000 {
		t.Errorf("watermark %v, want %v", v, float64(r.Watermark)/1000)
	}
	if v := testutil.ToFloat64(s.metrics.catalogErrors); v != 0 {
		t.Errorf("%v catalog errors", v)
	}
}

// catalogWithRelocation is a SQLite catalog of the test's own holding one relocation
// catching up: its full copy and a first catch-up ran, a second catch-up has run for 20
// minutes past its snapshot time (over the gate of 5).
func catalogWithRelocation(t *testing.T) (*catalog.Catalog, catalog.Relocation) {
	ctx := t.Context()
	cat, err := catalog.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "catalog.db"), catalog.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	now := time.Now().UTC()
	started := now.Add(-time.Hour)
	finished := now.Add(-50 * time.Minute)
	r := catalog.Relocation{ID: catalog.NewRelocationID(), SourceCluster: "dc1", TargetCluster: "dc2",
		Tables: []catalog.RelocationTable{{Source: "t"}}, Schedule: "*/10 * * * *", MarginMs: 600_000, MaxLagMs: 300_000,
		Phase: "catching-up", Watermark: now.Add(-55 * time.Minute).UnixMilli(), Seq: 3, LastSeq: 2, RunningSeq: 3}
	ws := []catalog.RelocationWindow{
		{RelocationID: r.ID, Seq: 1, Kind: "full", SnapshotTime: started.UnixMilli(), StartedAt: started, FinishedAt: &finished,
			Outcome: "ran", LagMs: 600_000},
		{RelocationID: r.ID, Seq: 2, Kind: "catch-up", SnapshotTime: r.Watermark, StartedAt: finished, FinishedAt: &finished,
			Outcome: "ran", LagMs: 240_000},
		{RelocationID: r.ID, Seq: 3, Kind: "catch-up", SnapshotTime: now.Add(-20 * time.Minute).UnixMilli(),
			StartedAt: now.Add(-20 * time.Minute), Outcome: "running"},
	}
	if _, err := cat.CreateRelocation(ctx, r, nil, ws...); err != nil {
		t.Fatal(err)
	}
	return cat, r
}

// TestServerMetrics: a real server's /metrics labels API requests by route pattern (never
// the raw path) and code, counts the dashboard's apart, and exports the build, the session,
// the leadership and the embedded workers' metrics; no series has a label named job.
func TestServerMetrics(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 1)
	r.do(r.viewer, http.MethodGet, api.APIPrefix+"/jobs", nil)
	r.do(r.viewer, http.MethodGet, api.APIPrefix+"/jobs/no-such-job", nil)
	for _, path := range []string{api.APIPrefix + "/no/such/route-x7", "/jobs"} {
		resp, err := http.Get(r.url + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	var got map[string]float64
	deadline := time.Now().Add(30 * time.Second)
	for got = r.scrape(); got["rangecopy_master_leader"] != 1; got = r.scrape() {
		if time.Now().After(deadline) {
			t.Fatal("rangecopy_master_leader not 1 after 30 s of the only server")
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, want := range []string{
		`rangecopy_api_requests_total{code="200",route="GET /api/v1/jobs"}`,
		`rangecopy_api_request_duration_seconds_count{code="200",route="GET /api/v1/jobs"}`,
		`rangecopy_api_requests_total{code="404",route="GET /api/v1/jobs/{id}"}`,
		`rangecopy_api_requests_total{code="404",route="unmatched"}`,
		`rangecopy_zookeeper_session_up`,
		`rangecopy_master_jobs_ended_total{outcome="done"}`,
		`rangecopy_worker_task_duration_seconds_count{outcome="done"}`,
	} {
		if _, ok := got[want]; !ok {
			t.Errorf("no %s", want)
		}
	}
	if got[`rangecopy_zookeeper_session_up`] != 1 {
		t.Error("rangecopy_zookeeper_session_up is not 1")
	}
	build, dash := false, 0.0
	for k, v := range got {
		switch {
		case strings.HasPrefix(k, "rangecopy_build_info{"):
			build = v == 1 && strings.Contains(k, `version="test"`) && strings.Contains(k, `goversion="go`)
		case strings.HasPrefix(k, "rangecopy_dashboard_requests_total{"):
			dash += v
		case strings.HasPrefix(k, "rangecopy_api_") && (strings.Contains(k, "route-x7") || strings.Contains(k, "no-such-job")):
			t.Errorf("a raw path in a label: %s", k)
		case strings.HasPrefix(k, "rangecopy_api_") && strings.Contains(k, `route="GET /jobs`):
			t.Errorf("dashboard traffic in the API's metrics: %s", k)
		}
		if strings.Contains(k, "{job=") || strings.Contains(k, ",job=") {
			t.Errorf("a label named job: %s", k)
		}
	}
	if !build {
		t.Error("no rangecopy_build_info{version=\"test\",goversion=...} 1")
	}
	if dash < 1 {
		t.Error("the dashboard request was not counted in rangecopy_dashboard_requests_total")
	}
}

// scrape reads the server's /metrics (as a viewer) as text: each sample's value by its
// name and labels.
func (r *rig) scrape() map[string]float64 {
	t := r.t
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, r.url+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+r.viewer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			t.Fatalf("bad sample line %q", line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("bad sample line %q", line)
		}
		out[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// perJobSeries are the samples of a scrape that carry a job's or a relocation's label
// (job_id or relocation set), by their line.
func perJobSeries(scraped map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range scraped {
		if strings.Contains(k, `job_id="`) && !strings.Contains(k, `job_id=""`) || strings.Contains(k, `relocation="`) && !strings.Contains(k, `relocation=""`) {
			out[k] = v
		}
	}
	return out
}

// TestServerRelocationMetrics relocates a table on the real clusters through a real server
// with embedded workers: the window jobs' series are the relocation's (labelled
// relocation, never by a window job's id), the lag and its gate show while it catches up,
// and once it is cancelled and its jobs ended, no series of it or of its jobs is left.
func TestServerRelocationMetrics(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 2)
	r.registerClusters(env)
	table := copytest.CreateSource(t, env, "relm")
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(100), 2, time.Now().UnixMilli()-3_600_000, true)
	copytest.DropTargetLater(t, env, table)
	if n := len(perJobSeries(r.scrape())); n != 0 {
		t.Fatalf("%d per-job series before any job", n)
	}

	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations", map[string]any{"source": "src", "target": "dst",
		"tables": []string{table}, "schedule": "*/5 * * * * *", "margin": "30s"})
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	var rel api.RelocationOut
	a.decode(t, &rel)
	relLabel := `relocation="` + rel.ID + `"`
	// Scrape while it copies and catches up: every per-job series is the relocation's.
	var read, lag, maxLag float64
	var scrapes int
	deadline := time.Now().Add(4 * time.Minute)
	for {
		scrapes++
		got := r.scrape()
		for k, v := range perJobSeries(got) {
			switch {
			case !strings.Contains(k, relLabel):
				t.Fatalf("a series of the relocation's jobs not labelled by it: %s", k)
			case strings.HasPrefix(k, "rangecopy_worker_read_bytes_total{"):
				read = max(read, v)
			case strings.HasPrefix(k, "rangecopy_relocation_lag_seconds{"):
				lag = v
			case strings.HasPrefix(k, "rangecopy_relocation_max_lag_seconds{"):
				maxLag = v
			}
		}
		v := r.waitRelocation(rel.ID, time.Minute, "readable", func(api.RelocationOut) bool { return true })
		if read > 0 && lag > 0 && countOutcomes(v.Windows)["ran"] >= 3 {
			rel = v
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 4 minutes: read %v, lag %v, relocation %s with windows %v", read, lag, v.Phase, countOutcomes(v.Windows))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if maxLag != 300 {
		t.Errorf("max lag %v s, want 300 (the default 5m)", maxLag)
	}
	var jobs []string
	for _, w := range rel.Windows {
		jobs = append(jobs, w.JobIDs...)
	}

	// Cancelled: once its jobs ended, the next scrapes hold nothing of it.
	if a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/relocations/"+rel.ID+"/cancel", nil); a.status != http.StatusOK {
		t.Fatalf("cancel: %d %s", a.status, a.body)
	}
	deadline = time.Now().Add(2 * time.Minute)
	var left map[string]float64
	for {
		var v api.RelocationOut
		r.do(r.viewer, http.MethodGet, api.APIPrefix+"/relocations/"+rel.ID, nil).decode(t, &v)
		r.scrape() // shows the last jobs' final counts
		if left = perJobSeries(r.scrape()); v.FinishedAt != nil && len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("2 minutes after the cancel (phase %s): %d series left: %v", v.Phase, len(left), left)
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("%d scrapes while it ran %d windows (%d jobs): the relocation's read %v bytes, lag %v s of max %v s; no series of it left after the cancel",
		scrapes, len(rel.Windows), len(jobs), read, lag, maxLag)
}
