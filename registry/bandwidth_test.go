package registry

import (
	"errors"
	"testing"
)

// TestBandwidth sets, changes and lifts a job's bandwidth override on the
// real ZooKeeper.
func TestBandwidth(t *testing.T) {
	server, root := testZK(t)
	r := open(t, server, root)
	ctx := t.Context()
	if _, err := r.CreateJob(ctx, "job-bw", []byte("spec")); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := r.Bandwidth(ctx, "job-bw"); err != nil || ok || v != 0 {
		t.Fatalf("before any override: %v, %v, %v; want none", v, ok, err)
	}
	for _, rate := range []float64{50e6, 1.4, 0, 1 << 30} {
		if err := r.SetBandwidth(ctx, "job-bw", rate); err != nil {
			t.Fatalf("set %v: %v", rate, err)
		}
		want := float64(int64(rate + 0.5))
		if v, ok, err := r.Bandwidth(ctx, "job-bw"); err != nil || !ok || v != want {
			t.Fatalf("after set %v: %v, %v, %v; want %v", rate, v, ok, err, want)
		}
	}
	for _, bad := range []float64{-1, MaxBandwidth * 2} {
		if err := r.SetBandwidth(ctx, "job-bw", bad); err == nil {
			t.Errorf("set %v: no error", bad)
		}
	}
	if err := r.SetBandwidth(ctx, "no-such-job", 1e6); !errors.Is(err, ErrNotFound) {
		t.Errorf("set on a missing job: %v, want ErrNotFound", err)
	}
	if _, _, err := r.Bandwidth(ctx, "no-such-job"); !errors.Is(err, ErrNotFound) {
		t.Errorf("read on a missing job: %v, want ErrNotFound", err)
	}
	// A corrupt node is an error naming it, not a limit.
	if err := r.PutJobData(ctx, "job-bw", NodeBandwidth, []byte("junk")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Bandwidth(ctx, "job-bw"); !errors.Is(err, ErrFormat) {
		t.Errorf("corrupt node: %v, want ErrFormat", err)
	}
}
