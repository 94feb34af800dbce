package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"rangecopy/job"
	"rangecopy/server"
)

// serverProc is a rangecopy server process the benchmark started: its own
// data folder, its own registry root, an API on a free loopback port.
type serverProc struct {
	cmd   *exec.Cmd
	base  string // http://127.0.0.1:port/api/v1
	token string
	http  *http.Client
	// logDone closes when the process's standard error is drained.
	logDone chan struct{}
	logf    *os.File
	started time.Time
}

// serverExit is what a stopped server process used.
type serverExit struct {
	// PeakRSS is the process's peak resident set (ru_maxrss).
	PeakRSS int64
	// CPUSeconds is its user and system CPU time over its life.
	CPUSeconds float64
}

// startServer starts bin/rangecopy server on dataDir with the registry at
// zkRoot on the target's ZooKeeper and workers embedded workers, its standard
// error into the log file logName, and waits for its "serving" line.
func (e *Env) startServer(ctx context.Context, dataDir, zkRoot string, workers int, logName string) (*serverProc, error) {
	logf, err := e.logFile(logName)
	if err != nil {
		return nil, err
	}
	args := []string{"server", "--data-dir", dataDir, "--zk", e.Target.ZKQuorum, "--zk-root", zkRoot,
		"--workers", strconv.Itoa(workers), "--listen", "127.0.0.1:0", "--user", e.Target.User}
	// Not CommandContext: the server is stopped with SIGTERM by stop.
	cmd := exec.Command(e.Rangecopy, args...)
	cmd.Stdout = logf
	stderr, err := cmd.StderrPipe()
	if err != nil {
		logf.Close()
		return nil, fmt.Errorf("rangecopy server: %w", err)
	}
	p := &serverProc{cmd: cmd, logDone: make(chan struct{}), logf: logf, started: time.Now(),
		http: &http.Client{Transport: &http.Transport{MaxIdleConns: 200, MaxIdleConnsPerHost: 200, IdleConnTimeout: time.Minute}}}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start rangecopy server: %w", err)
	}
	serving := make(chan string, 1)
	go func() {
		defer close(p.logDone)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logf, line)
			if url, ok := strings.CutPrefix(line, "rangecopy server: serving "); ok {
				select {
				case serving <- strings.TrimSpace(url):
				default:
				}
			}
		}
		_, _ = io.Copy(logf, stderr)
	}()
	select {
	case p.base = <-serving:
	case <-p.logDone:
		_ = cmd.Wait()
		logf.Close()
		return nil, fmt.Errorf("rangecopy server exited before serving (log %s)", logf.Name())
	case <-time.After(90 * time.Second):
		p.stop()
		return nil, fmt.Errorf("rangecopy server: no serving line within 90 s (log %s)", logf.Name())
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
	secret, err := os.ReadFile(filepath.Join(dataDir, "admin-token"))
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("rangecopy server: read its bootstrap token: %w", err)
	}
	p.token = strings.TrimSpace(string(secret))
	return p, nil
}

// pid is the server's process id.
func (p *serverProc) pid() int { return p.cmd.Process.Pid }

// stop ends the server with SIGTERM (SIGKILL after 20 s) and reports what it used.
func (p *serverProc) stop() serverExit {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	waited := make(chan struct{})
	go func() {
		<-p.logDone
		_ = p.cmd.Wait()
		close(waited)
	}()
	select {
	case <-waited:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-waited
	}
	p.logf.Close()
	p.http.CloseIdleConnections()
	var x serverExit
	if st := p.cmd.ProcessState; st != nil {
		x.CPUSeconds = (st.UserTime() + st.SystemTime()).Seconds()
		if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
			x.PeakRSS = ru.Maxrss << 10
		}
	}
	return x
}

// call sends one API request (body as JSON when not nil) and decodes a 2xx
// answer into out (when not nil); other answers are errors carrying the body.
func (p *serverProc) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("%s %s: encode: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.base+path, rd)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, tail(string(b)))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: decode %q: %w", method, path, tail(string(b)), err)
		}
	}
	return nil
}

// registerClusters registers the source and target as "source" and "target".
func (e *Env) registerClusters(ctx context.Context, p *serverProc) error {
	for _, c := range []struct {
		name string
		cl   clusterLike
	}{{"source", clusterLike{e.Source.ZKQuorum, e.Source.ZNodeParent, e.Source.HBaseRootDir, e.Source.User}},
		{"target", clusterLike{e.Target.ZKQuorum, e.Target.ZNodeParent, e.Target.HBaseRootDir, e.Target.User}}} {
		body := map[string]string{"name": c.name, "zkQuorum": c.cl.zk, "znodeParent": c.cl.parent, "hdfsRoot": c.cl.root, "user": c.cl.user}
		if err := p.call(ctx, http.MethodPost, "/clusters", body, nil); err != nil {
			return fmt.Errorf("register cluster %s: %w", c.name, err)
		}
	}
	return nil
}

type clusterLike struct{ zk, parent, root, user string }

// runJob submits a job and polls it every 20 ms until it ends; it returns the
// job as last seen, the time from submission to its end and how many looks
// failed on the way. A job that ends other than done is an error.
func (p *serverProc) runJob(ctx context.Context, sub server.JobSubmission, timeout time.Duration) (server.JobOut, time.Duration, int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	var j server.JobOut
	if err := p.call(ctx, http.MethodPost, "/jobs", sub, &j); err != nil {
		return j, time.Since(start), 0, fmt.Errorf("submit: %w", err)
	}
	id := j.ID
	failed := 0
	var failing time.Time
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for !finalState(j.State) {
		select {
		case <-ctx.Done():
			return j, time.Since(start), failed, fmt.Errorf("job %s: still %s after %s", id, j.State, timeout)
		case <-t.C:
		}
		// A failed look (the registry's ZooKeeper away for a moment
		// answers 500) is tried again; a minute of failures in a row ends
		// the wait.
		var next server.JobOut
		if err := p.call(ctx, http.MethodGet, "/jobs/"+id, nil, &next); err != nil {
			failed++
			if failing.IsZero() {
				failing = time.Now()
			}
			if time.Since(failing) > time.Minute {
				return j, time.Since(start), failed, fmt.Errorf("job %s: a minute of failed looks, the last: %w", id, err)
			}
			continue
		}
		j, failing = next, time.Time{}
	}
	took := time.Since(start)
	if j.State != "done" {
		return j, took, failed, fmt.Errorf("job %s ended %s: %s", id, j.State, j.LastError)
	}
	return j, took, failed, nil
}

func finalState(s string) bool {
	switch s {
	case "done", "failed", "cancelled", "lost":
		return true
	}
	return false
}

// serverIncremental starts a rangecopy server with Workers embedded workers,
// registers both clusters, runs a warm-up job of a few rows (so the election
// is won and the server's connections made) and then copies the newest 1% of
// the table through the API as RangecopyIncremental does through the CLI. The
// time it reports is submission to done of that job alone.
func (e *Env) serverIncremental(ctx context.Context, t *Table, target string) (copied, error) {
	from := NewestFrom(t.Rows, 0.01)
	ts := Timestamp(from, t.Rows, t.StartMs, t.SpanMs)
	c := copied{filesTotal: t.Files, scope: func(i int64) bool { return i >= from }}
	dir, err := os.MkdirTemp("", "rangecopy-bench-server-")
	if err != nil {
		return c, fmt.Errorf("server data folder: %w", err)
	}
	defer os.RemoveAll(dir)
	t0 := time.Now()
	p, err := e.startServer(ctx, dir, "/"+e.Prefix+"_server", e.Workers, RangecopyServerIncremental.String())
	if err != nil {
		return c, err
	}
	var x serverExit
	stopped := false
	stop := func() {
		if !stopped {
			x, stopped = p.stop(), true
		}
	}
	defer stop()
	up := time.Since(t0)
	if err := e.registerClusters(ctx, p); err != nil {
		return c, err
	}
	warmTable := target + "_warmup"
	defer e.dropTarget(context.WithoutCancel(ctx), warmTable, RangecopyServerIncremental, t)
	warm := server.JobSubmission{Source: "source", Target: "target", Request: job.Request{Table: t.Table, TargetTable: warmTable,
		StartRow: string(RowKey(0)), StopRow: string(RowKey(0)) + `\x00`, CreateTable: true}}
	_, warmTook, _, err := p.runJob(ctx, warm, 5*time.Minute)
	if err != nil {
		return c, fmt.Errorf("warm-up job: %w", err)
	}
	e.Logger.Info("server warm", "start_s", fmt.Sprintf("%.2f", up.Seconds()), "warmup_s", fmt.Sprintf("%.2f", warmTook.Seconds()))
	sub := server.JobSubmission{Source: "source", Target: "target", Request: job.Request{Table: t.Table, TargetTable: target,
		StartTime: &ts, CreateTable: true}}
	j, took, failedLooks, err := p.runJob(ctx, sub, 30*time.Minute)
	c.wall = took.Seconds()
	stop()
	c.peakRSS, c.cpuSeconds = x.PeakRSS, x.CPUSeconds
	var rep job.Report
	if j.Report != nil {
		rep = *j.Report
	}
	c.bytes, c.filesPruned, c.copySeconds = rep.BytesRead, rep.FilesPruned, rep.Seconds()
	c.note = fmt.Sprintf("rangecopy server --workers %d, own data dir and registry root; server up in %.2f s, warm-up job (1 row) %.2f s; "+
		"time is POST /jobs to GET /jobs/{id} done (polled every 20 ms); job %.1f s, %d tasks, %d files loaded; "+
		"%d failed looks; worker RSS and CPU are the server process's over its life", e.Workers, up.Seconds(), warmTook.Seconds(), rep.Seconds(), rep.Tasks, rep.FilesLoaded, failedLooks)
	if err != nil {
		return c, fmt.Errorf("server job: %w", err)
	}
	if rep.Status != 0 && rep.Status != job.ReportDone {
		return c, fmt.Errorf("server job %s: report says %s: %s", j.ID, rep.Status, rep.Error)
	}
	return c, nil
}
