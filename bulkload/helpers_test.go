package bulkload_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/colinmarc/hdfs/v2"

	"rangecopy/bulkload"
	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/hfile"
	"rangecopy/internal/testsupport"
	"rangecopy/testenv"
)

// testLogger logs to stderr when RANGECOPY_BULKLOAD_DEBUG is set.
func testLogger() *slog.Logger {
	if os.Getenv("RANGECOPY_BULKLOAD_DEBUG") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// dial connects our HBase client to a cluster as user.
func dial(t testing.TB, cl *testenv.Cluster, user string) *hbase.Client {
	t.Helper()
	return testsupport.DialWith(t, cl, hbase.Config{User: user, Logger: testLogger()})
}

// wrapFS is the fsys.FS of an HDFS client.
func wrapFS(t testing.TB, c *hdfs.Client) *fsys.HDFS {
	t.Helper()
	fs, err := fsys.NewHDFS(c, fsys.HDFSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// hdfsClient connects to a cluster's HDFS as user.
func hdfsClient(t testing.TB, cl *testenv.Cluster, user string) *hdfs.Client {
	t.Helper()
	return cl.HDFS(t, user)
}

// newTable creates a table with the harness and deletes it at the end.
func newTable(t testing.TB, cl *testenv.Cluster, prefix string, fams []testenv.Family, splits [][]byte) string {
	t.Helper()
	return cl.NewTable(t, prefix, fams, splits)
}

// setup is what most integration tests need: the target cluster, a table,
// our clients as the harness's (super)user, and a work folder removed at the
// end.
type setup struct {
	cl    *testenv.Cluster
	table string
	c     *hbase.Client
	fs    *hdfs.Client
	wd    *bulkload.WorkDir
}

func newSetup(t *testing.T, prefix string, fams []testenv.Family, splits [][]byte) *setup {
	t.Helper()
	env := testenv.Get(t)
	cl := env.Target
	s := &setup{cl: cl, table: newTable(t, cl, prefix, fams, splits), c: dial(t, cl, cl.User), fs: hdfsClient(t, cl, cl.User)}
	root := "/" + testenv.UniqueName(t, "bulkload") + "/.rangecopy"
	wd, err := bulkload.OpenWorkDir(t.Context(), wrapFS(t, s.fs), "job1", bulkload.WorkDirOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	s.wd = wd
	t.Cleanup(func() { s.fs.RemoveAll(strings.TrimSuffix(root, "/.rangecopy")) })
	return s
}

func (s *setup) loader(t testing.TB, mod func(*bulkload.LoaderConfig)) *bulkload.Loader {
	t.Helper()
	cfg := bulkload.LoaderConfig{Client: s.c, FS: wrapFS(t, s.fs), Table: s.table, Logger: testLogger()}
	if mod != nil {
		mod(&cfg)
	}
	l, err := bulkload.NewLoader(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(context.Background()); err != nil {
			t.Errorf("close loader: %v", err)
		}
	})
	return l
}

// genCells returns cells of family fam for rows prefix+%04d, i in [from, to),
// in file order: per row, q0 with three versions, q1 with a delete marker
// and two versions, and every tenth row a DeleteFamily marker.
func genCells(fam, prefix string, from, to int) []*hfile.Cell {
	var out []*hfile.Cell
	for i := from; i < to; i++ {
		row := fmt.Appendf(nil, "%s%04d", prefix, i)
		add := func(q string, ts int64, typ hfile.CellType, v string) {
			c := &hfile.Cell{Row: row, Family: []byte(fam), Qualifier: []byte(q), Timestamp: ts, Type: typ}
			if typ == hfile.TypePut {
				c.Value = fmt.Appendf(nil, "%s-%s-%d-%d", v, q, ts, i)
			}
			out = append(out, c)
		}
		if i%10 == 0 {
			add("", 1, hfile.TypeDeleteFamily, "")
		}
		add("q0", 30, hfile.TypePut, "v")
		add("q0", 20, hfile.TypePut, "v")
		add("q0", 10, hfile.TypePut, "v")
		add("q1", 20, hfile.TypeDelete, "")
		add("q1", 20, hfile.TypePut, "v")
		add("q1", 5, hfile.TypePut, "v")
	}
	return out
}

// writeFile writes cells as an HFile into the task's family folder.
func writeFile(t testing.TB, s *setup, task, fam string, cells []*hfile.Cell, opts hfile.WriterOptions) bulkload.File {
	t.Helper()
	ctx := t.Context()
	name, fw, err := s.wd.Create(ctx, task, fam)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(fw)
	w := hfile.NewWriter(bw, opts)
	for _, c := range cells {
		if err := w.Append(c); err != nil {
			t.Fatalf("append %s: %v", c, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return bulkload.File{Family: fam, Path: name, FirstRow: cells[0].Row, LastRow: cells[len(cells)-1].Row}
}

// keyStrings renders cells for comparison.
func keyStrings(cells []*hfile.Cell) []string {
	var out []string
	for _, c := range cells {
		out = append(out, fmt.Sprintf("%s/%s:%s/%d/%s=%q", c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value))
	}
	return out
}

func harnessStrings(cells []testenv.Cell) []string {
	var out []string
	for _, c := range cells {
		out = append(out, fmt.Sprintf("%s/%s:%s/%d/%s=%q", c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value))
	}
	return out
}

// checkTable compares a raw, all-versions scan by HBase's Java client with
// the cells written.
func checkTable(t *testing.T, s *setup, want []*hfile.Cell) {
	t.Helper()
	got, err := s.cl.Scan(t.Context(), s.table, testenv.ScanSpec{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	w, g := keyStrings(want), harnessStrings(got)
	if slices.Equal(w, g) {
		return
	}
	t.Errorf("scan of %s: %d cells, want %d", s.table, len(g), len(w))
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			t.Fatalf("first difference at cell %d: got %s, want %s", i, b, a)
		}
	}
}

// exists reports whether a path exists in HDFS.
func exists(t testing.TB, fs *hdfs.Client, p string) bool {
	t.Helper()
	_, err := fs.Stat(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("stat %s: %v", p, err)
	}
	return err == nil
}

// sortCells orders cells as HBase does.
func sortCells(cells []*hfile.Cell) {
	slices.SortStableFunc(cells, func(a, b *hfile.Cell) int { return hfile.CompareKeys(a, b) })
}
