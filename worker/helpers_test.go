package worker

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"rangecopy/checkpoint"
	"rangecopy/fsys"
	"rangecopy/hfile"
	"rangecopy/job"
)

// cell makes a test cell of family "f".
func cell(row, qual string, ts int64, typ hfile.CellType, val string) *hfile.Cell {
	return &hfile.Cell{Row: []byte(row), Family: []byte("f"), Qualifier: []byte(qual), Timestamp: ts, Type: typ, Value: []byte(val)}
}

// writeHFile writes cells (sorted here) into dir/name with opts and returns
// the path.
func writeHFile(t testing.TB, dir, name string, opts hfile.WriterOptions, cells []*hfile.Cell) string {
	t.Helper()
	cs := slices.Clone(cells)
	slices.SortStableFunc(cs, hfile.CompareKeys)
	p := filepath.Join(dir, name)
	var buf bytes.Buffer
	w := hfile.NewWriter(&buf, opts)
	for _, c := range cs {
		if err := w.Append(c); err != nil {
			t.Fatalf("append %s to %s: %v", c, name, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close %s: %v", name, err)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// input makes an Input of family "f" for a local file.
func input(p string) Input {
	return Input{File: job.StoreFile{Family: "f", Name: filepath.Base(p)}, Path: p}
}

// collector records emitted files.
type collector struct {
	mu    sync.Mutex
	files []OutputFile
}

func (c *collector) emit(_ context.Context, f OutputFile) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files = append(c.files, f)
	return nil
}

// dataFiles returns the emitted files that are files (not end markers).
func (c *collector) dataFiles() []OutputFile {
	var out []OutputFile
	for _, f := range c.files {
		if !f.Last {
			out = append(out, f)
		}
	}
	return out
}

// readCells reads every cell of a local HFile.
func readCells(t testing.TB, p string) []*hfile.Cell {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := hfile.Open(bytes.NewReader(b), int64(len(b)), p)
	if err != nil {
		t.Fatalf("open output %s: %v", p, err)
	}
	var out []*hfile.Cell
	s := r.Scanner(hfile.ScanOptions{})
	for s.Next() {
		out = append(out, s.Cell().Clone())
	}
	if err := s.Err(); err != nil {
		t.Fatalf("scan output %s: %v", p, err)
	}
	return out
}

// outputCells reads the cells of every emitted file in order.
func outputCells(t testing.TB, c *collector) []*hfile.Cell {
	var out []*hfile.Cell
	for _, f := range c.dataFiles() {
		out = append(out, readCells(t, f.Path)...)
	}
	return out
}

// cellStrings formats cells with their values and tags for comparison.
func cellStrings(cs []*hfile.Cell) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%s=%q tags=%x", c, c.Value, c.Tags)
	}
	return out
}

func equalCells(t testing.TB, what string, got, want []*hfile.Cell) {
	t.Helper()
	g, w := cellStrings(got), cellStrings(want)
	if !slices.Equal(g, w) {
		t.Errorf("%s: got %d cells, want %d", what, len(g), len(w))
		for i := 0; i < max(len(g), len(w)); i++ {
			var a, b string
			if i < len(g) {
				a = g[i]
			}
			if i < len(w) {
				b = w[i]
			}
			if a != b {
				t.Errorf("  %d: got %s, want %s", i, a, b)
			}
		}
	}
}

// oneRegion is a target table with a single region.
var oneRegion = []job.Region{{EncodedName: "r0"}}

// baseTask is a task over every row and time with family "f" in NONE.
func baseTask(t testing.TB, inputs ...Input) Task {
	return Task{
		Task:       job.Task{ID: "t1"},
		Inputs:     inputs,
		Time:       job.AllTime(),
		Regions:    oneRegion,
		Families:   map[string]FamilySettings{"f": {}},
		Checkpoint: checkpoint.New("t1"),
		OutputDir:  t.TempDir(),
	}
}

// run runs a task on local files and returns what it emitted.
func run(t testing.TB, task Task, o Options) *collector {
	t.Helper()
	o.Source, o.Target = fsys.Local{}, fsys.Local{}
	c := &collector{}
	if err := Run(context.Background(), task, o, c.emit); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return c
}

// writerOptionsForTest writes small blocks, so a small file has several.
func writerOptionsForTest() hfile.WriterOptions { return hfile.WriterOptions{BlockSize: 1024} }
