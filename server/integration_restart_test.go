package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rangecopy/catalog"
	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// restartBound bounds each rangecopy server process of the restart test: its job takes
// seconds to a minute, so a server still running after five is stuck.
const restartBound = 5 * time.Minute

// serverProc is one rangecopy server process of a test and its API.
type serverProc struct {
	p     *testenv.Process
	base  string // http://127.0.0.1:port/api/v1
	token string
}

// startServer runs rangecopy server with args and waits until it serves (it prints its URL
// once it listens and the bootstrap token is written).
func startServer(t *testing.T, bin, dataDir string, args ...string) *serverProc {
	t.Helper()
	p := testenv.StartProcess(t, restartBound, bin, append([]string{"server", "--data-dir", dataDir,
		"--listen", "127.0.0.1:0"}, args...)...)
	deadline := time.Now().Add(time.Minute)
	for {
		for _, line := range strings.Split(p.Stderr(), "\n") {
			if u, ok := strings.CutPrefix(line, "rangecopy server: serving "); ok {
				tok, err := os.ReadFile(filepath.Join(dataDir, "admin-token"))
				if err != nil {
					t.Fatalf("admin token: %v", err)
				}
				return &serverProc{p: p, base: strings.TrimSpace(u), token: strings.TrimSpace(string(tok))}
			}
		}
		if time.Now().After(deadline) {
			p.Kill()
			t.Fatalf("rangecopy server does not serve after a minute; stderr:\n%s", p.Stderr())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// call sends a request to the API with the admin token and decodes a JSON answer into out
// (nil: none); it fails the test unless the status is want.
func (s *serverProc) call(t *testing.T, method, path string, body, out any, want int) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read the answer: %v", method, path, err)
	}
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
}

// jobView is the part of the API's job the test reads.
type jobView struct {
	ID       string `json:"id"`
	State    string `json:"state"`
	Message  string `json:"message"`
	Progress struct {
		BytesDone int64 `json:"bytesDone"`
		Tasks     struct {
			Total, Pending, Running, Done, Failed int
		} `json:"tasks"`
	} `json:"progress"`
}

// siteFiles reads a test cluster's site files, as a cluster is registered with them.
func siteFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range []string{"hbase-site.xml", "core-site.xml"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(b)
	}
	return out
}

// TestServerKillAndRestart runs rangecopy server with embedded workers as a process,
// submits a slow copy through the API, kills the server with SIGKILL while the copy runs,
// starts it again on the same data folder and checks that the job then finishes exactly
// once, that the catalog agrees with the registry, and that the target equals the source.
func TestServerKillAndRestart(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	bin := filepath.Join(t.TempDir(), "rangecopy")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "rangecopy/cmd/rangecopy").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	table := copytest.CreateSource(t, env, "srvkill")
	copytest.DropTargetLater(t, env, table)
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(256), 3, time.Now().UnixMilli()-100_000, true)

	u := testenv.UniqueName(t, "s")
	zkRoot := "/rangecopy-test/" + u
	dataDir := t.TempDir()
	args := []string{"--zk", env.Target.ZKQuorum, "--zk-root", zkRoot, "--workers", "2",
		"--user", env.Target.User, "--work-dir", "/tmp/rangecopy-test/" + u, "--session-timeout", "4s"}
	start := time.Now()
	first := startServer(t, bin, dataDir, args...)
	for name, c := range map[string]*testenv.Cluster{"source": env.Source, "target": env.Target} {
		first.call(t, http.MethodPost, "/clusters", map[string]any{"name": name, "siteFiles": siteFiles(t, c.ConfDir)}, nil, http.StatusCreated)
	}
	var submitted jobView
	first.call(t, http.MethodPost, "/jobs", map[string]any{"source": "source", "target": "target", "table": table,
		"createTable": true, "bandwidth": "16KiB/s"}, &submitted, http.StatusCreated)
	id := submitted.ID
	t.Logf("submitted job %s", id)

	// Kill the server once a worker holds a task of the running job.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var v jobView
		first.call(t, http.MethodGet, "/jobs/"+id, nil, &v, http.StatusOK)
		if v.State == "running" && v.Progress.Tasks.Running > 0 {
			t.Logf("killing the server %v after its start: job %s, tasks %+v", time.Since(start).Round(time.Millisecond), v.State, v.Progress.Tasks)
			break
		}
		if v.State != "pending" && v.State != "planning" && v.State != "running" {
			t.Fatalf("job %s is %s (%s) before the kill", id, v.State, v.Message)
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s holds no running task after 3 minutes: %+v", id, v)
		}
		time.Sleep(100 * time.Millisecond)
	}
	first.p.Kill()

	second := startServer(t, bin, dataDir, args...)
	restarted := time.Now()
	deadline = time.Now().Add(4 * time.Minute)
	var v jobView
	for {
		second.call(t, http.MethodGet, "/jobs/"+id, nil, &v, http.StatusOK)
		if v.State == "done" {
			break
		}
		if v.State != "pending" && v.State != "planning" && v.State != "running" {
			t.Fatalf("job %s is %s after the restart: %s\nserver stderr:\n%s", id, v.State, v.Message, second.p.Stderr())
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s not done 4 minutes after the restart: %+v\nserver stderr:\n%s", id, v, second.p.Stderr())
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("job done %v after the restart, tasks %+v", time.Since(restarted).Round(time.Millisecond), v.Progress.Tasks)

	// The catalog follows the registry at the leader's next reconcile: wait until its row
	// says done (GET /jobs?state=done filters on the catalog's state).
	deadline = time.Now().Add(time.Minute)
	for {
		var page struct {
			Jobs []jobView `json:"jobs"`
		}
		second.call(t, http.MethodGet, "/jobs?state=done", nil, &page, http.StatusOK)
		if len(page.Jobs) == 1 && page.Jobs[0].ID == id {
			break
		}
		if len(page.Jobs) > 1 || time.Now().After(deadline) {
			t.Fatalf("done jobs in the catalog: %+v; want only %s", page.Jobs, id)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := second.p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := second.p.Wait(); err != nil {
		t.Fatalf("server after SIGTERM: %v\nstderr:\n%s", err, second.p.Stderr())
	}

	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cat, err := catalog.Open(cctx, "sqlite://"+filepath.Join(dataDir, "catalog.db"), catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	row, err := cat.GetJob(cctx, id)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := cat.JobEvents(cctx, id, 0, catalog.MaxPageSize)
	if err != nil {
		t.Fatal(err)
	}
	var history []string
	doneEvents := 0
	var prev catalog.JobState
	for _, e := range evs {
		history = append(history, fmt.Sprintf("%s (%s)", e.State, e.Message))
		if e.State == catalog.StateOf(job.StateDone) && prev != catalog.StateOf(job.StateDone) {
			doneEvents++
		}
		prev = e.State
	}
	t.Logf("catalog history of %s: %s", id, strings.Join(history, "; "))
	if doneEvents != 1 {
		t.Errorf("job %s became done %d times in the catalog's history; want once", id, doneEvents)
	}
	reg := copytest.OpenRegistry(t, env, zkRoot)
	rj, err := reg.Job(cctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if row.State.String() != rj.State.String() || row.State != catalog.StateOf(job.StateDone) {
		t.Errorf("catalog says %s, registry says %s; want both done", row.State, rj.State)
	}
	ids, err := reg.Jobs(cctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[0] != id {
		t.Errorf("registry jobs %v; want only %s", ids, id)
	}
	sum := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw})
	t.Logf("target equals source: %d cells in %d rows; %v in all", sum.Cells, sum.Rows, time.Since(start).Round(time.Millisecond))
}
