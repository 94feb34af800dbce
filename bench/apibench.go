package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/cluster"
	"rangecopy/job"
	"rangecopy/master"
)

// APIOptions shape the server API measurement; zero fields take the issue's
// figures.
type APIOptions struct {
	// Jobs is how many ended jobs the catalog holds (default 1,000).
	Jobs int
	// Clients is how many HTTP clients GET at once (default 50).
	Clients int
	// Duration is how long they GET (default 10 s).
	Duration time.Duration
}

func (o APIOptions) withDefaults() APIOptions {
	if o.Jobs <= 0 {
		o.Jobs = 1000
	}
	if o.Clients <= 0 {
		o.Clients = 50
	}
	if o.Duration <= 0 {
		o.Duration = 10 * time.Second
	}
	return o
}

// APIResult is the server API measurement: GET /api/v1/jobs/{id} of random
// jobs by concurrent clients against a server without embedded workers
// whose catalog holds Jobs ended jobs, and one paging through the list.
type APIResult struct {
	Jobs    int `json:"jobs"`
	Clients int `json:"clients"`
	// Latency is the GETs' (milliseconds); Errors counts non-2xx answers
	// and failed requests.
	Latency Latency `json:"latency"`
	// RequestsPerSecond is the successful GETs' rate.
	RequestsPerSecond float64 `json:"requestsPerSecond"`
	// PeakRSS is the server process's VmHWM at the end of the load; CPU
	// its user+system time during the GETs.
	PeakRSS    int64   `json:"peakRssBytes"`
	CPUSeconds float64 `json:"cpuSeconds"`
	// ListPages, ListJobs and ListSeconds: GET /api/v1/jobs?limit=100
	// followed through every page once.
	ListPages   int     `json:"listPages"`
	ListJobs    int     `json:"listJobs"`
	ListSeconds float64 `json:"listSeconds"`
	// StartSeconds is how long the server took to serve; SeedSeconds how
	// long writing the jobs into the catalog took.
	StartSeconds float64 `json:"startSeconds"`
	SeedSeconds  float64 `json:"seedSeconds"`
	Error        string  `json:"error,omitempty"`
}

// MeasureAPI writes o.Jobs ended jobs into a new SQLite catalog (as the server
// records them: specs as submitted, ids as the engine makes them, final
// reports), starts a rangecopy server without embedded workers on it, and
// measures the API under o.Clients concurrent clients.
func (e *Env) MeasureAPI(ctx context.Context, t *Table, o APIOptions) APIResult {
	o = o.withDefaults()
	r := APIResult{Jobs: o.Jobs, Clients: o.Clients}
	e.Logger.Info("server API measurement starting", "jobs", o.Jobs, "clients", o.Clients, "seconds", o.Duration.Seconds())
	if err := e.measureAPI(ctx, t, o, &r); err != nil {
		r.Error = err.Error()
		e.Logger.Warn("server API measurement failed", "err", err)
	}
	e.Logger.Info("server API measurement done", "requests", r.Latency.Count, "p50_ms", r.Latency.P50, "p99_ms", r.Latency.P99,
		"errors", r.Latency.Errors, "peak_rss_mib", r.PeakRSS>>20, "error", r.Error)
	return r
}

func (e *Env) measureAPI(ctx context.Context, t *Table, o APIOptions, r *APIResult) error {
	dir, err := os.MkdirTemp("", "rangecopy-bench-api-")
	if err != nil {
		return fmt.Errorf("server data folder: %w", err)
	}
	defer os.RemoveAll(dir)
	t0 := time.Now()
	ids, err := e.seedCatalog(ctx, filepath.Join(dir, "catalog.db"), t, o.Jobs)
	if err != nil {
		return err
	}
	r.SeedSeconds = time.Since(t0).Seconds()
	t0 = time.Now()
	p, err := e.startServer(ctx, dir, "/"+e.Prefix+"_api", 0, ServerAPI.String())
	if err != nil {
		return err
	}
	defer p.stop()
	r.StartSeconds = time.Since(t0).Seconds()
	cpu0 := procCPUSeconds(p.pid())
	var h Histogram
	start := time.Now()
	deadline := start.Add(o.Duration)
	var wg sync.WaitGroup
	for c := range o.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 13))
			for time.Now().Before(deadline) && ctx.Err() == nil {
				id := ids[rng.IntN(len(ids))]
				s := time.Now()
				var j api.JobOut
				err := p.call(ctx, http.MethodGet, "/jobs/"+id, nil, &j)
				if err != nil || j.ID != id {
					h.RecordError()
					continue
				}
				h.Record(time.Since(s))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	r.Latency = h.Summary(elapsed)
	r.RequestsPerSecond = float64(r.Latency.Count) / elapsed.Seconds()
	r.CPUSeconds = procCPUSeconds(p.pid()) - cpu0
	r.PeakRSS = procKB(fmt.Sprintf("/proc/%d/status", p.pid()), "VmHWM") << 10

	t0 = time.Now()
	cursor := ""
	for {
		var page struct {
			Jobs []api.JobOut `json:"jobs"`
			Next string       `json:"next"`
		}
		path := "/jobs?limit=100"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		if err := p.call(ctx, http.MethodGet, path, nil, &page); err != nil {
			return fmt.Errorf("list jobs: %w", err)
		}
		r.ListPages++
		r.ListJobs += len(page.Jobs)
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	r.ListSeconds = time.Since(t0).Seconds()
	r.PeakRSS = max(r.PeakRSS, procKB(fmt.Sprintf("/proc/%d/status", p.pid()), "VmHWM")<<10)
	if r.ListJobs != len(ids) {
		return fmt.Errorf("list jobs: %d jobs over %d pages, the catalog holds %d", r.ListJobs, r.ListPages, len(ids))
	}
	if r.Latency.Count == 0 {
		return fmt.Errorf("no GET /jobs/{id} succeeded (%d errors)", r.Latency.Errors)
	}
	return nil
}

// seedCatalog creates a SQLite catalog at path with the source and target
// registered and n ended jobs of the table: key ranges of the table, some
// with a time range, each with a final report; it returns their ids.
func (e *Env) seedCatalog(ctx context.Context, path string, t *Table, n int) ([]string, error) {
	cat, err := catalog.Open(ctx, "sqlite://"+path, catalog.Options{})
	if err != nil {
		return nil, fmt.Errorf("seed catalog: %w", err)
	}
	defer cat.Close()
	var cfgs [2]cluster.Config
	for k, c := range []struct{ name, zk, parent, root, user string }{
		{"source", e.Source.ZKQuorum, e.Source.ZNodeParent, e.Source.HBaseRootDir, e.Source.User},
		{"target", e.Target.ZKQuorum, e.Target.ZNodeParent, e.Target.HBaseRootDir, e.Target.User}} {
		cfg, err := cluster.ParseClusterKey(c.name, c.zk+c.parent)
		if err != nil {
			return nil, fmt.Errorf("seed catalog: cluster %s: %w", c.name, err)
		}
		if cfg.NameNodes, cfg.RootDir, err = cluster.ParseRootDir(c.root, nil); err != nil {
			return nil, fmt.Errorf("seed catalog: cluster %s: %w", c.name, err)
		}
		cfgs[k] = cfg
		if _, err := cat.CreateCluster(ctx, catalog.Cluster{Name: c.name, ZKQuorum: c.zk, ZNodeParent: c.parent, HDFSRoot: c.root, User: c.user}); err != nil {
			return nil, fmt.Errorf("seed catalog: %w", err)
		}
	}
	ids := make([]string, 0, n)
	now := time.Now()
	for i := range n {
		// Key ranges of a 65536th of the key space each, every third with
		// the newest day's time range.
		lo, hi := (i*65536/n)&0xffff, ((i+1)*65536/n)&0xffff
		req := job.Request{Table: t.Table, TargetTable: fmt.Sprintf("%s_copy%d", t.Table, i%7),
			StartRow: fmt.Sprintf("%04x", lo), StopRow: fmt.Sprintf("%04x", hi), CreateTable: i%2 == 0}
		if hi == 0 {
			req.StopRow = ""
		}
		if i%3 == 0 {
			ts := now.Add(-24 * time.Hour).UnixMilli()
			req.StartTime = &ts
		}
		sub := api.JobSubmission{Source: "source", Target: "target", CopyRequest: api.CopyRequest(req)}
		spec, _, err := req.Resolve()
		if err != nil {
			return nil, fmt.Errorf("seed catalog: job %d: %w", i, err)
		}
		id := master.JobID(cfgs[0], cfgs[1], spec)
		b, _ := json.Marshal(sub)
		row := catalog.Job{ID: id, Spec: catalog.JSONText(b), Table: spec.Table, TargetTable: spec.Target(),
			SourceCluster: "source", TargetCluster: "target", SubmittedBy: "bench"}
		if _, _, err := cat.CreateJob(ctx, row); err != nil {
			return nil, fmt.Errorf("seed catalog: job %d: %w", i, err)
		}
		started := now.Add(-time.Duration(n-i) * time.Minute)
		rep := job.Report{Version: 1, Job: id, Table: spec.Table, TargetTable: spec.Target(),
			StartRow: req.StartRow, StopRow: req.StopRow, Status: job.ReportDone, UpdatedAt: started.Add(40 * time.Second),
			ElapsedMs: 40_000, Tasks: 2, TasksDone: 2, InputBytes: 128 << 20, BytesRead: 128 << 20,
			BytesLoaded: 130 << 20, FilesLoaded: 4, Cells: 200_000, BytesPerSecond: float64(128<<20) / 40, FilesPruned: i % 5}
		rb, _ := json.Marshal(rep)
		fr := catalog.JSONText(rb)
		if _, err := cat.UpdateJob(ctx, id, catalog.JobUpdate{State: catalog.StateOf(job.StateDone), FinalReport: &fr, Message: "done"}); err != nil {
			return nil, fmt.Errorf("seed catalog: job %d: %w", i, err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// procCPUSeconds is a process's user+system CPU time from /proc/<pid>/stat
// (0 when unreadable).
func procCPUSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	return statCPUSeconds(string(b))
}

// statCPUSeconds reads utime and stime (fields 14 and 15, in the kernel's
// 100 Hz clock ticks) of a /proc/<pid>/stat line; 0 when it is not one.
func statCPUSeconds(stat string) float64 {
	// The command name may hold spaces and parentheses: fields go on after
	// its last ')'.
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (the state): utime is f[11], stime f[12].
	if len(f) < 13 {
		return 0
	}
	u, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return (u + st) / 100
}
