package testenv_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"rangecopy/testenv"
)

// sampleCells makes n rows of one cell each in family f, with binary keys.
func sampleCells(n int, ts int64) []testenv.Cell {
	cells := make([]testenv.Cell, 0, n)
	for i := 0; i < n; i++ {
		cells = append(cells, testenv.Cell{
			Row:       []byte(fmt.Sprintf("row-%04d\x00\xff", i)),
			Family:    []byte("f"),
			Qualifier: []byte("q"),
			Timestamp: ts,
			Type:      "Put",
			Value:     []byte(fmt.Sprintf("value-%d", i)),
		})
	}
	return cells
}

// newTable creates a table of its own on c with family f (3 versions) and
// deletes it when the test ends.
func newTable(t *testing.T, ctx context.Context, c *testenv.Cluster, prefix string, splits [][]byte) string {
	t.Helper()
	return newTableWith(t, ctx, c, prefix, splits, testenv.TableOptions{})
}

// newTableWith is newTable with table options (compaction on, for a test
// that compacts).
func newTableWith(t *testing.T, ctx context.Context, c *testenv.Cluster, prefix string, splits [][]byte, opts testenv.TableOptions) string {
	t.Helper()
	table := testenv.UniqueName(t, prefix)
	if err := c.CreateTableWith(ctx, table, []testenv.Family{{Name: "f", MaxVersions: 3}}, splits, opts); err != nil {
		t.Fatalf("create table %s on %s: %v", table, c.Name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := c.DeleteTable(ctx, table); err != nil {
			t.Errorf("delete table %s on %s: %v", table, c.Name, err)
		}
	})
	return table
}

// sameCells fails the test unless got and want hold the same cells in order.
func sameCells(t *testing.T, what string, got, want []testenv.Cell) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d cells, want %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if !bytes.Equal(g.Row, w.Row) || !bytes.Equal(g.Family, w.Family) || !bytes.Equal(g.Qualifier, w.Qualifier) ||
			g.Timestamp != w.Timestamp || g.Type != w.Type || !bytes.Equal(g.Value, w.Value) {
			t.Fatalf("%s: cell %d = %q/%q:%q@%d %s %q, want %q/%q:%q@%d %s %q", what, i,
				g.Row, g.Family, g.Qualifier, g.Timestamp, g.Type, g.Value,
				w.Row, w.Family, w.Qualifier, w.Timestamp, w.Type, w.Value)
		}
	}
}

// waitFor polls cond until it holds or the context ends.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() (bool, error)) {
	t.Helper()
	pause := 50 * time.Millisecond
	for {
		ok, err := cond()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(pause):
		}
		pause = min(2*pause, time.Second)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
