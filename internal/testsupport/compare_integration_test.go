package testsupport

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"rangecopy/testenv"
)

// failures runs f with a test whose failures are recorded, not reported,
// and returns them.
func failures(t *testing.T, f func(t testing.TB)) string {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.msgs.String()
}

// recorder is a test whose Errorf and Fatalf only record (Fatalf ends the
// goroutine as testing does); everything else goes to the real test.
type recorder struct {
	testing.TB
	msgs strings.Builder
}

func (r *recorder) Errorf(format string, args ...any) { fmt.Fprintf(&r.msgs, format+"\n", args...) }

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// TestCompareOnTheClusters writes the same cells (a binary row key, versions
// and delete markers) to a source and a target table and checks that
// Compare finds them equal in both modes, names an extra target cell
// precisely, and refuses a raw comparison with a table that may compact.
func TestCompareOnTheClusters(t *testing.T) {
	env := testenv.Get(t)
	fams := []testenv.Family{{Name: "f", MaxVersions: 3}}
	var cells []testenv.Cell
	for i := 0; i < 20; i++ {
		row := []byte{'r', byte(i), 0xff}
		cells = append(cells,
			testenv.Cell{Row: row, Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 100, Type: "Put", Value: []byte(fmt.Sprintf("old-%d", i))},
			testenv.Cell{Row: row, Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 200, Type: "Put", Value: []byte(fmt.Sprintf("new-%d", i))})
		if i%4 == 0 {
			cells = append(cells, testenv.Cell{Row: row, Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 200, Type: "Delete"})
		}
	}
	write := func(c *testenv.Cluster, table string, cells []testenv.Cell) {
		t.Helper()
		if err := c.Mutate(t.Context(), table, cells); err != nil {
			t.Fatal(err)
		}
		if err := c.Flush(t.Context(), table); err != nil {
			t.Fatal(err)
		}
	}
	src := env.Source.NewTable(t, "cmpsrc", fams, nil)
	dst := env.Target.NewTable(t, "cmpdst", fams, [][]byte{{'r', 10}})
	write(env.Source, src, cells)
	write(env.Target, dst, cells)

	// The flush drops the five puts the Delete markers of their timestamp
	// mask, and keeps the markers.
	raw := Compare(t, env, CompareSpec{SourceTable: src, TargetTable: dst, Mode: Raw})
	if raw.Cells != 40 || raw.Rows != 20 || raw.Types["Delete"] != 5 {
		t.Errorf("raw comparison: %+v, want 40 cells in 20 rows, 5 of them Delete markers", raw)
	}
	// Readers see the newer put, or the older one where a Delete masks it.
	vis := Compare(t, env, CompareSpec{SourceTable: src, TargetTable: dst, Mode: Visible})
	if vis.Cells != 35 || vis.Types["Delete"] != 0 {
		t.Errorf("visible comparison: %+v, want 35 cells, no markers", vis)
	}

	// The target holds rows outside the range compared, and an extra cell.
	if msg := failures(t, func(t testing.TB) {
		Compare(t, env, CompareSpec{SourceTable: src, TargetTable: dst, StopRow: []byte{'r', 5}, Mode: Raw})
	}); !strings.Contains(msg, `target has extra row "r\x05\xFF" f:q ts 200 Put value "new-5" (5 bytes)`) {
		t.Errorf("range comparison with the whole target: %s", msg)
	}
	write(env.Target, dst, []testenv.Cell{{Row: []byte{'r', 3, 0xff}, Family: []byte("f"), Qualifier: []byte{0}, Timestamp: 300, Type: "Put", Value: []byte("x")}})
	msg := failures(t, func(t testing.TB) { Compare(t, env, CompareSpec{SourceTable: src, TargetTable: dst, Mode: Raw}) })
	if want := `1 differences (40 cells equal), the first 1:
  target has extra row "r\x03\xFF" f:\x00 ts 300 Put value "x" (1 bytes)`; !strings.Contains(msg, want) {
		t.Errorf("comparison with an extra target cell says\n%s\nwant it to say\n%s", msg, want)
	}

	// A table that may compact: raw is refused, visible is compared.
	live := testenv.UniqueName(t, "cmplive")
	if err := env.Target.CreateTableWith(t.Context(), live, fams, nil, testenv.TableOptions{Compaction: true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Target.DeleteTable(context.Background(), live) })
	write(env.Target, live, cells)
	msg = failures(t, func(t testing.TB) { Compare(t, env, CompareSpec{SourceTable: src, TargetTable: live, Mode: Raw}) })
	if !strings.Contains(msg, "the target table "+live+` may compact (COMPACTION_ENABLED="true", want "false")`) {
		t.Errorf("raw comparison with a table that compacts says %q", msg)
	}
	if n := Compare(t, env, CompareSpec{SourceTable: src, TargetTable: live, Mode: Visible}).Cells; n != vis.Cells {
		t.Errorf("visible comparison with the compacting table: %d cells, want %d", n, vis.Cells)
	}
	if msg := failures(t, func(t testing.TB) { Compare(t, env, CompareSpec{SourceTable: src, TargetTable: dst}) }); !strings.Contains(msg, "choose Raw or Visible") {
		t.Errorf("comparison without a mode says %q", msg)
	}
}
