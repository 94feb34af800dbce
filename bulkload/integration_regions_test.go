package bulkload_test

import (
	"testing"

	"rangecopy/hfile"
)

// TestIntegrationLoadAfterSplit writes a file for a region, splits the region
// twice inside the file's rows, then loads: the Loader's view is stale, the
// region server refuses the parent, and the file is re-split at the new
// boundaries and loaded in parts.
func TestIntegrationLoadAfterSplit(t *testing.T) {
	t.Parallel()
	s := newSetup(t, "split", fams, [][]byte{[]byte("r0500")})
	ctx := t.Context()
	// The parts take the settings of the table's families (see
	// TestPartOptions), whatever the file being split was written with.
	l := s.loader(t, nil)
	cells := genCells("f", "r", 0, 400)
	f := writeFile(t, s, "t1", "f", cells, hfile.WriterOptions{Compression: hfile.CompressionGZ, Encoding: hfile.EncodingFastDiff, IncludeTags: true, IncludeMVCC: true})
	gcells := genCells("g", "r", 50, 300)
	g := writeFile(t, s, "t1", "g", gcells, hfile.WriterOptions{})
	for _, key := range []string{"r0100", "r0250"} {
		if err := s.cl.Split(ctx, s.table, []byte(key)); err != nil {
			t.Fatalf("split at %s: %v", key, err)
		}
	}
	plain := f.Path
	f.Path = s.cl.FSDefaultFS + plain // fully qualified, as HBase names files
	if err := l.Load(ctx, f); err != nil {
		t.Fatalf("Load after split: %v", err)
	}
	if err := l.Load(ctx, g); err != nil {
		t.Fatalf("Load of g after split: %v", err)
	}
	want := append(append([]*hfile.Cell{}, cells...), gcells...)
	sortCells(want)
	checkTable(t, s, want)
	v := l.Counters().Values()
	if v.Resplits != 2 || v.Files != 6 {
		t.Errorf("counters = %+v, want 2 re-splits into 6 loaded parts", v)
	}
	if exists(t, s.fs, plain) {
		t.Errorf("re-split file %s left after its parts were loaded", plain)
	}
	left, err := s.fs.ReadDir(s.wd.TaskDir("t1") + "/f")
	if err != nil || len(left) != 0 {
		t.Errorf("work folder after the load: %v, %v; want empty", left, err)
	}
	t.Logf("counters after split: %+v", v)
}

// TestIntegrationLoadAfterMove moves the file's region to another server
// between writing and loading: the load follows the region.
func TestIntegrationLoadAfterMove(t *testing.T) {
	t.Parallel()
	s := newSetup(t, "move", fams, [][]byte{[]byte("r0100")})
	ctx := t.Context()
	l := s.loader(t, nil)
	first := genCells("g", "r", 0, 50)
	if err := l.Load(ctx, writeFile(t, s, "t1", "g", first, hfile.WriterOptions{})); err != nil {
		t.Fatal(err) // the token now belongs to the region's current server
	}
	var want []*hfile.Cell
	want = append(want, first...)
	for round := 0; round < 2; round++ {
		regions, err := s.cl.Regions(ctx, s.table)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range regions {
			to, err := s.cl.Move(ctx, r.EncodedName, "")
			if err != nil {
				t.Fatalf("move %s: %v", r.EncodedName, err)
			}
			t.Logf("moved %s from %s to %s", r.EncodedName, r.Server, to)
		}
		cells := genCells("f", "r", round*100, round*100+100)
		want = append(want, cells...)
		if err := l.Load(ctx, writeFile(t, s, "t1", "f", cells, hfile.WriterOptions{})); err != nil {
			t.Fatalf("Load after move: %v", err)
		}
	}
	sortCells(want)
	checkTable(t, s, want)
	t.Logf("counters after moves: %+v", l.Counters().Values())
}
