package bulkload_test

import (
	"fmt"
	"strings"
	"testing"

	"rangecopy/bulkload"
	"rangecopy/hfile"
	"rangecopy/testenv"
)

var fams = []testenv.Family{{Name: "f", MaxVersions: 10}, {Name: "g", MaxVersions: 10}}

// TestIntegrationLoad writes one HFile per region and family (with several
// versions and delete markers, in different encodings and compressions),
// loads them into a pre-split table and compares a raw scan with the cells.
func TestIntegrationLoad(t *testing.T) {
	t.Parallel()
	s := newSetup(t, "load", fams, [][]byte{[]byte("r0100"), []byte("r0200")})
	ctx := t.Context()
	l := s.loader(t, nil)
	var want []*hfile.Cell
	var files []bulkload.File
	opts := []hfile.WriterOptions{
		{},
		{Compression: hfile.CompressionGZ, Encoding: hfile.EncodingFastDiff, IncludeTags: true, IncludeMVCC: true},
		{Encoding: hfile.EncodingPrefix, Bloom: hfile.BloomRow},
	}
	for i, bounds := range [][2]int{{0, 100}, {100, 200}, {200, 300}} {
		for _, fam := range []string{"f", "g"} {
			cells := genCells(fam, "r", bounds[0], bounds[1])
			want = append(want, cells...)
			files = append(files, writeFile(t, s, fmt.Sprintf("task%d", i), fam, cells, opts[i]))
		}
	}
	// Load concurrently: a Loader is shared by a task's goroutines.
	errs := make(chan error, len(files))
	for _, f := range files {
		go func() { errs <- l.Load(ctx, f) }()
	}
	for range files {
		if err := <-errs; err != nil {
			t.Fatalf("Load: %v", err)
		}
	}
	for _, f := range files {
		if exists(t, s.fs, f.Path) {
			t.Errorf("%s is still in the work folder after its load: copied, not moved", f.Path)
		}
	}
	sortCells(want)
	checkTable(t, s, want)
	v := l.Counters().Values()
	if v.Files != int64(len(files)) || v.Bytes <= 0 || v.Resplits != 0 {
		t.Errorf("counters = %+v, want %d files, no re-splits", v, len(files))
	}
	t.Logf("loaded %d files, %d bytes, %d cells; counters %+v", len(files), v.Bytes, len(want), v)

	// Loading the same cells again (a load repeated after a crash) only adds
	// identical cells: the raw scan still returns each cell once.
	again := writeFile(t, s, "task0", "f", genCells("f", "r", 0, 100), hfile.WriterOptions{})
	again.FirstRow, again.LastRow = nil, nil // the Loader reads them from the file
	if err := l.Load(ctx, again); err != nil {
		t.Fatalf("second Load: %v", err)
	}
	checkTable(t, s, want)

	// Close releases the bulk load token: HBase deletes its staging folder
	// (named <user>__<table>__<random> under <rootdir>/staging).
	staging := s.cl.RootDirPath() + "/staging"
	tokens := func() []string {
		var out []string
		entries, err := s.fs.ReadDir(staging)
		if err != nil {
			t.Fatalf("list %s: %v", staging, err)
		}
		for _, e := range entries {
			if strings.Contains(e.Name(), "__"+s.table+"__") {
				out = append(out, e.Name())
			}
		}
		return out
	}
	if n := len(tokens()); n != 1 {
		t.Errorf("%d staging folders of %s while loading, want 1 (one token per Loader)", n, s.table)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if left := tokens(); len(left) != 0 {
		t.Errorf("staging folders left after Close: %v", left)
	}

	// Cleanup removes the task and job folders.
	if err := s.wd.RemoveTask(ctx, "task0"); err != nil {
		t.Fatal(err)
	}
	if exists(t, s.fs, s.wd.TaskDir("task0")) || !exists(t, s.fs, s.wd.TaskDir("task1")) {
		t.Error("RemoveTask removed the wrong folders")
	}
	if err := s.wd.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if exists(t, s.fs, s.wd.Path()) {
		t.Error("job folder left after Remove")
	}
	if err := s.wd.Remove(ctx); err != nil {
		t.Errorf("second Remove: %v", err)
	}
}
