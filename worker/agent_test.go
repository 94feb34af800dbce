package worker

import (
	"fmt"
	"testing"

	"rangecopy/bulkload"
	"rangecopy/job"
	"rangecopy/memory"
)

func TestShareOf(t *testing.T) {
	for _, tc := range []struct {
		capacity, total int
		want            float64
	}{
		{4, 16, 0.25},
		{8, 16, 0.5},
		{4, 4, 1},
		{4, 0, 1}, // not registered yet: the whole job's bandwidth, until the next look
		{4, 2, 1}, // a stale listing that misses this worker
	} {
		if got := shareOf(tc.capacity, tc.total); got != tc.want {
			t.Errorf("shareOf(%d, %d) = %v, want %v", tc.capacity, tc.total, got, tc.want)
		}
	}
}

func TestTinyConfig(t *testing.T) {
	spec := func(bytes int64, inputs ...string) []byte {
		ts := job.TaskSpec{Task: job.Task{ID: "t1", Bytes: bytes}}
		for i, fam := range inputs {
			ts.Inputs = append(ts.Inputs, job.TaskInput{File: job.StoreFile{Region: "r", Family: fam, Name: fmt.Sprintf("%032x", i)}, Path: "/p"})
		}
		b, err := job.EncodeTaskSpec(ts)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	fams := map[string]bulkload.FamilySettings{"d": {}, "m": {BlockSize: 8 << 10}}
	many := make([]string, 40)
	for i := range many {
		many[i] = "d"
	}
	for _, tc := range []struct {
		name   string
		memory int64
		spec   []byte
		tiny   bool
	}{
		{"a window's task: two small files", memory.Default, spec(400<<10, "d", "m"), true},
		{"at the bound", memory.Default, spec(TogetherTaskBytes, "d"), true},
		{"past the bound", memory.Default, spec(TogetherTaskBytes+1, "d"), false},
		{"small but too many files for a quarter share", memory.Default, spec(1<<20, many...), false},
		{"a budget too small to quarter", 64 << 20, spec(1<<20, "d"), false},
		{"not a task spec", memory.Default, []byte("{"), false},
	} {
		cfg := ServeConfig{Families: fams, Options: Options{Memory: memory.New(tc.memory), MemorySlots: 4}}
		got := tinyConfig(&cfg, tc.spec)
		if got != tc.tiny {
			t.Errorf("%s: tiny = %v, want %v", tc.name, got, tc.tiny)
		}
		if want := map[bool]int{true: 4 * TinyPerSlot, false: 4}[tc.tiny]; cfg.Options.MemorySlots != want {
			t.Errorf("%s: memory slots %d, want %d", tc.name, cfg.Options.MemorySlots, want)
		}
	}
}
