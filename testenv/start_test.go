package testenv

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeControl answers status for the clusters it is told it runs, and 400
// for others, as a harness JVM's control channel does; it records what it
// was asked.
func fakeControl(t *testing.T, runs ...string) (*httptest.Server, *[]string) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req struct {
			Cluster string `json:"cluster"`
		}
		_ = json.Unmarshal(b, &req)
		mu.Lock()
		asked = append(asked, req.Cluster)
		mu.Unlock()
		for _, c := range runs {
			if c == req.Cluster {
				_, _ = w.Write([]byte(`{"master":"m"}`))
				return
			}
		}
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"cluster does not run in this JVM"}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

func TestLoadRoutesEachClusterToItsJVM(t *testing.T) {
	src, srcAsked := fakeControl(t, "source")
	tgt, tgtAsked := fakeControl(t, "target")
	dir := t.TempDir()
	addr := func(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "http://") }
	js := `{"hbaseVersion":"v","source":{"name":"source","control":"` + addr(src) + `","pid":1},` +
		`"target":{"name":"target","control":"` + addr(tgt) + `","pid":2}}`
	if err := os.WriteFile(filepath.Join(dir, "clusters.json"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Load(dir)
	if err != nil {
		t.Fatalf("Load = %v", err)
	}
	if _, err := e.Target.Status(t.Context()); err != nil {
		t.Fatalf("target Status = %v", err)
	}
	if got := strings.Join(*srcAsked, ","); got != "source" {
		t.Errorf("the source's JVM was asked about %q, want source only", got)
	}
	if got := strings.Join(*tgtAsked, ","); got != "target,target" {
		t.Errorf("the target's JVM was asked about %q, want target twice (ping, Status)", got)
	}
	if e.OneJVM() || e.Target.HBaseVersion != "v" {
		t.Errorf("OneJVM = %v, target version %q: want two JVMs, the top-level version inherited", e.OneJVM(), e.Target.HBaseVersion)
	}

	// The single-JVM layout of older harnesses: one control channel at the top.
	both, _ := fakeControl(t, "source", "target")
	js = `{"control":"` + addr(both) + `","pid":7,"source":{"name":"source"},"target":{"name":"target"}}`
	if err := os.WriteFile(filepath.Join(dir, "clusters.json"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	if e, err = Load(dir); err != nil {
		t.Fatalf("Load(single-JVM clusters.json) = %v", err)
	}
	if !e.OneJVM() || e.Source.Control != addr(both) || e.Target.PID != 7 {
		t.Errorf("single JVM: source %+v, target %+v", e.Source, e.Target)
	}

	// A JVM that is gone: the error names its cluster and ends with its log.
	tgt.Close()
	logFile := filepath.Join(dir, "harness-target.log")
	if err := os.WriteFile(logFile, []byte("line 1\nFATAL the last words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	js = `{"source":{"name":"source","control":"` + addr(src) + `","pid":1},` +
		`"target":{"name":"target","control":"` + addr(tgt) + `","pid":2,"log":"` + logFile + `"}}`
	if err := os.WriteFile(filepath.Join(dir, "clusters.json"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(dir)
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "of cluster target") || !strings.Contains(err.Error(), "FATAL the last words") {
		t.Errorf("Load(target JVM gone) = %v, want ErrNotRunning naming the target and ending with its log", err)
	}

	// Both gone, the source because the target ended: the target's log is
	// the one that says why.
	src.Close()
	srcLog := filepath.Join(dir, "harness-source.log")
	if err := os.WriteFile(srcLog, []byte("harness JVM 2 "+peerEnded+"; stopping this one too\nshutdown noise\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	js = `{"source":{"name":"source","control":"` + addr(src) + `","pid":1,"log":"` + srcLog + `"},` +
		`"target":{"name":"target","control":"` + addr(tgt) + `","pid":2,"log":"` + logFile + `"}}`
	if err := os.WriteFile(filepath.Join(dir, "clusters.json"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(dir)
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "of cluster source") ||
		!strings.Contains(err.Error(), "FATAL the last words") || strings.Contains(err.Error(), "shutdown noise") {
		t.Errorf("Load(both JVMs gone) = %v, want both named and the target's log, not the source's", err)
	}
}

// TestStartStopsAllWhenOneJVMFails starts a harness whose target refuses its
// spec (a secure cluster, not built yet) and checks that Start fails naming
// the target and the end of its output, with the source's JVM stopped.
func TestStartStopsAllWhenOneJVMFails(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	harness := filepath.Join(root, "testenv")
	if _, err := os.Stat(filepath.Join(harness, "target", "classpath.txt")); err != nil {
		if InCI() {
			t.Fatalf("harness not built in CI: %v", err)
		}
		t.Skipf("skipped: harness not built (make testenv-build): %v", err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	_, err = Start(ctx, StartOptions{
		Dir:        dir,
		HarnessDir: harness,
		Specs:      []ClusterSpec{{Name: "source", Heap: "1g"}, {Name: "target", Heap: "1g", Secure: true}},
	})
	if err == nil {
		_ = Stop(context.Background(), dir, time.Minute)
		t.Fatal("Start with a target it cannot build succeeded")
	}
	t.Logf("Start: %v", err)
	for _, want := range []string{"cluster target", "secure clusters (Kerberos) are not built yet", "harness-target.out"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start error does not contain %q:\n%v", want, err)
		}
	}
	files, err := pidFiles(dir)
	if err != nil || len(files) != 0 {
		t.Errorf("pid files left after the failed start: %v, %v", files, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "harness-source.pid"))
	if err == nil {
		t.Errorf("the source's pid file is left: %s", b)
	}
}

// TestEachClusterInItsOwnJVM checks the running environment: two harness
// JVMs, each serving its own cluster only, each with its own log.
func TestEachClusterInItsOwnJVM(t *testing.T) {
	env := Get(t)
	if env.OneJVM() {
		if InCI() {
			t.Fatalf("in CI, %s runs both clusters in one JVM: make test starts a JVM per cluster", env.Dir)
		}
		t.Skipf("skipped: %s runs both clusters in one JVM (an older harness, or testenv up -one-jvm)", env.Dir)
	}
	for _, c := range []*Cluster{env.Source, env.Target} {
		if !harnessOf(c.PID, env.Dir) {
			t.Errorf("%s: pid %d is not a harness JVM of %s", c.Name, c.PID, env.Dir)
		}
		if st, err := os.Stat(c.Log); err != nil || st.Size() == 0 {
			t.Errorf("%s: log %s: %v", c.Name, c.Log, err)
		}
	}
	if env.Source.PID == env.Target.PID || env.Source.Control == env.Target.Control {
		t.Fatalf("source and target share a JVM: %+v, %+v", env.Source, env.Target)
	}
	// The source's JVM does not run the target.
	err := env.Source.ctl.do(t.Context(), "status", "target", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "does not run in this JVM") {
		t.Errorf("status of the target on the source's JVM: %v, want a refusal", err)
	}
}
