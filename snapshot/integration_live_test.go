package snapshot_test

import (
	"path"
	"slices"
	"testing"
	"time"

	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/snapshot"
	"rangecopy/testenv"
)

// pinLive pins table with PinLive.
func (s *cluster) pinLive(t *testing.T, table string) *snapshot.Pinned {
	t.Helper()
	start := time.Now()
	p, err := snapshot.PinLive(t.Context(), s.client, s.fs, s.root, table, snapshot.Options{Logger: testLogger()})
	if err != nil {
		t.Fatalf("live pin of %s: %v", table, err)
	}
	t.Logf("pinned %s live in %v: %d regions, %d files", table, time.Since(start).Round(time.Millisecond), len(p.Regions), len(p.Files))
	return p
}

// TestPinLiveMatchesSnapshot pins a table whose newest cells are only in
// the memstores: the live pin's files hold every cell a raw scan shows (the
// flush settled), and a snapshot taken right after lists the same files
// with the same facts.
func TestPinLiveMatchesSnapshot(t *testing.T) {
	s := source(t)
	table := s.table(t, testenv.UniqueName(t, "live"), []testenv.Family{{Name: "f", MaxVersions: 3}, {Name: "g"}},
		[][]byte{[]byte("g"), []byte("p")})
	all := func(round int) []string {
		return append(append(rows("a", round*100, 100), rows("h", round*100, 100)...), rows("q", round*100, 100)...)
	}
	s.put(t, table, "f", all(0), "q", 0)
	s.put(t, table, "g", all(0), "q", 0)
	if err := s.c.Flush(t.Context(), table); err != nil {
		t.Fatal(err)
	}
	// The second round stays in the memstores, and the third leaves g's of
	// one region empty: that region's flush has only f to write.
	s.put(t, table, "f", all(1), "q", 0)
	s.put(t, table, "g", all(1)[:200], "c1", 0)
	p := s.pinLive(t, table)
	if p.Info.Name != "" || p.Info.Table != table || p.Info.Type != snapshot.TypeFlush || time.Since(p.Info.Created) > time.Minute {
		t.Errorf("info = %+v", p.Info)
	}
	if f := p.Schema.Family("f"); f == nil || f.MaxVersions != 3 || p.Schema.Family("g") == nil {
		t.Errorf("schema = %+v", p.Schema)
	}
	s.checkRegions(t, table, p)
	total := 0
	for _, r := range p.Regions {
		for _, fam := range []string{"f", "g"} {
			files := filesOf(p, r.EncodedName, fam)
			want := 2
			if fam == "g" && string(r.Rows.Start) == "p" {
				want = 1
			}
			if len(files) != want {
				t.Errorf("region %s family %s: %d files, want %d (one per flush)", r.EncodedName, fam, len(files), want)
			}
			for _, f := range files {
				in, _ := p.Input(f)
				if in.Path != path.Join(s.root, "data/default", table, r.EncodedName, fam, f.Name) || in.Size != f.Size || !f.HasTime {
					t.Errorf("file %+v: input %+v", f, in)
				}
			}
			total += s.checkCells(t, table, p, r, fam)
		}
	}
	if want := 300*2 + 300 + 200; total != want {
		t.Errorf("%d cells in all files, want %d", total, want)
	}
	snap, _ := s.pin(t, table)
	if len(snap.Files) != len(p.Files) {
		t.Fatalf("the snapshot lists %d files, the live pin %d", len(snap.Files), len(p.Files))
	}
	for i, f := range snap.Files {
		g := p.Files[i]
		if f.Region != g.Region || f.Family != g.Family || f.Name != g.Name || f.Size != g.Size ||
			string(f.FirstRow) != string(g.FirstRow) || string(f.LastRow) != string(g.LastRow) || f.MinTime != g.MinTime || f.MaxTime != g.MaxTime {
			t.Errorf("file %d: the snapshot has %s/%s/%s (%d bytes), the live pin %s/%s/%s (%d bytes)", i,
				f.Region, f.Family, f.Name, f.Size, g.Region, g.Family, g.Name, g.Size)
		}
	}
	// Nothing new: a second live pin flushes nothing and lists the same.
	again := s.pinLive(t, table)
	if !slices.Equal(names(again.Files), names(p.Files)) {
		t.Errorf("a second live pin lists %v, the first %v", names(again.Files), names(p.Files))
	}
	if _, err := job.Make(job.Spec{Table: table}, p.Regions, p.Files, job.PlanOptions{}); err != nil {
		t.Errorf("plan: %v", err)
	}
}

// TestPinLiveSplitReferences pins the daughters of a split whose reference
// files are not compacted away yet: their servers list the references, which
// resolve to halves of the parent's file as a snapshot's do.
func TestPinLiveSplitReferences(t *testing.T) {
	s := source(t)
	table, parent, parentFile := s.splitTable(t, "livesplit")
	// A few cells after the split, in the daughters' memstores.
	s.put(t, table, "f", rows("r", 1000, 10), "q", 0)
	p := s.pinLive(t, table)
	s.checkRegions(t, table, p)
	if len(p.Regions) != 2 {
		t.Fatalf("regions = %v", p.Regions)
	}
	wantRange := []hfile.Range{hfile.RangeBottom, hfile.RangeTop}
	for i, r := range p.Regions {
		var ref *job.StoreFile
		for _, f := range filesOf(p, r.EncodedName, "f") {
			if f.Name == parentFile+"."+parent {
				ref = &f
			}
		}
		if ref == nil {
			t.Fatalf("region %s: files %v, no reference %s.%s", r.EncodedName, names(filesOf(p, r.EncodedName, "f")), parentFile, parent)
		}
		in, _ := p.Input(*ref)
		if in.Reference == nil || in.Reference.Range != wantRange[i] || in.Path != path.Join(s.root, "data/default", table, parent, "f", parentFile) {
			t.Errorf("region %s: input %+v (reference %+v)", r.EncodedName, in, in.Reference)
		}
		want := 500
		if i == 1 {
			want += 10
		}
		if n := s.checkCells(t, table, p, r, "f"); n != want {
			t.Errorf("region %s: %d cells, want %d", r.EncodedName, n, want)
		}
	}
}
