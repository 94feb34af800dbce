package registry

import (
	"testing"

	"rangecopy/checkpoint"
)

// The registry's bound on checkpoints is checkpoint's own.
func TestCheckpointBound(t *testing.T) {
	if MaxCheckpoint != checkpoint.MaxEncoded {
		t.Fatalf("MaxCheckpoint %d, checkpoint.MaxEncoded %d", MaxCheckpoint, checkpoint.MaxEncoded)
	}
}

// A worker's checkpoint goes in as checkpoint.Encode's bytes and the next
// holder resumes from checkpoint.Decode of what it reads.
func TestCheckpointRoundTrip(t *testing.T) {
	server, root := testZK(t)
	r := open(t, server, root)
	ctx := t.Context()
	setupJob(t, r, "abc-000")
	c, err := r.ClaimTask(ctx, "j", "abc-000", "w1")
	if err != nil {
		t.Fatal(err)
	}
	// Nothing saved yet: nil bytes, which Decode reads as a fresh start.
	b, err := r.TaskCheckpoint(ctx, "j", "abc-000")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := checkpoint.Decode("abc-000", b)
	if err != nil {
		t.Fatal(err)
	}
	cp, err = cp.Advance(nil, checkpoint.Loaded{Family: "f", Mark: []byte("row-5"), Files: 1, Cells: 10, Bytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := cp.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SaveCheckpoint(ctx, enc); err != nil {
		t.Fatal(err)
	}
	if err := c.Release(ctx); err != nil {
		t.Fatal(err)
	}
	b, err = r.TaskCheckpoint(ctx, "j", "abc-000")
	if err != nil {
		t.Fatal(err)
	}
	got, err := checkpoint.Decode("abc-000", b)
	if err != nil {
		t.Fatal(err)
	}
	if from, ok := got.ResumeFrom(nil, "f"); !ok || string(from) != "row-5" || got.Cells != 10 {
		t.Fatalf("resumed checkpoint %v: from %q, %v", got, from, ok)
	}
}
