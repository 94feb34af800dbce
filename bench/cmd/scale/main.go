// Command scale is `make bench-scale`: it plans a synthetic table of many
// regions (100,000 regions and 1,000,000 store files by default; no data, only
// the facts a snapshot manifest and the files' trailers give), registers it in
// the test environment's real target ZooKeeper under a root of its own, and
// measures plan and register time, the nodes written, `rangecopy job status`,
// a leader and its failover (two master processes, the first killed), and
// simulated workers claiming and finishing tasks. It deletes its root at the
// end and writes bench/results/scale-<time>.json.
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"rangecopy/bench"
	"rangecopy/checkpoint"
	"rangecopy/cluster"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/registry"
	"rangecopy/testenv"
)

type options struct {
	regions, filesPerRegion int
	workers, perSession     int
	claimFor                time.Duration
	sessionTimeout          time.Duration
	nearTasks               int
	out, rangecopy, command string
	cpuProfile, memProfile  string
	planOnly                bool
}

func main() {
	var o options
	lead := flag.String("lead", "", "internal: run as a master with this id (-zk, -root)")
	zkAddr := flag.String("zk", "", "internal: ZooKeeper of -lead")
	root := flag.String("root", "", "internal: registry root of -lead")
	flag.IntVar(&o.regions, "regions", 100000, "regions of the synthetic table")
	flag.IntVar(&o.filesPerRegion, "files-per-region", 10, "store files per region (over two families)")
	flag.IntVar(&o.workers, "workers", 200, "simulated workers claiming tasks")
	flag.IntVar(&o.perSession, "workers-per-session", 4, "simulated workers sharing one ZooKeeper session (a worker process's slots)")
	flag.DurationVar(&o.claimFor, "claim-for", 30*time.Second, "how long the simulated workers claim")
	flag.DurationVar(&o.sessionTimeout, "session-timeout", 10*time.Second, "session timeout of the masters (rangecopy master's default)")
	flag.IntVar(&o.nearTasks, "near-tasks", 2000, "tasks of the near-empty job claimed to its end by one claimer")
	flag.StringVar(&o.out, "out", "bench/results", "folder of the JSON result")
	flag.StringVar(&o.rangecopy, "rangecopy", "bin/rangecopy", "the rangecopy binary whose job status is timed")
	flag.StringVar(&o.command, "command", "make bench-scale", "the command line recorded with the figures")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of generating, planning (job.Make and the task specs) and registering the synthetic table to this file (with -plan-only: of generating and planning)")
	flag.StringVar(&o.memProfile, "memprofile", "", "write an allocation profile of the planning to this file")
	flag.BoolVar(&o.planOnly, "plan-only", false, "generate and plan only (no ZooKeeper, no result file): with -cpuprofile, to study the planner")
	flag.Parse()
	if o.memProfile != "" {
		runtime.MemProfileRate = 64 << 10
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *lead != "" {
		err = runLeader(ctx, *lead, *zkAddr, *root, o.sessionTimeout)
	} else if o.planOnly {
		err = planOnly(o)
	} else {
		err = run(ctx, o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// runLeader is a master process: master.Lead, printing "leading <unix ns>"
// at each term and "mem <rss KiB> <hwm KiB> <heap in use bytes>" every 500 ms.
func runLeader(ctx context.Context, id, zkAddr, root string, timeout time.Duration) error {
	reg, err := registry.Open(ctx, registry.Config{Servers: []string{zkAddr}, Root: root, SessionTimeout: timeout})
	if err != nil {
		return err
	}
	defer reg.Close()
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		fmt.Printf(format+"\n", args...)
		mu.Unlock()
	}
	say("started %d", time.Now().UnixNano())
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			rss, hwm := procMem(os.Getpid())
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			say("mem %d %d %d", rss, hwm, ms.HeapInuse)
		}
	}()
	return master.Lead(ctx, master.LeadConfig{Registry: reg, ID: id,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		WhileLeading: func(context.Context) {
			say("leading %d", time.Now().UnixNano())
		}})
}

// procMem reads VmRSS and VmHWM (KiB) of a process.
func procMem(pid int) (rss, hwm int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = v
		case "VmHWM:":
			hwm = v
		}
	}
	return rss, hwm
}

// child is a master process started by run.
type child struct {
	cmd     *exec.Cmd
	leading chan time.Time
	mu      sync.Mutex
	hwm     int64 // KiB
	heap    int64 // bytes
}

func startLeader(o options, id, zkAddr, root string) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-lead", id, "-zk", zkAddr, "-root", root, "-session-timeout", o.sessionTimeout.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start master %s: %w", id, err)
	}
	c := &child{cmd: cmd, leading: make(chan time.Time, 4)}
	started := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		once := sync.Once{}
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 2 && f[0] == "started":
				once.Do(func() { close(started) })
			case len(f) == 2 && f[0] == "leading":
				ns, _ := strconv.ParseInt(f[1], 10, 64)
				c.leading <- time.Unix(0, ns)
			case len(f) == 4 && f[0] == "mem":
				hwm, _ := strconv.ParseInt(f[2], 10, 64)
				heap, _ := strconv.ParseInt(f[3], 10, 64)
				c.mu.Lock()
				c.hwm, c.heap = hwm, heap
				c.mu.Unlock()
			}
		}
		once.Do(func() { close(started) })
	}()
	select {
	case <-started:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("master %s did not start within a minute", id)
	}
	return c, nil
}

func (c *child) mem() (hwmMiB, heapMiB float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return float64(c.hwm) / 1024, float64(c.heap) / (1 << 20)
}

func (c *child) stop(sig os.Signal) {
	_ = c.cmd.Process.Signal(sig)
	_ = c.cmd.Wait()
}

func run(ctx context.Context, o options) error {
	env, err := testenv.Load(os.Getenv("RANGECOPY_TESTENV"))
	if err != nil {
		return fmt.Errorf("test environment (RANGECOPY_TESTENV=%s): %w", os.Getenv("RANGECOPY_TESTENV"), err)
	}
	zkAddr := env.Target.ZKQuorum
	root := fmt.Sprintf("/rangecopy-bench/scale-%d", time.Now().UnixNano())
	res := bench.ScaleResult{Time: time.Now().UTC(), Command: o.command, Regions: o.regions,
		Files: o.regions * o.filesPerRegion, SessionSec: o.sessionTimeout.Seconds(), Workers: o.workers, NearTasks: o.nearTasks}
	reg, err := registry.Open(ctx, registry.Config{Servers: []string{zkAddr}, Root: root})
	if err != nil {
		return err
	}
	defer reg.Close()
	defer func() {
		// The root goes whatever happened.
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if err := deleteRoot(cctx, reg, zkAddr, root); err != nil {
			fmt.Fprintln(os.Stderr, "scale: cleanup:", err)
		}
	}()
	say := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}

	// The CPU profile covers the generating, the planning and the
	// registering.
	stopProfile, err := startCPUProfile(o.cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	spec, plan, tasks, err := planSynthetic(o, say, &res)
	if err != nil {
		return err
	}
	largestSpec, largestSpecID := 0, ""
	for _, t := range tasks {
		if len(t.Spec) > largestSpec {
			largestSpec, largestSpecID = len(t.Spec), t.ID
		}
	}

	// Register as Planner.Plan does: tasks, claim order, totals, running.
	fake := cluster.Config{ZKQuorum: []string{"127.0.0.1:1"}, ZNodeParent: "/hbase", NameNodes: []string{"127.0.0.1:1"}, RootDir: "/hbase"}
	recBytes, err := job.EncodeRecord(job.Record{Spec: spec, Snapshot: "scale-snapshot", Source: fake, Target: fake,
		Options: job.RunOptions{Detached: true}})
	if err != nil {
		return err
	}
	const id = "scale-100k"
	t0 := time.Now()
	j, err := reg.CreateJob(ctx, id, recBytes)
	if err != nil {
		return err
	}
	if j, err = reg.SetJobState(ctx, j, registry.JobPlanning, "pinning and planning"); err != nil {
		return err
	}
	t0 = time.Now()
	if err := reg.AddTasks(ctx, id, tasks); err != nil {
		return err
	}
	order, err := json.Marshal(plan.CostOrder(spec.Times(), master.MaxOrder))
	if err != nil {
		return err
	}
	if err := reg.PutJobData(ctx, id, registry.NodeOrder, order); err != nil {
		return err
	}
	totals := job.TotalsOf(plan, time.Now())
	tb, err := job.EncodePlanTotals(totals)
	if err != nil {
		return err
	}
	if err := reg.PutJobData(ctx, id, registry.NodePlan, tb); err != nil {
		return err
	}
	if _, err = reg.SetJobState(ctx, j, registry.JobRunning, totals.Message()); err != nil {
		return err
	}
	res.RegisterSec = time.Since(t0).Seconds()
	stopProfile()
	say("registered in %.1f s", res.RegisterSec)
	t0 = time.Now()
	if err := reg.AddTasks(ctx, id, tasks); err != nil {
		return fmt.Errorf("add the tasks again: %w", err)
	}
	res.ReAddSec = time.Since(t0).Seconds()
	say("re-added in %.1f s", res.ReAddSec)
	tasks = nil
	plan = job.Plan{}

	// The nodes under the job, listed: names from the listings, sizes from
	// what was written.
	if err := countNodes(ctx, zkAddr, root+"/jobs/"+id, &res); err != nil {
		return err
	}
	res.LargestNode, res.LargestWhat = largestSpec, "task spec "+largestSpecID
	for _, side := range []struct {
		name string
		n    int
	}{{"job record", len(recBytes) + 64}, {"claim order", len(order)}, {"plan totals", len(tb)}} {
		if side.n > res.LargestNode {
			res.LargestNode, res.LargestWhat = side.n, side.name
		}
	}
	say("%d nodes; largest %d bytes (%s); largest listing %d bytes", res.Nodes, res.LargestNode, res.LargestWhat, res.LargestList)

	// rangecopy job status, three times.
	for i := 0; i < 3; i++ {
		t0 = time.Now()
		out, err := exec.CommandContext(ctx, o.rangecopy, "job", "status", id, "--zk", zkAddr, "--zk-root", root).CombinedOutput()
		if err != nil {
			return fmt.Errorf("rangecopy job status: %w: %s", err, out)
		}
		res.StatusSec = append(res.StatusSec, time.Since(t0).Seconds())
		if i == 0 {
			say("job status:\n%s", out)
		}
	}
	say("job status: %v s", res.StatusSec)

	// A leader, its first report, its memory; a standby; kill -9; the
	// standby leads and reports.
	t0 = time.Now()
	a, err := startLeader(o, "master-a", zkAddr, root)
	if err != nil {
		return err
	}
	defer a.stop(os.Kill)
	ledA, err := waitLeading(a, 2*time.Minute)
	if err != nil {
		return err
	}
	res.LeadSec = ledA.Sub(t0).Seconds()
	at, err := waitReport(ctx, reg, id, ledA, 5*time.Minute)
	if err != nil {
		return err
	}
	res.FirstLookSec = at.Sub(ledA).Seconds()
	// A few more looks, then its memory.
	if _, err := waitReport(ctx, reg, id, at.Add(time.Second), 5*time.Minute); err != nil {
		return err
	}
	res.LeaderRSSMiB, res.LeaderHeap = a.mem()
	say("leader: leading after %.2f s, first report %.2f s later, peak RSS %.0f MiB, heap %.0f MiB", res.LeadSec, res.FirstLookSec, res.LeaderRSSMiB, res.LeaderHeap)
	b, err := startLeader(o, "master-b", zkAddr, root)
	if err != nil {
		return err
	}
	defer b.stop(os.Kill)
	if err := waitCandidates(ctx, zkAddr, root, 2, time.Minute); err != nil {
		return err
	}
	kill := time.Now()
	a.stop(os.Kill)
	ledB, err := waitLeading(b, 5*time.Minute)
	if err != nil {
		return err
	}
	res.FailoverSec = ledB.Sub(kill).Seconds()
	bt, err := waitReport(ctx, reg, id, ledB, 5*time.Minute)
	if err != nil {
		return err
	}
	res.ResumeSec = bt.Sub(kill).Seconds()
	say("failover: standby leading %.1f s after the kill, its first report %.1f s after", res.FailoverSec, res.ResumeSec)

	// Simulated workers: claim, save a checkpoint, done.
	if err := claimers(ctx, o, zkAddr, root, id, &res); err != nil {
		return err
	}
	res.LeaderRSS2, _ = b.mem()
	say("%d claims in %.0f s: %.0f/s (p50 %.1f ms, p99 %.1f ms)", res.Claims, res.ClaimSec, float64(res.Claims)/res.ClaimSec, res.ClaimP50ms, res.ClaimP99ms)
	b.stop(syscall.SIGTERM)

	if err := nearEmpty(ctx, reg, o.nearTasks, &res); err != nil {
		return err
	}
	say("near-empty job: first 100 claims %.2f ms, last 100 %.2f ms, empty %.1f ms", res.NearFirstMs, res.NearLastMs, res.NearEmptyMs)

	t0 = time.Now()
	if err := reg.DeleteJob(ctx, id); err != nil {
		return err
	}
	res.Cleanup = time.Since(t0).Seconds()

	md := res.Markdown()
	fmt.Println(md)
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	jb, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	name := filepath.Join(o.out, "scale-"+res.Time.Format("20060102T150405Z")+".json")
	if err := os.WriteFile(name, append(jb, '\n'), 0o644); err != nil {
		return err
	}
	say("wrote %s", name)
	return nil
}

// planOnly is -plan-only: generate and plan, with a CPU profile of the
// planning if asked for.
func planOnly(o options) error {
	stopProfile, err := startCPUProfile(o.cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	_, _, _, err = planSynthetic(o, func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}, &bench.ScaleResult{})
	return err
}

// planSynthetic generates the synthetic pinned table and plans it as
// master.Planner.Plan does (job.Make, master.TaskSpecs), timed, with an
// allocation profile of the planning when o asks for one.
func planSynthetic(o options, say func(string, ...any), res *bench.ScaleResult) (job.Spec, job.Plan, []registry.Task, error) {
	t0 := time.Now()
	spec := job.Spec{Table: "scale"}
	pd := bench.SyntheticTable(spec.Table, "/hbase", o.regions, o.filesPerRegion)
	res.GenerateSec = time.Since(t0).Seconds()
	say("generated %d regions, %d files in %.1f s", len(pd.Regions), len(pd.Files), res.GenerateSec)
	t0 = time.Now()
	plan, err := job.Make(spec, pd.Regions, pd.Files, job.PlanOptions{Slots: o.workers})
	makeSec := time.Since(t0).Seconds()
	var tasks []registry.Task
	if err == nil {
		tasks, err = master.TaskSpecs(pd, plan)
	}
	res.PlanSec = time.Since(t0).Seconds()
	if err != nil {
		return spec, job.Plan{}, nil, err
	}
	if o.memProfile != "" {
		f, err := os.Create(o.memProfile)
		if err != nil {
			return spec, job.Plan{}, nil, fmt.Errorf("memory profile: %w", err)
		}
		runtime.GC() // the profile holds what was allocated by the last collection
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return spec, job.Plan{}, nil, fmt.Errorf("memory profile: %w", err)
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gcs, gcPause := ms.NumGC, time.Duration(ms.PauseTotalNs)
	pd = nil
	runtime.GC()
	runtime.ReadMemStats(&ms)
	res.PlanHeapMiB = float64(ms.HeapAlloc) / (1 << 20)
	res.Tasks = len(tasks)
	largest := 0
	for _, t := range tasks {
		res.SpecBytes += int64(len(t.Spec))
		largest = max(largest, len(t.Spec))
	}
	say("planned %d tasks (%d MiB of specs, largest %d bytes) in %.1f s (job.Make %.1f s, task specs %.1f s; %d collections so far, %v paused)",
		len(tasks), res.SpecBytes>>20, largest, res.PlanSec, makeSec, res.PlanSec-makeSec, gcs, gcPause)
	if o.planOnly {
		// What was planned, to compare planners: the tasks' ids and specs
		// in order, and the claim order.
		h := sha256.New()
		for _, t := range tasks {
			fmt.Fprintf(h, "%s %d\n", t.ID, len(t.Spec))
			h.Write(t.Spec)
		}
		fmt.Fprintf(h, "%q %d %d\n", plan.CostOrder(spec.Times(), master.MaxOrder), plan.Bytes, len(plan.Pruned))
		say("digest of the tasks, specs and claim order: %x", h.Sum(nil))
	}
	return spec, plan, tasks, nil
}

// startCPUProfile starts a CPU profile into the file at path ("" for none)
// and returns what stops it (once, however often it is called).
func startCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			pprof.StopCPUProfile()
			if err := f.Close(); err != nil {
				fmt.Fprintln(os.Stderr, "scale: cpu profile:", err)
			}
		})
	}, nil
}

func waitLeading(c *child, limit time.Duration) (time.Time, error) {
	select {
	case t := <-c.leading:
		return t, nil
	case <-time.After(limit):
		return time.Time{}, fmt.Errorf("no master leads after %v", limit)
	}
}

// waitReport polls the job's report until one updated after since is
// stored, and returns its time.
func waitReport(ctx context.Context, reg *registry.Registry, id string, since time.Time, limit time.Duration) (time.Time, error) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		rep, ok, err := master.LoadReport(ctx, reg, id)
		if err != nil {
			return time.Time{}, err
		}
		if ok && rep.UpdatedAt.After(since) {
			return rep.UpdatedAt, nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return time.Time{}, fmt.Errorf("no report of job %s after %v within %v", id, since, limit)
}

// waitCandidates waits until the election has n candidates.
func waitCandidates(ctx context.Context, zkAddr, root string, n int, limit time.Duration) error {
	conn, _, err := zk.Connect([]string{zkAddr}, 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(quiet{}))
	if err != nil {
		return err
	}
	defer conn.Close()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		kids, _, err := conn.Children(root + "/leader")
		if err == nil && len(kids) >= n {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("the election has not %d candidates within %v", n, limit)
}

// countNodes lists every folder under the job: the node count and the
// largest children listing (4 bytes a name and its length, as it travels).
func countNodes(ctx context.Context, zkAddr, jobPath string, res *bench.ScaleResult) error {
	conn, _, err := zk.Connect([]string{zkAddr}, 30*time.Second, zk.WithLogInfo(false), zk.WithLogger(quiet{}))
	if err != nil {
		return err
	}
	defer conn.Close()
	var walk func(p string, depth int) error
	walk = func(p string, depth int) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		kids, _, err := conn.Children(p)
		if err != nil {
			return fmt.Errorf("list %s: %w", p, err)
		}
		res.Nodes++
		size := 4
		for _, k := range kids {
			size += 4 + len(k)
		}
		res.LargestList = max(res.LargestList, size)
		// Below a bucket folder are the tasks' nodes: leaves.
		if depth == 2 {
			res.Nodes += len(kids)
			return nil
		}
		for _, k := range kids {
			if err := walk(p+"/"+k, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(jobPath, 0)
}

// claimers runs the simulated workers for o.claimFor.
func claimers(ctx context.Context, o options, zkAddr, root, id string, res *bench.ScaleResult) error {
	sessions := (o.workers + o.perSession - 1) / o.perSession
	regs := make([]*registry.Registry, sessions)
	for i := range regs {
		r, err := registry.Open(ctx, registry.Config{Servers: []string{zkAddr}, Root: root, SessionTimeout: o.sessionTimeout})
		if err != nil {
			return fmt.Errorf("session %d: %w", i, err)
		}
		defer r.Close()
		regs[i] = r
	}
	res.Sessions = sessions
	cctx, cancel := context.WithTimeout(ctx, o.claimFor)
	defer cancel()
	var claims atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr error
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < o.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reg := regs[w/o.perSession]
			wid := fmt.Sprintf("sim-worker-%03d", w)
			var mine []time.Duration
			defer func() {
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
			for cctx.Err() == nil {
				t0 := time.Now()
				c, err := reg.ClaimAny(cctx, id, wid, registry.Bucket(wid))
				if errors.Is(err, registry.ErrNotFound) || cctx.Err() != nil {
					return
				}
				if err != nil {
					mu.Lock()
					firstErr = cmp(firstErr, fmt.Errorf("worker %s: claim: %w", wid, err))
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(t0))
				cp, _ := checkpoint.New(c.Task()).Advance(nil, checkpoint.Loaded{Family: "a", Last: true, Files: 1, Cells: 1000, Bytes: 20 << 20})
				b, err := cp.Encode()
				if err == nil {
					err = c.SaveCheckpoint(ctx, b)
				}
				if err == nil {
					err = c.Done(ctx)
				}
				if err != nil {
					mu.Lock()
					firstErr = cmp(firstErr, fmt.Errorf("worker %s: task %s: %w", wid, c.Task(), err))
					mu.Unlock()
					return
				}
				claims.Add(1)
			}
		}()
	}
	wg.Wait()
	res.ClaimSec = time.Since(start).Seconds()
	res.Claims = int(claims.Load())
	slices.Sort(lat)
	if len(lat) > 0 {
		res.ClaimP50ms = float64(lat[len(lat)/2].Microseconds()) / 1000
		res.ClaimP99ms = float64(lat[len(lat)*99/100].Microseconds()) / 1000
	}
	return firstErr
}

func cmp(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// nearEmpty registers a job of n small tasks and claims them all with one
// claimer: the mean ClaimAny of the first and last 100, and once empty.
func nearEmpty(ctx context.Context, reg *registry.Registry, n int, res *bench.ScaleResult) error {
	const id = "scale-near-empty"
	if _, err := reg.CreateJob(ctx, id, []byte("near-empty")); err != nil {
		return err
	}
	defer func() { _ = reg.DeleteJob(context.Background(), id) }()
	tasks := make([]registry.Task, n)
	for i := range tasks {
		tasks[i] = registry.Task{ID: fmt.Sprintf("t%06d", i), Spec: []byte("spec")}
	}
	if err := reg.AddTasks(ctx, id, tasks); err != nil {
		return err
	}
	lat := make([]time.Duration, 0, n)
	for {
		t0 := time.Now()
		c, err := reg.ClaimAny(ctx, id, "sim-near", 0)
		d := time.Since(t0)
		if errors.Is(err, registry.ErrNotFound) {
			res.NearEmptyMs = float64(d.Microseconds()) / 1000
			break
		}
		if err != nil {
			return err
		}
		lat = append(lat, d)
		if err := c.Done(ctx); err != nil {
			return err
		}
	}
	if len(lat) != n {
		return fmt.Errorf("near-empty job: %d of %d tasks claimed", len(lat), n)
	}
	mean := func(ds []time.Duration) float64 {
		var s time.Duration
		for _, d := range ds {
			s += d
		}
		return float64(s.Microseconds()) / 1000 / float64(max(len(ds), 1))
	}
	k := min(100, n)
	res.NearFirstMs, res.NearLastMs = mean(lat[:k]), mean(lat[n-k:])
	return nil
}

// deleteRoot deletes the jobs under root, then root and what is left below it.
func deleteRoot(ctx context.Context, reg *registry.Registry, zkAddr, root string) error {
	ids, err := reg.Jobs(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := reg.DeleteJob(ctx, id); err != nil {
			return err
		}
	}
	conn, _, err := zk.Connect([]string{zkAddr}, 30*time.Second, zk.WithLogInfo(false), zk.WithLogger(quiet{}))
	if err != nil {
		return err
	}
	defer conn.Close()
	var del func(p string) error
	del = func(p string) error {
		kids, _, err := conn.Children(p)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, k := range kids {
			if err := del(p + "/" + k); err != nil {
				return err
			}
		}
		if err := conn.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return fmt.Errorf("delete %s: %w", p, err)
		}
		return nil
	}
	return del(root)
}

// quiet discards go-zookeeper's log.
type quiet struct{}

func (quiet) Printf(string, ...any) {}
