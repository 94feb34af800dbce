package master

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/metrics"
	"rangecopy/registry"
	"rangecopy/testenv"
	"rangecopy/worker"
)

// TestDetachedJobBandwidthAndMetrics runs a detached job whose workers are
// held back by a bandwidth an operator set, changes it while the job runs and
// lifts it: the worker's limiter follows each change (as its metrics show
// it), the job then finishes, the target equals the source, and a scrape of
// the worker's /metrics shows what it read and the tasks it did.
func TestDetachedJobBandwidthAndMetrics(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "dbw")
	// About 1.6 MB of values (about 0.9 MB stored): far more than a
	// limiter's first burst (64 KiB).
	ts := time.Now().UnixMilli() - 100_000
	var cells []testenv.Cell
	for _, row := range binaryRows(200) {
		for _, fam := range []string{"cf1", "cf2"} {
			cells = append(cells, testenv.Cell{Row: row, Family: []byte(fam), Qualifier: []byte("big"), Timestamp: ts, Type: "Put",
				Value: bytes.Repeat([]byte(fmt.Sprintf("%x", row)), 4096/(2*len(row)))})
		}
	}
	if err := env.Source.Mutate(t.Context(), table, cells); err != nil {
		t.Fatal(err)
	}
	if err := env.Source.Flush(t.Context(), table); err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	dropTargetLater(t, env, table)
	reg := openRegistry(t, env, o.ZKRoot)
	id, _, err := Submit(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	// The record says no limit; the operator's override holds the job back
	// from its start.
	if err := reg.SetBandwidth(t.Context(), id, 1000); err != nil {
		t.Fatal(err)
	}

	f := newFleet(t, env, o.ZKRoot)
	f.master("m1")
	preg := prometheus.NewPedanticRegistry()
	wreg := f.session(t.Context())
	m, err := metrics.NewWorker(preg)
	if err != nil {
		t.Fatal(err)
	}
	if err := metrics.NewProcess(preg, metrics.BuildOf("test"), wreg.Connected); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer wreg.Close()
		if err := worker.RunAgent(ctx, worker.AgentConfig{Registry: wreg, ID: "w1", Capacity: 2,
			Refresh: 500 * time.Millisecond, Logger: f.log.With("w", "w1"), Metrics: m}); err != nil {
			t.Errorf("worker: %v", err)
		}
	}()
	t.Cleanup(stop)
	srv := httptest.NewServer(promhttp.HandlerFor(preg, promhttp.HandlerOpts{}))
	t.Cleanup(srv.Close)

	limit := `rangecopy_worker_bandwidth_limit_bytes_per_second{job_id="` + id + `",relocation=""}`
	waitMetric(t, srv.URL, limit, func(v float64, ok bool) bool { return ok && v == 1000 })
	if err := reg.SetBandwidth(t.Context(), id, 5000); err != nil {
		t.Fatal(err)
	}
	waitMetric(t, srv.URL, limit, func(v float64, ok bool) bool { return ok && v == 5000 })
	if j, err := reg.Job(t.Context(), id); err != nil || j.State != registry.JobRunning {
		t.Fatalf("job held back at 5000 B/s: %+v, %v; want it running", j.State, err)
	}
	// The master's report says the limit in force.
	deadline := time.Now().Add(30 * time.Second)
	for {
		rep, ok, err := LoadReport(t.Context(), reg, id)
		if err == nil && ok && rep.BandwidthLimit == 5000 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("report's limit %v (ok %v, err %v); want 5000", rep.BandwidthLimit, ok, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	// Lifted: the limiter lets everything through and the job finishes.
	if err := reg.SetBandwidth(t.Context(), id, 0); err != nil {
		t.Fatal(err)
	}
	waitMetric(t, srv.URL, limit, func(v float64, ok bool) bool {
		if !ok { // the job ended here already
			j, err := reg.Job(t.Context(), id)
			return err == nil && j.State == registry.JobDone
		}
		return v == 0
	})
	waitState(t, reg, id, 3*time.Minute, registry.JobDone)
	n := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw}).Cells
	if n == 0 {
		t.Fatal("nothing copied")
	}

	// Once the worker is done with the job, a last scrape shows its final counts and
	// the job's series are gone from the next.
	var read, loaded float64
	var scraped map[string]float64
	series := func() int {
		n := 0
		for k := range scraped {
			if strings.Contains(k, `job_id="`+id+`"`) {
				n++
			}
		}
		return n
	}
	deadline = time.Now().Add(30 * time.Second)
	for scraped = scrape(t, srv.URL); series() > 0; scraped = scrape(t, srv.URL) {
		read = scraped[`rangecopy_worker_read_bytes_total{job_id="`+id+`",relocation=""}`]
		loaded = scraped[`rangecopy_worker_loaded_bytes_total{job_id="`+id+`",relocation=""}`]
		if time.Now().After(deadline) {
			t.Fatalf("%d series of job %s still there 30 s after it ended", series(), id)
		}
		time.Sleep(200 * time.Millisecond)
	}
	done := scraped[`rangecopy_worker_task_duration_seconds_count{outcome="done"}`]
	if read <= 64<<10 || loaded <= 0 || done < 1 {
		t.Errorf("scraped read %v bytes, loaded %v bytes, %v tasks done; want more than a burst (64 KiB) read, some loaded, a task done", read, loaded, done)
	}
	if scraped["rangecopy_zookeeper_session_up"] != 1 {
		t.Errorf("zookeeper_session_up %v, want 1", scraped["rangecopy_zookeeper_session_up"])
	}
	t.Logf("scraped: read %.0f B, loaded %.0f B, %.0f tasks done; %d cells copied; the job's series gone after it ended", read, loaded, done, n)
}

// scrape reads /metrics as text: each sample line's value by its name and
// labels.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if i < 0 || err != nil {
			t.Fatalf("bad sample line %q", line)
		}
		out[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitMetric scrapes until ok says the sample (its value, and whether it
// is there) is as wanted.
func waitMetric(t *testing.T, url, sample string, ok func(float64, bool) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, there := scrape(t, url)[sample]
		if ok(v, there) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v (there %v) after 30 s", sample, v, there)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
