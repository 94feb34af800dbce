// Package copytest holds what the copy tests of master and inproc share: a
// sample source table with binary rows over four regions, rounds of writes
// flushed into files of their own, and a cell-for-cell comparison of source
// and target.
package copytest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"strings"
	"testing"
	"time"

	"rangecopy/hbase"
	"rangecopy/internal/testsupport"
	"rangecopy/registry"
	"rangecopy/testenv"
)

// Writer writes a test's log lines into t.Log.
type Writer struct{ T *testing.T }

// Write logs p as one line.
func (w Writer) Write(p []byte) (int, error) {
	w.T.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// OpenRegistry opens the registry under root on the target's ZooKeeper,
// closed when the test ends.
func OpenRegistry(t *testing.T, env *testenv.Env, root string) *registry.Registry {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	reg, err := registry.Open(ctx, registry.Config{Servers: []string{env.Target.ZKQuorum}, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	return reg
}

// DialCluster opens our HBase client on a test cluster.
func DialCluster(t *testing.T, c *testenv.Cluster) *hbase.Client {
	t.Helper()
	cl, err := hbase.Dial(t.Context(), hbase.Config{ZKQuorum: []string{c.ZKQuorum}, ZNodeParent: c.ZNodeParent, User: c.User})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// BinaryRows are the sample's row keys: binary, with 0x00 and 0xFF bytes.
func BinaryRows(n int) [][]byte {
	var rows [][]byte
	for i := 0; i < n; i++ {
		switch i % 4 {
		case 0:
			rows = append(rows, []byte{0x00, byte(i), 'a'})
		case 1:
			rows = append(rows, []byte{0x40, byte(i), 0x00})
		case 2:
			rows = append(rows, []byte{0x80, byte(i), 0xff})
		default:
			rows = append(rows, []byte{0xff, 0xff, byte(i)})
		}
	}
	return rows
}

// SampleSplits cut the binary rows into four regions.
var SampleSplits = [][]byte{{0x40}, {0x80}, {0xff}}

// SampleFamilies are the sample's families: cf2 compressed, with a row-column bloom.
var SampleFamilies = []testenv.Family{{Name: "cf1", MaxVersions: 3}, {Name: "cf2", MaxVersions: 3, Compression: "GZ", Bloom: "ROWCOL"}}

// WriteRounds writes rounds of puts (three versions over the rounds) and,
// in the last round, every delete kind, through HBase's client; each round
// is flushed into its own store files. Timestamps are ts0 + round*1000 (+ a
// few ms).
func WriteRounds(t *testing.T, c *testenv.Cluster, table string, rows [][]byte, rounds int, ts0 int64, deletes bool) {
	t.Helper()
	ctx := t.Context()
	for round := 0; round < rounds; round++ {
		var cells []testenv.Cell
		ts := ts0 + int64(round)*1000
		for i, row := range rows {
			for _, fam := range []string{"cf1", "cf2"} {
				cells = append(cells, testenv.Cell{Row: row, Family: []byte(fam), Qualifier: []byte("q1"), Timestamp: ts, Type: "Put",
					Value: []byte(fmt.Sprintf("%x-%s-%d", row, fam, round))})
				if i%3 == 0 {
					cells = append(cells, testenv.Cell{Row: row, Family: []byte(fam), Qualifier: []byte{0x00, 0xff}, Timestamp: ts + 1, Type: "Put",
						Value: bytes.Repeat([]byte{byte(i), byte(round)}, 40)})
				}
			}
			if deletes && round == rounds-1 {
				switch i % 8 {
				case 1:
					cells = append(cells, testenv.Cell{Row: row, Family: []byte("cf1"), Qualifier: []byte("q1"), Timestamp: ts0, Type: "Delete"})
				case 2:
					cells = append(cells, testenv.Cell{Row: row, Family: []byte("cf2"), Qualifier: []byte("q1"), Timestamp: ts, Type: "DeleteColumn"})
				case 3:
					cells = append(cells, testenv.Cell{Row: row, Family: []byte("cf1"), Timestamp: ts + 2, Type: "DeleteFamily"})
				case 5:
					cells = append(cells, testenv.Cell{Row: row, Family: []byte("cf2"), Timestamp: ts0, Type: "DeleteFamilyVersion"})
				}
			}
		}
		if err := c.Mutate(ctx, table, cells); err != nil {
			t.Fatalf("write round %d to %s: %v", round, table, err)
		}
		if err := c.Flush(ctx, table); err != nil {
			t.Fatalf("flush %s: %v", table, err)
		}
	}
}

// CreateSource creates a source table of the test with the sample's regions
// and families.
func CreateSource(t *testing.T, env *testenv.Env, prefix string) string {
	t.Helper()
	return CreateSourceWith(t, env, prefix, testenv.TableOptions{})
}

// CreateSourceWith is CreateSource with table options: compaction on, for a
// test that compacts (and so compares visible cells, not raw scans).
func CreateSourceWith(t *testing.T, env *testenv.Env, prefix string, opts testenv.TableOptions) string {
	t.Helper()
	table := testenv.UniqueName(t, prefix)
	if err := env.Source.CreateTableWith(t.Context(), table, SampleFamilies, SampleSplits, opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Source.DeleteTable(context.Background(), table) })
	return table
}

// DropTargetLater removes a target table when the test ends.
func DropTargetLater(t *testing.T, env *testenv.Env, table string) {
	t.Cleanup(func() { env.Target.DeleteTable(context.Background(), table) })
}

// AssertSame compares the source's raw cells of [start, stop) with the
// target table's, cell for cell (testsupport.Compare in Raw mode, which
// refuses tables that may compact), and returns the number of cells.
func AssertSame(t *testing.T, env *testenv.Env, srcTable, dstTable string, start, stop []byte) int {
	t.Helper()
	return testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: srcTable, TargetTable: dstTable,
		StartRow: start, StopRow: stop, Mode: testsupport.Raw}).Cells
}

// AssertLoadedWithSeqIDs checks that every store file of the target table
// was bulk loaded with a sequence id (a "_SeqId_<n>_" name). A region server
// that finds a flush of the region running when it flushes before a load
// loads the file without one, and then cells of a byte-for-byte copied flush
// file keep the source's MVCC values and stay hidden from every read until
// the region reopens; comparisons by scan would fail only now and then. It
// suits copies into tables nothing else writes (no flush files of their own).
func AssertLoadedWithSeqIDs(t *testing.T, env *testenv.Env, table string) {
	t.Helper()
	ns, name, ok := strings.Cut(table, ":")
	if !ok {
		ns, name = "default", table
	}
	c := env.Target.HDFS(t, "")
	dir := path.Join(env.Target.RootDirPath(), "data", ns, name)
	files := 0
	err := c.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel := strings.Split(strings.TrimPrefix(p, dir+"/"), "/")
		// <region>/<family>/<file>, leaving out .regioninfo, recovered.edits
		// and the folders HBase keeps beside families (".tmp" and the like).
		if fi.IsDir() || len(rel) != 3 || strings.HasPrefix(rel[1], ".") || rel[1] == "recovered.edits" || strings.HasPrefix(rel[2], ".") {
			return nil
		}
		files++
		if !strings.Contains(rel[2], "_SeqId_") {
			t.Errorf("store file %s of %s was loaded without a sequence id: its cells may be hidden from reads", p, table)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("list the store files of %s: %v", table, err)
	}
	if files == 0 {
		t.Errorf("no store file in %s: nothing to check", dir)
	}
}

// HasSnapshot reports whether the source has a snapshot whose name starts
// with prefix.
func HasSnapshot(t *testing.T, env *testenv.Env, prefix string) bool {
	t.Helper()
	snaps, err := DialCluster(t, env.Source).ListSnapshots(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		if strings.HasPrefix(s.Name, prefix) {
			return true
		}
	}
	return false
}
