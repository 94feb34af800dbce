package relocate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rangecopy/catalog"
	"rangecopy/relocation"
	"rangecopy/verify"
)

// fakeJobs is Jobs in memory: jobs submitted get ids j1, j2, ...; their outcomes are set by
// the test. It counts the calls.
type fakeJobs struct {
	mu        sync.Mutex
	submitErr error
	subs      []Submission
	outcomes  map[string]Outcome
	looks     int // Outcome calls
	controls  []string
}

func (f *fakeJobs) Submit(_ context.Context, s Submission) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.submitErr != nil {
		return "", f.submitErr
	}
	f.subs = append(f.subs, s)
	id := fmt.Sprintf("j%d", len(f.subs))
	f.outcomes[id] = Outcome{State: JobActive}
	return id, nil
}

func (f *fakeJobs) Control(_ context.Context, id string, c Control) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.controls = append(f.controls, id+" "+c.String())
	if f.outcomes[id].State.Ended() {
		return fmt.Errorf("job %s ended: %w", id, ErrConflict)
	}
	return nil
}

func (f *fakeJobs) Outcome(_ context.Context, id string) (Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.looks++
	o, ok := f.outcomes[id]
	if !ok {
		return Outcome{}, fmt.Errorf("job %s: %w", id, ErrNotFound)
	}
	return o, nil
}

func (f *fakeJobs) Changes(context.Context) (<-chan struct{}, error) { return nil, nil }

func (f *fakeJobs) set(id string, o Outcome) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.outcomes[id] = o
}

// fakeVerifier finds every table equal.
type fakeVerifier struct{}

func (fakeVerifier) Verify(context.Context, Check) (verify.Report, error) {
	return verify.Report{SourceCells: 10}, nil
}

func (fakeVerifier) Repair(_ context.Context, _ Check, first verify.Report) (verify.Report, error) {
	return first, nil
}

// newTestDriver is a driver on a new SQLite catalog holding one relocation of two tables,
// as created (its full copy window running, no job submitted yet).
func newTestDriver(t *testing.T) (*Driver, *fakeJobs, catalog.Relocation) {
	t.Helper()
	ctx := t.Context()
	cat, err := catalog.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "c.db"), catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	for _, n := range []string{"a", "b"} {
		if _, err := cat.CreateCluster(ctx, catalog.Cluster{Name: n, ZKQuorum: "zk:2181"}); err != nil {
			t.Fatal(err)
		}
	}
	r := catalog.Relocation{ID: catalog.NewRelocationID(), SourceCluster: "a", TargetCluster: "b",
		Tables:   []catalog.RelocationTable{{Source: "ns:t1"}, {Source: "ns:t2", Target: "ns:u2"}},
		Schedule: "@every 1h", MarginMs: 1000, MaxLagMs: 60_000}
	r, windows, err := Started(r, time.Now().UTC())
	if err != nil {
		t.Fatal(err)
	}
	if r, err = cat.CreateRelocation(ctx, r, nil, windows...); err != nil {
		t.Fatal(err)
	}
	jobs := &fakeJobs{outcomes: map[string]Outcome{}}
	return New(Config{Catalog: cat, Jobs: jobs, Verifier: fakeVerifier{}, Poll: time.Second}), jobs, r
}

// TestStepDrivesTheWindow: a step submits the jobs of a window that lacks them, one per
// table, and looks at nothing else of it; later steps look at each job once a step, and
// the step after every job ended records the window's end with the jobs' figures.
func TestStepDrivesTheWindow(t *testing.T) {
	ctx := t.Context()
	d, jobs, r := newTestDriver(t)

	r, err := d.step(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs.subs) != 2 || jobs.looks != 0 {
		t.Fatalf("first step: %d submissions, %d looks; want 2, 0", len(jobs.subs), jobs.looks)
	}
	if s := jobs.subs[1]; s.Request.Table != "ns:t2" || s.Request.TargetTable != "ns:u2" || !s.Request.CreateTable || s.By != "relocation "+r.ID ||
		s.Relocation != r.ID {
		t.Errorf("second submission: %+v", s)
	}
	w, err := d.cfg.Catalog.RelocationWindow(ctx, r.ID, r.RunningSeq)
	if err != nil || strings.Join(w.JobIDs, ",") != "j1,j2" {
		t.Fatalf("window's jobs %v, %v; want j1,j2", w.JobIDs, err)
	}

	// A job runs: one look a job at most, nothing submitted again.
	jobs.set("j1", Outcome{State: JobDone, BytesRead: 100, FilesLoaded: 2, FilesPruned: 1})
	if r, err = d.step(ctx, r); err != nil {
		t.Fatal(err)
	}
	if len(jobs.subs) != 2 || jobs.looks != 2 || r.RunningSeq != w.Seq {
		t.Fatalf("step with a job running: %d submissions, %d looks, window %d running; want 2, 2, %d", len(jobs.subs), jobs.looks, r.RunningSeq, w.Seq)
	}

	jobs.set("j2", Outcome{State: JobDone, BytesRead: 50, FilesLoaded: 1})
	if r, err = d.step(ctx, r); err != nil {
		t.Fatal(err)
	}
	if relocation.Phase(r.Phase) != relocation.CatchingUp || r.RunningSeq != 0 || r.LastSeq != w.Seq {
		t.Fatalf("after the full copy: phase %s, running %d, last %d", r.Phase, r.RunningSeq, r.LastSeq)
	}
	if w, err = d.cfg.Catalog.RelocationWindow(ctx, r.ID, w.Seq); err != nil {
		t.Fatal(err)
	}
	if w.Outcome != string(relocation.Ran) || w.Bytes != 150 || w.FilesLoaded != 3 || w.FilesPruned != 1 || w.FinishedAt == nil {
		t.Errorf("window after its jobs: %+v", w)
	}
}

// TestStepFailsTheWindow: a job the jobs refuse for what it asks (ErrInvalid) fails the
// window, saying why; a passing error leaves it to the next step; a job that failed fails
// the window naming it and its table.
func TestStepFailsTheWindow(t *testing.T) {
	ctx := t.Context()
	t.Run("refused", func(t *testing.T) {
		d, jobs, r := newTestDriver(t)
		jobs.submitErr = fmt.Errorf("no table ns:t1: %w", ErrInvalid)
		r, err := d.step(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if relocation.Phase(r.Phase) != relocation.Failed || !strings.Contains(r.Why, "submit the job of table ns:t1: no table ns:t1") {
			t.Errorf("phase %s (%s); want failed, saying the submission was refused", r.Phase, r.Why)
		}
	})
	t.Run("passing", func(t *testing.T) {
		d, jobs, r := newTestDriver(t)
		jobs.submitErr = errors.New("zookeeper unreachable")
		after, err := d.step(ctx, r)
		if err == nil || relocation.Phase(after.Phase) != relocation.Copying || after.RunningSeq != r.RunningSeq {
			t.Errorf("step: %v, phase %s, running %d; want an error and the window still running", err, after.Phase, after.RunningSeq)
		}
	})
	t.Run("job failed", func(t *testing.T) {
		d, jobs, r := newTestDriver(t)
		r, err := d.step(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		jobs.set("j1", Outcome{State: JobDone})
		jobs.set("j2", Outcome{State: JobFailed, Why: "region server gone"})
		seq := r.RunningSeq
		if r, err = d.step(ctx, r); err != nil {
			t.Fatal(err)
		}
		w, err := d.cfg.Catalog.RelocationWindow(ctx, r.ID, seq)
		if err != nil {
			t.Fatal(err)
		}
		if w.Outcome != string(relocation.WindowFailed) || w.Why != "job j2 (ns:t2) failed: region server gone" {
			t.Errorf("window: %s (%s)", w.Outcome, w.Why)
		}
	})
}

// TestApplyControlsJobs: an operator's pause pauses the running window's jobs, a job that
// ended (ErrConflict) is passed over; cancel cancels them.
func TestApplyControlsJobs(t *testing.T) {
	ctx := t.Context()
	d, jobs, r := newTestDriver(t)
	r, err := d.step(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	jobs.set("j1", Outcome{State: JobDone})
	if r, err = d.Apply(ctx, r.ID, relocation.Pause{By: "op"}); err != nil {
		t.Fatal(err)
	}
	if relocation.Phase(r.Phase) != relocation.Paused || strings.Join(jobs.controls, ",") != "j1 pause,j2 pause" {
		t.Errorf("paused: phase %s, controls %v", r.Phase, jobs.controls)
	}
	var re *relocation.RefusedError
	if _, err := d.Apply(ctx, r.ID, relocation.Pause{By: "op"}); !errors.As(err, &re) {
		t.Errorf("pause of a paused relocation: %v; want a RefusedError", err)
	}
	if r, err = d.Apply(ctx, r.ID, relocation.Cancel{By: "op"}); err != nil {
		t.Fatal(err)
	}
	if relocation.Phase(r.Phase) != relocation.Cancelled || !strings.HasSuffix(strings.Join(jobs.controls, ","), "j1 cancel,j2 cancel") {
		t.Errorf("cancelled: phase %s, controls %v", r.Phase, jobs.controls)
	}
}

// TestCutoverReport: a forced cut-over runs the final window, then the final verification
// (on the leading driver, through the Verifier) whose report is stored with the windows'
// part; the relocation is done.
func TestCutoverReport(t *testing.T) {
	ctx := t.Context()
	d, jobs, r := newTestDriver(t)
	d.setTerm(ctx) // leads
	defer d.stopAll()
	step := func() {
		t.Helper()
		var err error
		if r, err = d.step(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	step()
	jobs.set("j1", Outcome{State: JobDone, BytesRead: 100})
	jobs.set("j2", Outcome{State: JobDone, BytesRead: 50})
	step()
	r, err := d.Apply(ctx, r.ID, relocation.Cutover{By: "op", Now: time.Now(), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	step() // submits the final window
	jobs.set("j3", Outcome{State: JobDone, BytesRead: 7})
	jobs.set("j4", Outcome{State: JobDone, BytesRead: 3})
	deadline := time.Now().Add(10 * time.Second)
	for relocation.Phase(r.Phase) != relocation.Done {
		if time.Now().After(deadline) || relocation.Phase(r.Phase).Final() {
			t.Fatalf("cut-over: phase %s (%s), verifying %v", r.Phase, r.Why, r.Verifying)
		}
		step()
		time.Sleep(10 * time.Millisecond)
	}
	var rep Report
	if err := json.Unmarshal([]byte(r.Report), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Tables) != 2 || rep.Tables[1].Target != "ns:u2" || rep.CellsCompared != 20 || rep.BytesCopied != 160 ||
		rep.Windows[string(relocation.Ran)] != 2 || rep.Remaining != 0 {
		t.Errorf("report: %+v", rep)
	}
}
