package faults

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"rangecopy/hbase"
	"rangecopy/internal/testsupport"
	"rangecopy/testenv"
)

// The sample table: LoadTable's rows (row keys "%016x" of i times an odd
// constant, one cell f:q of random bytes each), then, for a share of the
// rows, older versions, a second column and delete markers written through
// HBase's client and flushed into a second store file per region, so every
// task merges two inputs of its family.
const (
	sampleRows      = 48_000 // rows of LoadTable
	sampleValueSize = 1000   // bytes of each LoadTable value: 48 MB in all
	sampleFamily    = "f"
)

// sourceSplits cut the source table into 8 regions on the first hex digit.
func sourceSplits() [][]byte {
	var s [][]byte
	for d := 2; d < 16; d += 2 {
		s = append(s, []byte(fmt.Sprintf("%x", d)))
	}
	return s
}

// targetSplits cut a target table into 32 regions on the first two hex
// digits, so each source region (and each task) spans four target regions
// and writes and loads a file for each: several loads per task.
func targetSplits() [][]byte {
	var s [][]byte
	for v := 8; v < 256; v += 8 {
		s = append(s, []byte(fmt.Sprintf("%02x", v)))
	}
	return s
}

var sampleFamilies = []testenv.Family{{Name: sampleFamily, MaxVersions: 3}}

// sampleRow is the row key LoadTable writes for its i-th row.
func sampleRow(i int) []byte {
	return []byte(fmt.Sprintf("%016x", uint64(i)*0x9E3779B97F4A7C15))
}

// writeSample creates a source table of the test's own and fills it with
// the sample, and returns its name.
func writeSample(t *testing.T, env *testenv.Env) string {
	t.Helper()
	table := env.Source.NewTable(t, "src", sampleFamilies, sourceSplits())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := env.Source.RunTool(ctx, "rangecopy.testenv.LoadTable",
		[]string{table, sampleFamily, fmt.Sprint(sampleRows), fmt.Sprint(sampleValueSize)}, nil)
	if err != nil {
		t.Fatalf("LoadTable %s: %v", table, err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("LoadTable %s: exit code %d: %s", table, res.ExitCode, res.Output)
	}
	ts := time.Now().UnixMilli() - time.Hour.Milliseconds()
	fam := []byte(sampleFamily)
	var cells []testenv.Cell
	for i := 0; i < sampleRows; i += 40 {
		row := sampleRow(i)
		cells = append(cells,
			testenv.Cell{Row: row, Family: fam, Qualifier: []byte("q"), Timestamp: ts, Type: "Put", Value: []byte(fmt.Sprintf("old-%d", i))},
			testenv.Cell{Row: row, Family: fam, Qualifier: []byte("q2"), Timestamp: ts + 1, Type: "Put", Value: []byte(fmt.Sprintf("q2-%d", i))})
		if i%80 == 0 {
			cells = append(cells, testenv.Cell{Row: row, Family: fam, Qualifier: []byte("q"), Timestamp: ts, Type: "Delete"})
		}
		if i%120 == 0 {
			cells = append(cells, testenv.Cell{Row: row, Family: fam, Qualifier: []byte("q2"), Timestamp: ts + 1, Type: "DeleteColumn"})
		}
	}
	if err := env.Source.Mutate(ctx, table, cells); err != nil {
		t.Fatalf("write versions and deletes to %s: %v", table, err)
	}
	if err := env.Source.Flush(ctx, table); err != nil {
		t.Fatalf("flush %s: %v", table, err)
	}
	t.Logf("source table %s: %d rows of %d bytes and %d more cells in %.1f s (%s)", table, sampleRows, sampleValueSize,
		len(cells), time.Since(start).Seconds(), strings.TrimSpace(res.Output[strings.LastIndex(res.Output, "RESULT"):]))
	return table
}

// newTarget creates a target table of the test's own, split finer than the
// source (targetSplits), and returns its name.
func newTarget(t *testing.T, env *testenv.Env) string {
	t.Helper()
	return env.Target.NewTable(t, "dst", sampleFamilies, targetSplits())
}

// rowScanner reads a table row by row.
type rowScanner struct {
	sc  *hbase.Scanner
	cur hbase.Result
	ok  bool
}

func newRowScanner(cl *hbase.Client, table string, raw bool) *rowScanner {
	return &rowScanner{sc: cl.Scan(table, hbase.Scan{MaxVersions: 1000, Raw: raw, Caching: 200, NoCacheBlocks: true})}
}

// next moves to the next row; false at the end or on error.
func (s *rowScanner) next(ctx context.Context) bool {
	s.ok = s.sc.Next(ctx)
	if s.ok {
		s.cur = s.sc.Result()
	}
	return s.ok
}

// assertSubset checks every cell of the target table (raw: delete markers
// too) is a cell of the source table, and returns the number of target
// cells and rows. Rows are loaded whole (a file ends at a row boundary), so
// the check goes row by row. Raw cells are comparable here because the
// harness creates both tables with compaction off (see testsupport.Compare).
func assertSubset(t *testing.T, env *testenv.Env, src, dst string) (cells, rows int) {
	t.Helper()
	ctx := t.Context()
	a := newRowScanner(testsupport.Dial(t, env.Source), src, true)
	b := newRowScanner(testsupport.Dial(t, env.Target), dst, true)
	okA := a.next(ctx)
	for b.next(ctx) {
		for okA && bytes.Compare(a.cur.Row, b.cur.Row) < 0 {
			okA = a.next(ctx)
		}
		if !okA || !bytes.Equal(a.cur.Row, b.cur.Row) {
			if err := a.sc.Err(); err != nil {
				t.Fatalf("scan source %s: %v", src, err)
			}
			t.Fatalf("target row %q is not a row of the source", b.cur.Row)
		}
		for _, c := range b.cur.Cells {
			found := false
			for _, s := range a.cur.Cells {
				if s.Equal(c) {
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("target cell %v is not a cell of the source", c)
			}
		}
		cells += len(b.cur.Cells)
		rows++
	}
	if err := b.sc.Err(); err != nil {
		t.Fatalf("scan target %s: %v", dst, err)
	}
	return cells, rows
}
