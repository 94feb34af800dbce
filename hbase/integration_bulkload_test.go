package hbase_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"rangecopy/hbase"
	"rangecopy/testenv"
)

// storeFiles lists the HFiles of a family of a table in the cluster's HDFS,
// with Hadoop's FsShell run inside the harness.
func storeFiles(t *testing.T, cl *testenv.Cluster, table, family string) []string {
	t.Helper()
	dir := cl.RootDirPath() + "/data/default/" + table
	res, err := cl.RunTool(t.Context(), "org.apache.hadoop.fs.FsShell", []string{"-ls", "-R", dir}, nil)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("ls %s: %v %+v", dir, err, res)
	}
	var files []string
	for _, line := range strings.Split(res.Output, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 8 || !strings.HasPrefix(fields[0], "-") {
			continue
		}
		p := fields[len(fields)-1]
		if strings.Contains(p, "/"+family+"/") && !strings.Contains(p, "/.") {
			files = append(files, cl.FSDefaultFS+p)
		}
	}
	return files
}

// TestIntegrationBulkLoad loads an HFile that HBase itself wrote (a flushed
// store file of another table, copied by the region server) and checks the
// rows with HBase's Java client; then checks both kinds of refusal.
func TestIntegrationBulkLoad(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		src := newTable(t, cl, "bulksrc", []testenv.Family{{Name: "f"}}, nil)
		var cells []testenv.Cell
		for i := 0; i < 100; i++ {
			cells = append(cells, testenv.Cell{Row: fmt.Appendf(nil, "k%03d", i), Family: []byte("f"), Qualifier: []byte("q"),
				Timestamp: 42, Type: "Put", Value: fmt.Appendf(nil, "v%d", i)})
		}
		if err := cl.Mutate(ctx, src, cells); err != nil {
			t.Fatal(err)
		}
		if err := cl.Flush(ctx, src); err != nil {
			t.Fatal(err)
		}
		files := storeFiles(t, cl, src, "f")
		if len(files) != 1 {
			t.Fatalf("want one store file after a flush, got %v", files)
		}
		dst := newTable(t, cl, "bulkdst", []testenv.Family{{Name: "f"}}, [][]byte{[]byte("m")})
		regions, err := c.Regions(ctx, dst)
		if err != nil || len(regions) != 2 {
			t.Fatalf("Regions = %v, %v", regions, err)
		}
		file := hbase.BulkLoadFile{Family: "f", Path: files[0], FirstRow: []byte("k000"), LastRow: []byte("k099")}

		// Client-side refusal: the file's rows are outside region [m, ).
		err = c.BulkLoad(ctx, regions[1], []hbase.BulkLoadFile{file}, hbase.BulkLoadOptions{CopyFile: true})
		var ble *hbase.BulkLoadError
		if !errors.As(err, &ble) || !strings.Contains(err.Error(), files[0]) || !strings.Contains(err.Error(), string(regions[1].Name)) ||
			!strings.Contains(err.Error(), "outside the region") {
			t.Fatalf("load into the wrong region: err = %v", err)
		}

		// Server-side refusal: an unknown family.
		bad := file
		bad.Family = "nofamily"
		err = c.BulkLoad(ctx, regions[0], []hbase.BulkLoadFile{bad}, hbase.BulkLoadOptions{CopyFile: true})
		if !errors.As(err, &ble) || !strings.Contains(err.Error(), "nofamily:"+files[0]) {
			t.Fatalf("load into an unknown family: err = %v", err)
		}
		t.Logf("unknown family refused: %v", err)

		if err := c.BulkLoad(ctx, regions[0], []hbase.BulkLoadFile{file}, hbase.BulkLoadOptions{CopyFile: true}); err != nil {
			t.Fatalf("BulkLoad: %v", err)
		}
		got, err := cl.Scan(ctx, dst, testenv.ScanSpec{})
		if err != nil {
			t.Fatal(err)
		}
		equalKeys(t, "java scan of the loaded table", harnessKeys(got), harnessKeys(cells))
		// The source file was copied, not moved.
		if left := storeFiles(t, cl, src, "f"); len(left) != 1 {
			t.Fatalf("source store files after a copying load: %v", left)
		}
	})
}

func TestCheckBulkLoadFiles(t *testing.T) {
	r := &hbase.Region{Name: []byte("t,b,1.x."), StartKey: []byte("b"), EndKey: []byte("d")}
	ok := hbase.BulkLoadFile{Family: "f", Path: "/p", FirstRow: []byte("b"), LastRow: []byte("c\xff")}
	tests := []struct {
		name string
		f    func(*hbase.BulkLoadFile)
		want string
	}{
		{"ok", func(*hbase.BulkLoadFile) {}, ""},
		{"no family", func(f *hbase.BulkLoadFile) { f.Family = "" }, "without family"},
		{"no path", func(f *hbase.BulkLoadFile) { f.Path = "" }, "without path"},
		{"empty file", func(f *hbase.BulkLoadFile) { f.FirstRow = nil }, "unknown"},
		{"reversed", func(f *hbase.BulkLoadFile) { f.FirstRow, f.LastRow = f.LastRow, f.FirstRow }, "sorts after"},
		{"before region", func(f *hbase.BulkLoadFile) { f.FirstRow = []byte("a") }, "first row \"a\" is outside"},
		{"after region", func(f *hbase.BulkLoadFile) { f.LastRow = []byte("d") }, "last row \"d\" is outside"},
	}
	for _, tt := range tests {
		f := ok
		tt.f(&f)
		err := hbase.CheckBulkLoadFiles(r, []hbase.BulkLoadFile{f})
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
		if err != nil && !strings.Contains(err.Error(), "t,b,1.x.") {
			t.Errorf("%s: error does not name the region: %v", tt.name, err)
		}
	}
	if err := hbase.CheckBulkLoadFiles(r, nil); err == nil {
		t.Error("no files accepted")
	}
}
