package worker

import (
	"context"
	"sync"
	"testing"
	"time"

	"rangecopy/bulkload"
	"rangecopy/checkpoint"
	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/registry"
	"rangecopy/testenv"
)

// oneRegionLister lists one region over the whole table: these tests check
// Serve's claims and checkpoints, not region lookup.
type oneRegionLister struct{}

func (oneRegionLister) Regions(context.Context, string) ([]*hbase.Region, error) {
	return []*hbase.Region{{EncodedName: "r0"}}, nil
}

// recordingLoader records the files it is asked to load and runs a hook
// before answering.
type recordingLoader struct {
	mu       sync.Mutex
	loaded   []string
	hook     func(n int)
	together [][]string // the files of each LoadTogether call
}

// LoadTogether records the call and loads each file as Load does.
func (l *recordingLoader) LoadTogether(ctx context.Context, files []bulkload.File) error {
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	l.mu.Lock()
	l.together = append(l.together, paths)
	l.mu.Unlock()
	for _, f := range files {
		if err := l.Load(ctx, f); err != nil {
			return err
		}
	}
	return nil
}

func (l *recordingLoader) Load(_ context.Context, f bulkload.File) error {
	l.mu.Lock()
	l.loaded = append(l.loaded, f.Path)
	n := len(l.loaded)
	l.mu.Unlock()
	if l.hook != nil {
		l.hook(n)
	}
	return nil
}

func (l *recordingLoader) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.loaded)
}

// serveSetup registers a job with one task over a local HFile of 300 rows in
// the registry of the test environment's target ZooKeeper.
func serveSetup(t *testing.T) (*registry.Registry, string, ServeConfig) {
	return serveSetupSized(t, TogetherTaskBytes+1)
}

// serveSetupSized is serveSetup with the task's estimated input: up to
// TogetherTaskBytes its files are loaded together at the end, above it one by
// one as they are written.
func serveSetupSized(t *testing.T, taskBytes int64) (*registry.Registry, string, ServeConfig) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	reg, err := registry.Open(ctx, registry.Config{Servers: []string{env.Target.ZKQuorum}, Root: "/rangecopy-test/" + testenv.UniqueName(t, "w")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	p := writeHFile(t, t.TempDir(), "in", hfile.WriterOptions{}, manyRows(300))
	spec := job.TaskSpec{Task: job.Task{ID: "t1", Region: "r0", Bytes: taskBytes},
		Inputs: []job.TaskInput{{File: job.StoreFile{Region: "r0", Family: "f", Name: "in"}, Path: p}}}
	b, err := job.EncodeTaskSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.CreateJob(ctx, "j1", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if err := reg.AddTasks(ctx, "j1", []registry.Task{{ID: "t1", Spec: b}}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cfg := ServeConfig{Registry: reg, Job: "j1", Worker: "w1", TargetTable: "t", Regions: oneRegionLister{},
		Time: job.AllTime(), Families: map[string]FamilySettings{"f": {BlockSize: 1024}},
		OutputDir: func(context.Context, string, []string) (string, error) { return out, nil },
		Options:   Options{Source: fsys.Local{}, Target: fsys.Local{}, MaxFileBytes: 16 << 10, NoFastPath: true},
		Idle:      200 * time.Millisecond}
	return reg, "j1", cfg
}

// serveUntilDone runs Serve until task t1 of the job is done, stops it and
// returns the task's checkpoint.
func serveUntilDone(t *testing.T, reg *registry.Registry, jobID string, cfg ServeConfig) checkpoint.Checkpoint {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, cfg) }()
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := reg.TaskStatus(t.Context(), jobID, "t1")
		if err == nil && st == registry.StatusDone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task not done in a minute: %v, %v", st, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	b, err := reg.TaskCheckpoint(t.Context(), jobID, "t1")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := checkpoint.Decode("t1", b)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// TestServeRunsTask: Serve claims the task, loads every file, checkpoints
// each load and records the task done.
func TestServeRunsTask(t *testing.T) {
	reg, jobID, cfg := serveSetup(t)
	loader := &recordingLoader{}
	cfg.Loader = loader
	cp := serveUntilDone(t, reg, jobID, cfg)
	if !cp.Done([]string{"f"}) || cp.Files != int64(loader.count()) || loader.count() < 5 {
		t.Errorf("checkpoint %s after %d loads; want the family done and every load counted (several files)", cp, loader.count())
	}
}

// TestServeLoadsSmallTaskTogether: a small task's files wait until the task
// is written and go to the loader in one call; the checkpoint counts them all.
func TestServeLoadsSmallTaskTogether(t *testing.T) {
	reg, jobID, cfg := serveSetupSized(t, 1<<20)
	loader := &recordingLoader{}
	cfg.Loader = loader
	cp := serveUntilDone(t, reg, jobID, cfg)
	if len(loader.together) != 1 || len(loader.together[0]) != loader.count() || loader.count() < 5 {
		t.Errorf("LoadTogether calls %v, %d files loaded; want one call with every file (several)", loader.together, loader.count())
	}
	if !cp.Done([]string{"f"}) || cp.Files != int64(loader.count()) {
		t.Errorf("checkpoint %s after %d loads; want the family done and every load counted", cp, loader.count())
	}
}

// TestServeStopsOnLostClaim: when the claim goes away during a load, the
// task stops at once: no further file is loaded and nothing more is written.
func TestServeStopsOnLostClaim(t *testing.T) {
	reg, jobID, cfg := serveSetup(t)
	loader := &recordingLoader{}
	loader.hook = func(n int) {
		if n == 2 {
			// The job (and with it the claim) is removed while the
			// second file loads.
			if err := reg.DeleteJob(context.Background(), jobID); err != nil {
				t.Errorf("delete job: %v", err)
			}
		}
	}
	cfg.Loader = loader
	done := make(chan error, 1)
	go func() { done <- Serve(t.Context(), cfg) }()
	select {
	case err := <-done:
		// Serve ends because the job is gone.
		t.Logf("Serve: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("Serve did not end within a minute after its job was deleted")
	}
	if n := loader.count(); n != 2 {
		t.Errorf("%d files loaded; want 2: none after the claim was lost", n)
	}
	if _, err := reg.Job(t.Context(), jobID); err == nil {
		t.Errorf("job %s written again after its deletion", jobID)
	}
}
