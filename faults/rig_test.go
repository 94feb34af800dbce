package faults

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/colinmarc/hdfs/v2"

	"rangecopy/hbase"
	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/progress"
	"rangecopy/registry"
	"rangecopy/testenv"
)

// Deadlines for waiting. They bound waits for things that must happen; no
// test passes or fails on how fast they happen.
const (
	jobDeadline  = 8 * time.Minute  // a whole job, faults included
	stepDeadline = 3 * time.Minute  // one awaited event (a first load, a leader)
	cmdDeadline  = 2 * time.Minute  // one short command (copy --detach, job ...)
	freezeTime   = 16 * time.Second // how long the freeze test holds a worker stopped
)

// Session timeouts (--session-timeout) of the processes. A process the test
// kills or freezes gets the shortest the test clusters' ZooKeeper allows
// (tickTime 2 s), so others take over soon; the others get a longer one, so
// that a stall of the shared, loaded machine does not expire their sessions
// too (it did, once, at 4 s: recovered from, but with a file loaded twice).
const (
	shortSession = "4s"
	longSession  = "10s"
)

// rig is one test's distributed rangecopy: its own registry root in the
// target's ZooKeeper, its own work folder, its masters and workers, and the
// job it submits.
type rig struct {
	t       *testing.T
	env     *testenv.Env
	zk      string
	root    string
	workDir string
	masters []*proc
	workers []*proc
	job     string

	srcHBase *hbase.Client      // opened by leftovers
	tgtHDFS  *hdfs.Client       // opened by leftovers
	reg      *registry.Registry // opened by registry
}

// registry opens (once) the rig's registry, to read task states.
func (r *rig) registry() *registry.Registry {
	r.t.Helper()
	if r.reg == nil {
		ctx, cancel := context.WithTimeout(r.t.Context(), cmdDeadline)
		defer cancel()
		reg, err := registry.Open(ctx, registry.Config{Servers: []string{r.zk}, Root: r.root})
		if err != nil {
			r.t.Fatalf("open the registry %s%s: %v", r.zk, r.root, err)
		}
		r.t.Cleanup(reg.Close)
		r.reg = reg
	}
	return r.reg
}

// stopMidTask stops worker w (SIGSTOP) in the middle of a task: once it has
// logged loading a file of a task it has not logged done, and the task is
// still claimed once w is stopped (w may have finished it between the two).
// It returns the task and when w was stopped, and leaves w stopped.
func (r *rig) stopMidTask(w *proc) (string, time.Time) {
	r.t.Helper()
	tried := map[string]bool{}
	var task string
	var at time.Time
	waitFor(r.t, stepDeadline, w.name+" stopped in the middle of a task", func() bool {
		task = ""
		for _, t := range inFlight(r.t, w, r.job) {
			if !tried[t] {
				task = t
				break
			}
		}
		if task == "" {
			return false
		}
		w.kill(r.t, syscall.SIGSTOP)
		at = time.Now()
		st, err := r.registry().TaskStatus(r.t.Context(), r.job, task)
		if err != nil {
			r.t.Fatalf("status of task %s: %v", task, err)
		}
		if st == registry.StatusClaimed {
			return true
		}
		r.t.Logf("task %s was %v when %s stopped, not in the middle; going on", task, st, w.name)
		tried[task] = true
		w.kill(r.t, syscall.SIGCONT)
		return false
	})
	return task, at
}

// newRig returns a rig of the test's own (nothing started yet).
func newRig(t *testing.T, env *testenv.Env) *rig {
	u := testenv.UniqueName(t, "f")
	return &rig{t: t, env: env, zk: env.Target.ZKQuorum, root: "/rangecopy-faults/" + u, workDir: "/tmp/rangecopy-faults/" + u}
}

// registryFlags are the flags every command takes to find the registry.
func (r *rig) registryFlags() []string {
	return []string{"--zk", r.zk, "--zk-root", r.root}
}

// startMaster starts a master process named id with a ZooKeeper session
// timeout of session.
func (r *rig) startMaster(id, session string) *proc {
	r.t.Helper()
	args := append([]string{"master"}, r.registryFlags()...)
	args = append(args, "--id", id, "--session-timeout", session, "--log-format", "json", "-v")
	p := startProc(r.t, id, args...)
	r.masters = append(r.masters, p)
	return p
}

// startWorker starts a worker process named id that runs up to capacity
// tasks at once, with a ZooKeeper session timeout of session.
func (r *rig) startWorker(id string, capacity int, session string) *proc {
	r.t.Helper()
	args := append([]string{"worker"}, r.registryFlags()...)
	args = append(args, "--id", id, "--capacity", strconv.Itoa(capacity), "--session-timeout", session,
		"--log-format", "json", "-v")
	p := startProc(r.t, id, args...)
	r.workers = append(r.workers, p)
	return p
}

// submit registers a copy of src into dst with copy --detach and remembers
// the job id it prints. extra flags follow the rig's own.
func (r *rig) submit(src, dst string, extra ...string) string {
	r.t.Helper()
	args := []string{"copy", "--detach", "--source", r.env.Source.ConfDir, "--target", r.env.Target.ConfDir,
		"--table", src, "--target-table", dst, "--work-dir", r.workDir, "--user", r.env.Target.User}
	args = append(args, r.registryFlags()...)
	args = append(args, extra...)
	ctx, cancel := context.WithTimeout(r.t.Context(), cmdDeadline)
	defer cancel()
	out, _, err := rangecopy(ctx, args...)
	if err != nil {
		r.t.Fatal(err)
	}
	id := strings.TrimSpace(out)
	if id == "" || strings.ContainsAny(id, " \n") {
		r.t.Fatalf("copy --detach printed %q, want the job id alone on one line", out)
	}
	r.job = id
	r.t.Logf("submitted job %s: %s -> %s", id, src, dst)
	return id
}

// jobCmd runs rangecopy job <sub> flags... <job id> against the rig's
// registry. (Flags go before the id: the command's flag parsing stops at
// the first argument that is not a flag.)
func (r *rig) jobCmd(ctx context.Context, sub string, args ...string) (string, error) {
	all := append([]string{"job", sub}, args...)
	all = append(all, r.registryFlags()...)
	all = append(all, r.job)
	out, _, err := rangecopy(ctx, all...)
	return out, err
}

// jobStatus is what rangecopy job status --json prints.
type jobStatus struct {
	ID      string `json:"id"`
	State   string `json:"state"`
	Message string `json:"message"`
	Tasks   struct {
		Total   int64 `json:"total"`
		Pending int64 `json:"pending"`
		Claimed int64 `json:"claimed"`
		Done    int64 `json:"done"`
		Failed  int64 `json:"failed"`
	} `json:"tasks"`
	Report job.Report `json:"report"`
}

// status reads the job's status with job status --json.
func (r *rig) status() jobStatus {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(r.t.Context(), cmdDeadline)
	defer cancel()
	out, err := r.jobCmd(ctx, "status", "--json")
	if err != nil {
		r.t.Fatal(err)
	}
	var s jobStatus
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		r.t.Fatalf("job status --json printed %q: %v", out, err)
	}
	return s
}

// wait runs job wait until the job ends and returns its error: nil when
// the job is done.
func (r *rig) wait() error {
	r.t.Helper()
	return r.waitUpTo(jobDeadline)
}

// waitUpTo is wait with a deadline of its own.
func (r *rig) waitUpTo(deadline time.Duration) error {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(r.t.Context(), deadline+time.Minute)
	defer cancel()
	start := time.Now()
	_, err := r.jobCmd(ctx, "wait", "--timeout", deadline.String())
	r.t.Logf("job wait %s returned after %.1f s: %v", r.job, time.Since(start).Seconds(), err)
	return err
}

// workerLines returns the lines with message msg (and attributes kv) in
// every worker's log.
func (r *rig) workerLines(msg string, kv ...string) []logLine {
	r.t.Helper()
	var out []logLine
	for _, w := range r.workers {
		out = append(out, w.find(r.t, msg, kv...)...)
	}
	return out
}

// fileLoad is a worker's "file loaded" log line of the rig's job.
type fileLoad struct {
	worker, task, family, first, path string
	bytes                             string    // the file's size, as logged
	at                                time.Time // when the line was logged
	sent                              time.Time // when the load was sent, if the line says ("sent")
}

// key identifies the file's content: the same task, family, first row and
// size loaded again is the same file loaded twice. (Two store files of a
// family copied byte for byte, rows overlapping but times apart, may share a
// first row; their sizes tell them apart.)
func (l fileLoad) key() string { return l.task + "/" + l.family + "/" + l.first + "/" + l.bytes }

// loads returns the "file loaded" lines of the job in every worker's log.
func (r *rig) loads() []fileLoad {
	r.t.Helper()
	var out []fileLoad
	for _, w := range r.workers {
		out = append(out, loadsOf(r.t, w, r.job)...)
	}
	return out
}

// loadsOf returns the "file loaded" lines of job in w's log.
func loadsOf(t *testing.T, w *proc, job string) []fileLoad {
	t.Helper()
	var out []fileLoad
	for _, l := range w.find(t, "file loaded", "job", job) {
		fl := fileLoad{worker: l.attr("worker"), task: l.attr("task"), family: l.attr("family"),
			first: l.attr("first"), path: l.attr("path"), bytes: l.attr("bytes"), at: l.Time}
		if ts, err := time.Parse(time.RFC3339Nano, l.attr("sent")); err == nil {
			fl.sent = ts
		}
		out = append(out, fl)
	}
	return out
}

// twice counts the files loaded more than once (by key), and lists them.
func twice(loads []fileLoad) (int, []string) {
	seen := map[string]int{}
	for _, l := range loads {
		seen[l.key()]++
	}
	var keys []string
	for k, n := range seen {
		if n > 1 {
			keys = append(keys, fmt.Sprintf("%s (%d times)", k, n))
		}
	}
	return len(keys), keys
}

// inFlight returns the tasks w logged a file of and no "task done" for: the
// tasks it was in the middle of.
func inFlight(t *testing.T, w *proc, job string) []string {
	t.Helper()
	done := map[string]bool{}
	for _, l := range w.find(t, "task done") {
		done[l.attr("task")] = true
	}
	seen := map[string]bool{}
	var out []string
	for _, l := range loadsOf(t, w, job) {
		if !done[l.task] && !seen[l.task] {
			seen[l.task] = true
			out = append(out, l.task)
		}
	}
	return out
}

// waitLoads waits until the workers have logged at least n files of the
// job, and returns them.
func (r *rig) waitLoads(n int) []fileLoad {
	r.t.Helper()
	var loads []fileLoad
	waitFor(r.t, stepDeadline, fmt.Sprintf("%d files of job %s loaded", n, r.job), func() bool {
		loads = r.loads()
		return len(loads) >= n
	})
	return loads
}

// waitMidTask waits until a worker has loaded a file of a task it has not
// finished, and returns that worker and task.
func (r *rig) waitMidTask() (*proc, string) {
	r.t.Helper()
	var w *proc
	var task string
	waitFor(r.t, stepDeadline, "a worker in the middle of a task of job "+r.job, func() bool {
		for _, p := range r.workers {
			if ts := inFlight(r.t, p, r.job); len(ts) > 0 {
				w, task = p, ts[0]
				return true
			}
		}
		return false
	})
	return w, task
}

// leader waits until one of the running masters has logged "leading" after
// since, and returns it.
func (r *rig) leader(since time.Time) *proc {
	r.t.Helper()
	var lead *proc
	waitFor(r.t, stepDeadline, "a leading master", func() bool {
		for _, m := range r.masters {
			if !m.running() {
				continue
			}
			for _, l := range m.find(r.t, "leading") {
				if !l.Time.Before(since) {
					lead = m
					return true
				}
			}
		}
		return false
	})
	return lead
}

// assertDoneOnce checks the job is done exactly once: its state is done,
// all its tasks are done and none failed, its report says done, the masters
// logged finishing it once, and its snapshot and work folder are gone. It
// returns the status.
func (r *rig) assertDoneOnce() jobStatus {
	r.t.Helper()
	s := r.status()
	if s.State != "done" {
		r.t.Errorf("job %s: state %q (%s), want done", r.job, s.State, s.Message)
	}
	if s.Tasks.Total == 0 || s.Tasks.Done != s.Tasks.Total || s.Tasks.Failed != 0 || s.Tasks.Pending != 0 || s.Tasks.Claimed != 0 {
		r.t.Errorf("job %s: tasks %+v, want all done", r.job, s.Tasks)
	}
	if s.Report.Status != job.ReportDone || s.Report.TasksDone != s.Tasks.Total || s.Report.TasksFailed != 0 {
		r.t.Errorf("job %s: report %+v, want done with every task", r.job, s.Report)
	}
	finished := 0
	for _, m := range r.masters {
		finished += len(m.find(r.t, "job done", "job", r.job))
	}
	if finished != 1 {
		r.t.Errorf("job %s: the masters logged %q %d times, want once", r.job, "job done", finished)
	}
	r.assertCleanedUp()
	return s
}

// assertCleanedUp checks the job's snapshot is gone from the source and its
// work folder from the target HDFS. The master marks a job done before it
// cleans up (master.Planner.Finish): the clean-up is waited for, bounded.
func (r *rig) assertCleanedUp() {
	r.t.Helper()
	left := r.leftovers()
	for deadline := time.Now().Add(30 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = r.leftovers() {
		time.Sleep(200 * time.Millisecond)
	}
	for _, p := range left {
		r.t.Error(p)
	}
}

// cleanedUp reports whether the job's snapshot and work folder are gone.
func (r *rig) cleanedUp() bool {
	r.t.Helper()
	return len(r.leftovers()) == 0
}

// leftovers lists what the job left behind: its snapshot on the source, its
// work folder on the target HDFS.
func (r *rig) leftovers() []string {
	r.t.Helper()
	if r.srcHBase == nil {
		r.srcHBase = testsupport.Dial(r.t, r.env.Source)
		r.tgtHDFS = r.env.Target.HDFS(r.t, "")
	}
	var out []string
	snaps, err := r.srcHBase.ListSnapshots(r.t.Context())
	if err != nil {
		r.t.Fatalf("list the source's snapshots: %v", err)
	}
	for _, s := range snaps {
		if strings.HasPrefix(s.Name, master.SnapshotName(r.job)+"-") {
			out = append(out, fmt.Sprintf("snapshot %s of job %s is still on the source", s.Name, r.job))
		}
	}
	dir := r.workDir + "/" + r.job
	if _, err := r.tgtHDFS.Stat(dir); err == nil {
		out = append(out, fmt.Sprintf("work folder %s of job %s is still on the target HDFS", dir, r.job))
	} else if !errors.Is(err, fs.ErrNotExist) {
		r.t.Fatalf("stat %s on the target HDFS: %v", dir, err)
	}
	return out
}

// logLoads writes a summary of the job's loads into the test log and
// returns the number of files loaded twice.
func (r *rig) logLoads(s jobStatus) int {
	r.t.Helper()
	loads := r.loads()
	n, keys := twice(loads)
	per := map[string]int{}
	for _, l := range loads {
		per[l.worker]++
	}
	r.t.Logf("job %s: %d tasks, %d files loaded (report %d, %s, %d cells, %d retries, %.1f s), per worker %v; %d loaded twice %v",
		r.job, s.Tasks.Total, len(loads), s.Report.FilesLoaded, progress.Bytes(s.Report.BytesLoaded), s.Report.Cells,
		s.Report.LoadRetries, s.Report.Seconds(), per, n, keys)
	return n
}
