package bulkload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/hfile"
)

// These tests run the Loader's and the WorkDir's file handling (write,
// inspect, re-split, clean up) on a local folder: no HDFS, no region server.
// Loading itself is RPC and integration-tested.

// localCells returns one cell per row r000..r<n-1> of family f.
func localCells(n int) []*hfile.Cell {
	var cells []*hfile.Cell
	for i := range n {
		cells = append(cells, &hfile.Cell{Row: []byte(fmt.Sprintf("r%03d", i)), Family: []byte("f"), Qualifier: []byte("q"),
			Timestamp: 1000, Type: hfile.TypePut, Value: []byte(fmt.Sprintf("value %d", i))})
	}
	return cells
}

// listDir names the entries of a folder of fsys.Local{Root: root}.
func listDir(t *testing.T, root, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, dir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// readRows returns the rows of the HFile at p.
func readRows(t *testing.T, lfs fsys.FS, p string) []string {
	t.Helper()
	f, err := lfs.Open(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := hfile.Open(f, f.Size(), p)
	if err != nil {
		t.Fatal(err)
	}
	sc := r.Scanner(hfile.ScanOptions{})
	var rows []string
	for sc.Next() {
		rows = append(rows, string(sc.Cell().Row))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func localLoader(t *testing.T, lfs fsys.FS) *Loader {
	t.Helper()
	s, err := SettingsFor(hbase.FamilyDescriptor{Name: "f"}, "")
	if err != nil {
		t.Fatal(err)
	}
	return &Loader{cfg: LoaderConfig{FS: lfs, Table: "t", VerifyCells: true}, log: slog.New(slog.DiscardHandler),
		counters: &Counters{}, families: map[string]bool{"f": true},
		settings: map[string]FamilySettings{"f": s}, refused: map[string]error{}}
}

// writeLocal writes cells as a new HFile into the family folder of a task.
func writeLocal(t *testing.T, lfs fsys.FS, wd *WorkDir, task string, cells []*hfile.Cell) (string, int64) {
	t.Helper()
	dir, err := wd.FamilyDir(t.Context(), task, "f")
	if err != nil {
		t.Fatal(err)
	}
	w, err := CreateHFile(t.Context(), lfs, dir, hfile.WriterOptions{BlockSize: 256}, fsys.CreateOptions{Perm: DefaultFilePerm})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort(t.Context())
	for _, c := range cells {
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	return w.Path(), w.Written()
}

func TestWorkDirLocal(t *testing.T) {
	root := t.TempDir()
	lfs := fsys.Local{Root: root}
	ctx := t.Context()
	if _, err := OpenWorkDir(ctx, lfs, "job1", WorkDirOptions{}); err == nil {
		t.Fatal("a work folder with neither root nor user opened")
	}
	wd, err := OpenWorkDir(ctx, lfs, "job1", WorkDirOptions{User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if wd.Path() != "/user/alice/.rangecopy/job1" {
		t.Fatalf("work folder %s", wd.Path())
	}
	p, size := writeLocal(t, lfs, wd, "task1", localCells(10))
	// Folders are world-writable whatever the umask (the region servers'
	// user moves files out of them); the file is complete under its name.
	for _, dir := range []string{wd.Path(), wd.TaskDir("task1"), path.Dir(p)} {
		fi, err := lfs.Stat(ctx, dir)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != DefaultDirPerm {
			t.Errorf("%s: %v, %v; want a folder of mode %v", dir, fi, err, DefaultDirPerm)
		}
	}
	if names := listDir(t, root, path.Dir(p)); len(names) != 1 || names[0] != path.Base(p) || len(names[0]) != 32 {
		t.Fatalf("family folder holds %v, want only %s", names, path.Base(p))
	}
	if fi, err := lfs.Stat(ctx, p); err != nil || fi.Size() != size {
		t.Fatalf("stat %s: %v, %v; want %d bytes", p, fi, err, size)
	}
	if err := wd.RemoveTask(ctx, "task1"); err != nil {
		t.Fatal(err)
	}
	if _, err := lfs.Stat(ctx, wd.TaskDir("task1")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("task folder after RemoveTask: %v", err)
	}
	if err := wd.RemoveTask(ctx, "task1"); err != nil {
		t.Fatalf("removing a missing task folder: %v", err)
	}
	if err := wd.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := lfs.Stat(ctx, wd.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("job folder after Remove: %v", err)
	}
}

func TestLoaderInspectLocal(t *testing.T) {
	root := t.TempDir()
	lfs := fsys.Local{Root: root}
	wd, err := OpenWorkDir(t.Context(), lfs, "job1", WorkDirOptions{User: "u"})
	if err != nil {
		t.Fatal(err)
	}
	p, size := writeLocal(t, lfs, wd, "t1", localCells(100))
	l := localLoader(t, lfs)
	// A fully qualified path names the same file.
	f := File{Family: "f", Path: "hdfs://nn:8020" + p}
	got, err := l.inspect(t.Context(), &f)
	if err != nil || got != size || string(f.FirstRow) != "r000" || string(f.LastRow) != "r099" {
		t.Fatalf("inspect = %d, %v, rows %q..%q; want %d, rows r000..r099", got, err, f.FirstRow, f.LastRow, size)
	}
	for _, tc := range []struct {
		name   string
		f      File
		reason string
	}{
		{"other family", File{Family: "g", Path: p}, "family differs"},
		{"wrong rows", File{Family: "f", Path: p, FirstRow: []byte("r001"), LastRow: []byte("r099")}, "rows differ"},
		{"missing", File{Family: "f", Path: p + "x"}, "cannot open"},
	} {
		_, err := l.inspect(t.Context(), &tc.f)
		var le *LoadError
		if !errors.As(err, &le) || !strings.Contains(le.Reason, tc.reason) || !errors.Is(err, errBadFile) {
			t.Errorf("%s: %v, want a bad-file LoadError %q", tc.name, err, tc.reason)
		}
	}
	if _, err := l.inspect(t.Context(), &File{Family: "f", Path: p + "x"}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v does not match fs.ErrNotExist (diagnose tells a gone file by it)", err)
	}
}

// countingFS counts the files opened.
type countingFS struct {
	fsys.Local
	opens int
}

func (c *countingFS) Open(ctx context.Context, name string) (fsys.File, error) {
	c.opens++
	return c.Local.Open(ctx, name)
}

// TestLoaderDescribedFileLocal: a file its writer described (size and rows)
// is taken as described, unopened, unless every cell is to be verified; its
// rows are still checked for order.
func TestLoaderDescribedFileLocal(t *testing.T) {
	cfs := &countingFS{Local: fsys.Local{Root: t.TempDir()}}
	wd, err := OpenWorkDir(t.Context(), cfs, "job1", WorkDirOptions{User: "u"})
	if err != nil {
		t.Fatal(err)
	}
	p, size := writeLocal(t, cfs, wd, "t1", localCells(10))
	l := localLoader(t, cfs)
	l.cfg.VerifyCells = false
	f := File{Family: "f", Path: p, FirstRow: []byte("r000"), LastRow: []byte("r009"), Size: size}
	if got, err := l.inspect(t.Context(), &f); err != nil || got != size || cfs.opens != 0 {
		t.Errorf("described file: inspect = %d, %v after %d opens; want %d and none", got, err, cfs.opens, size)
	}
	bad := File{Family: "f", Path: p, FirstRow: []byte("r009"), LastRow: []byte("r000"), Size: size}
	var le *LoadError
	if _, err := l.inspect(t.Context(), &bad); !errors.As(err, &le) || !strings.Contains(le.Reason, "rows out of order") {
		t.Errorf("described file with reversed rows: %v", err)
	}
	// Without rows, or with every cell to verify, the file is read.
	if _, err := l.inspect(t.Context(), &File{Family: "f", Path: p, Size: size}); err != nil || cfs.opens != 1 {
		t.Errorf("size alone: %v after %d opens; want the file read once", err, cfs.opens)
	}
	l.cfg.VerifyCells = true
	if _, err := l.inspect(t.Context(), &f); err != nil || cfs.opens != 2 {
		t.Errorf("VerifyCells: %v after %d opens; want the file read again", err, cfs.opens)
	}
}

// failingFS fails the creation of its fail-th file.
type failingFS struct {
	fsys.Local
	n, fail int
}

func (f *failingFS) Create(ctx context.Context, name string, o fsys.CreateOptions) (io.WriteCloser, error) {
	f.n++
	if f.n == f.fail {
		return nil, errors.New("disk full")
	}
	return f.Local.Create(ctx, name, o)
}

func TestLoaderResplitLocal(t *testing.T) {
	root := t.TempDir()
	lfs := fsys.Local{Root: root}
	wd, err := OpenWorkDir(t.Context(), lfs, "job1", WorkDirOptions{User: "u"})
	if err != nil {
		t.Fatal(err)
	}
	cells := localCells(100)
	p, _ := writeLocal(t, lfs, wd, "t1", cells)
	f := File{Family: "f", Path: p, FirstRow: []byte("r000"), LastRow: []byte("r099")}
	regions := []*hbase.Region{
		{StartKey: nil, EndKey: []byte("r030")},
		{StartKey: []byte("r030"), EndKey: []byte("r050a")},
		{StartKey: []byte("r050a"), EndKey: []byte("r050b")}, // holds no row: gets no file
		{StartKey: []byte("r050b"), EndKey: nil},
	}
	l := localLoader(t, lfs)
	parts, err := l.resplit(t.Context(), f, regions)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"r000", "r029"}, {"r030", "r050"}, {"r051", "r099"}}
	if len(parts) != len(want) {
		t.Fatalf("%d parts, want %d", len(parts), len(want))
	}
	var all []string
	for i, part := range parts {
		rows := readRows(t, lfs, part.file.Path)
		if string(part.file.FirstRow) != want[i][0] || string(part.file.LastRow) != want[i][1] ||
			rows[0] != want[i][0] || rows[len(rows)-1] != want[i][1] || part.file.Family != "f" || path.Dir(part.file.Path) != path.Dir(p) {
			t.Errorf("part %d: %s rows %q..%q (file %s..%s), want %s..%s next to %s", i, part.file.Path,
				part.file.FirstRow, part.file.LastRow, rows[0], rows[len(rows)-1], want[i][0], want[i][1], p)
		}
		if fi, err := lfs.Stat(t.Context(), part.file.Path); err != nil || fi.Size() != part.size {
			t.Errorf("part %d: stat %v, %v; want %d bytes", i, fi, err, part.size)
		}
		all = append(all, rows...)
	}
	var wantRows []string
	for _, c := range cells {
		wantRows = append(wantRows, string(c.Row))
	}
	if !slices.Equal(all, wantRows) {
		t.Errorf("parts hold rows %v, want %v", all, wantRows)
	}
	// The folder holds the file and its parts, no temporary files.
	names := listDir(t, root, path.Dir(p))
	if len(names) != 1+len(parts) || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "_") }) {
		t.Errorf("family folder holds %v", names)
	}

	// A part that cannot be written leaves nothing behind but the file.
	root2 := t.TempDir()
	ffs := &failingFS{Local: fsys.Local{Root: root2}, fail: 3} // the file, part 1, then part 2 fails
	wd2, err := OpenWorkDir(t.Context(), ffs, "job1", WorkDirOptions{User: "u"})
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := writeLocal(t, ffs, wd2, "t1", cells)
	l2 := localLoader(t, ffs)
	if parts, err := l2.resplit(t.Context(), File{Family: "f", Path: p2}, regions); err == nil || !strings.Contains(err.Error(), "disk full") || parts != nil {
		t.Fatalf("resplit on a failing file system: %v, %v", parts, err)
	}
	if names := listDir(t, root2, path.Dir(p2)); len(names) != 1 || names[0] != path.Base(p2) {
		t.Errorf("after a failed re-split the family folder holds %v, want only %s", names, path.Base(p2))
	}

	// A family without re-split settings refuses before writing anything.
	l.refused["f"] = errors.New("MOB families are not supported")
	if _, err := l.resplit(t.Context(), f, regions); err == nil || !strings.Contains(err.Error(), "MOB") {
		t.Errorf("resplit of a refused family: %v", err)
	}
}
