package master

import (
	"bytes"
	"strings"
	"testing"

	"rangecopy/cluster"
	"rangecopy/job"
	"rangecopy/registry"
)

func TestJobID(t *testing.T) {
	src := cluster.Config{Name: "source", ZKQuorum: []string{"b:2181", "a:2181"}, ZNodeParent: "/hbase"}
	tgt := cluster.Config{Name: "target", ZKQuorum: []string{"t:2181"}, ZNodeParent: "/hbase"}
	spec := job.Spec{Table: "ns:tbl", Rows: job.KeyRange{Start: []byte{0}, End: []byte{0xff}}, Families: []string{"b", "a"}}
	id := JobID(src, tgt, spec)
	if err := registry.ValidateJobID(id); err != nil {
		t.Fatalf("job id %q: %v", id, err)
	}
	long := job.Spec{Table: "a_long_namespace_name_" + strings.Repeat("n", 60) + ":" + strings.Repeat("q", 180)}
	if lid := JobID(src, tgt, long); registry.ValidateJobID(lid) != nil {
		t.Errorf("job id of a long table name %q: %v", lid, registry.ValidateJobID(lid))
	}
	if !strings.HasPrefix(id, "copy-ns.tbl-") || strings.Contains(SnapshotName(id), ":") {
		t.Errorf("job id %q, snapshot %q", id, SnapshotName(id))
	}
	// The same copy, said differently, is the same job.
	src2 := src
	src2.ZKQuorum = []string{"a:2181", "b:2181"}
	spec2 := spec
	spec2.Families = []string{"a", "b"}
	spec2.Time = job.AllTime()
	if got := JobID(src2, tgt, spec2); got != id {
		t.Errorf("same copy: %s, want %s", got, id)
	}
	// Anything that changes what is copied changes the id.
	for name, mod := range map[string]func(s *job.Spec, src, tgt *cluster.Config){
		"table":        func(s *job.Spec, _, _ *cluster.Config) { s.Table = "ns:other" },
		"target table": func(s *job.Spec, _, _ *cluster.Config) { s.TargetTable = "x" },
		"start":        func(s *job.Spec, _, _ *cluster.Config) { s.Rows.Start = []byte{1} },
		"end":          func(s *job.Spec, _, _ *cluster.Config) { s.Rows.End = nil },
		"time":         func(s *job.Spec, _, _ *cluster.Config) { s.Time = job.TimeRange{Min: 5, Max: 10} },
		"families":     func(s *job.Spec, _, _ *cluster.Config) { s.Families = []string{"a"} },
		"source":       func(_ *job.Spec, src, _ *cluster.Config) { src.ZNodeParent = "/hbase2" },
		"target":       func(_ *job.Spec, _, tgt *cluster.Config) { tgt.ZKQuorum = []string{"u:2181"} },
	} {
		s, sc, tc := spec, src, tgt
		s.Families = append([]string(nil), spec.Families...)
		mod(&s, &sc, &tc)
		if got := JobID(sc, tc, s); got == id {
			t.Errorf("%s changed but the job id did not: %s", name, got)
		}
	}
}

func TestWritePlan(t *testing.T) {
	spec := job.Spec{Table: "t", Time: job.TimeRange{Min: 10, Max: 100}}
	in := job.StoreFile{Region: "r1", Family: "f", Name: "a", Size: 2048, FirstRow: []byte("b"), LastRow: []byte("c"), HasTime: true, MinTime: 20, MaxTime: 30}
	partial := job.StoreFile{Region: "r1", Family: "f", Name: "b", Size: 1024, FirstRow: []byte("d"), LastRow: []byte("e"), HasTime: true, MinTime: 5, MaxTime: 30}
	old := job.StoreFile{Region: "r1", Family: "g", Name: "c", Size: 4096, HasTime: true, MinTime: 1, MaxTime: 2}
	plan := job.Plan{Tasks: []job.Task{{ID: "r1-000", Region: "r1", Rows: job.KeyRange{Start: []byte("a"), End: []byte("m")}, Files: []job.StoreFile{in, partial}, Bytes: 3072}},
		Pruned: []job.Pruned{{File: old, Reason: job.PrunedByTime}}, Bytes: 3072}
	var out bytes.Buffer
	if err := WritePlan(&out, "copy-t-1", spec, "exists", 2, plan); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, w := range []string{"dry run of job copy-t-1", "task r1-000", "f/a  2.0 KiB  rows [b, c]  fast-path candidate", "f/b  1.0 KiB  rows [d, e]\n",
		"pruned g/c (4.0 KiB): ", "1 of 2 regions in range, 1 tasks, 2 input files", "1 fast-path candidates, 1 files pruned (1 by time, 0 by rows)"} {
		if !strings.Contains(s, w) {
			t.Errorf("plan lacks %q:\n%s", w, s)
		}
	}
}

// TestTaskSpecBound: a task spec job accepts always fits a registry node.
func TestTaskSpecBound(t *testing.T) {
	if job.MaxTaskSpec > registry.MaxSpec {
		t.Errorf("job.MaxTaskSpec %d exceeds registry.MaxSpec %d", job.MaxTaskSpec, registry.MaxSpec)
	}
}

func TestSnapshotStamp(t *testing.T) {
	id := "copy-ns_t-0123456789abcdef"
	base := SnapshotName(id)
	for _, tc := range []struct {
		name string
		ms   int64
		ok   bool
	}{
		{base + "-1700000000123", 1700000000123, true},
		{PinName(base+"-1700000000123", 2), 1700000000123, true},
		{base + "-dryrun-1700000000123", 0, false},
		{base, 0, false},
		{base + "-", 0, false},
		{base + "-0", 0, false},
		{SnapshotName("copy-other-0123456789abcdef") + "-1700000000123", 0, false},
	} {
		got, ok := SnapshotStamp(id, tc.name)
		if ok != tc.ok || (ok && got.UnixMilli() != tc.ms) {
			t.Errorf("SnapshotStamp(%q) = %v, %v; want %d, %v", tc.name, got, ok, tc.ms, tc.ok)
		}
	}
}

// TestRecordCarriesTheOptions: the options a job is submitted with are its record's, one
// assignment each way (record, then attach's Options), and survive the record's encoding.
func TestRecordCarriesTheOptions(t *testing.T) {
	src := cluster.Config{Name: "source", ZKQuorum: []string{"s:2181"}, ZNodeParent: "/hbase", NameNodes: []string{"s:8020"}, RootDir: "/hbase"}
	tgt := cluster.Config{Name: "target", ZKQuorum: []string{"t:2181"}, ZNodeParent: "/hbase", NameNodes: []string{"t:8020"}, RootDir: "/hbase"}
	set := job.Settings{Bandwidth: 5e6, TaskBytes: 64 << 20, CreateTable: true, KeepSnapshot: true, Retries: 7,
		ProtectSource: job.Protect{Factor: 2}, Pin: job.PinLive}
	o := Options{Source: src, Target: tgt, Spec: job.Spec{Table: "t"},
		RunOptions: job.RunOptions{Settings: set, WorkRoot: "/w", User: "u"}}
	p := &Planner{o: &o, detached: true}
	rec := p.record("snap")
	want := o.RunOptions
	want.Detached = true
	if rec.Options != want {
		t.Fatalf("record options %+v, want %+v", rec.Options, want)
	}
	b, err := job.EncodeRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	back, err := job.DecodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Options != want || back.Options.Settings != set {
		t.Errorf("decoded options %+v, want %+v", back.Options, want)
	}
}
