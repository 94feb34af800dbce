package bulkload_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"rangecopy/bulkload"
	"rangecopy/hbase"
	"rangecopy/hfile"
	"rangecopy/testenv"
)

// putFile writes raw bytes as a file of the task's family folder.
func putFile(t *testing.T, s *setup, task, fam string, data []byte) string {
	t.Helper()
	ctx := t.Context()
	name, fw, err := s.wd.Create(ctx, task, fam)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return name
}

// hfileBytes writes cells as an HFile in memory.
func hfileBytes(t *testing.T, cells []*hfile.Cell, opts hfile.WriterOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := hfile.NewWriter(&buf, opts)
	for _, c := range cells {
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestIntegrationBadInput checks that bad files and unknown families fail
// with errors that name the file (and the family), and leave the table as it
// was.
func TestIntegrationBadInput(t *testing.T) {
	t.Parallel()
	s := newSetup(t, "bad", fams, [][]byte{[]byte("r0100")})
	ctx := t.Context()
	l := s.loader(t, func(c *bulkload.LoaderConfig) { c.VerifyCells = true })

	simple := func(fam string, n int) []*hfile.Cell {
		var out []*hfile.Cell
		for i := 0; i < n; i++ {
			out = append(out, &hfile.Cell{Row: fmt.Appendf(nil, "r%04d", i), Family: []byte(fam), Qualifier: []byte("q"), Timestamp: 7, Type: hfile.TypePut, Value: []byte("v")})
		}
		return out
	}
	good := hfileBytes(t, simple("f", 5), hfile.WriterOptions{BytesPerChecksum: -1})

	// Rows out of order: patch the second row of an unchecksummed file, so
	// that every structure is intact but r0003 comes before r0002.
	if bytes.Count(good, []byte("r0001")) != 1 {
		t.Fatalf("row r0001 occurs %d times in the file", bytes.Count(good, []byte("r0001")))
	}
	unordered := bytes.Replace(good, []byte("r0001"), []byte("r0003"), 1)

	// A corrupt trailer (its magic and protobuf start 4096 bytes before the
	// end), a corrupt data block (the first one starts at offset 0, after
	// its 33-byte header), and a file cut short.
	corrupt := bytes.Clone(good)
	for i := len(corrupt) - 4096; i < len(corrupt)-4096+24; i++ {
		corrupt[i] ^= 0x5a
	}
	checked := hfileBytes(t, simple("f", 5), hfile.WriterOptions{})
	badBlock := bytes.Clone(checked)
	badBlock[40] ^= 0x5a
	truncated := good[:len(good)/2]

	type expect struct {
		name     string
		file     bulkload.File
		contains []string
		is       error
	}
	missingPath := s.wd.TaskDir("t") + "/f/0123456789abcdef0123456789abcdef"
	cases := []expect{
		{"unknown family", bulkload.File{Family: "nosuch", Path: putFile(t, s, "t", "nosuch", hfileBytes(t, simple("nosuch", 3), hfile.WriterOptions{}))},
			[]string{"nosuch", "unknown column family"}, hbase.ErrNoSuchColumnFamily},
		{"cells of another family", bulkload.File{Family: "g", Path: putFile(t, s, "t", "g", good)},
			[]string{"family differs", `"f"`}, nil},
		{"rows out of order", bulkload.File{Family: "f", Path: putFile(t, s, "t", "f", unordered)},
			[]string{"cells do not verify", "sorts before"}, nil},
		{"corrupt trailer", bulkload.File{Family: "f", Path: putFile(t, s, "t", "f", corrupt)},
			[]string{"not a readable HFile"}, hfile.ErrFormat},
		{"corrupt data block", bulkload.File{Family: "f", Path: putFile(t, s, "t", "f", badBlock)},
			[]string{"cells do not verify"}, hfile.ErrChecksum},
		{"truncated", bulkload.File{Family: "f", Path: putFile(t, s, "t", "f", truncated)},
			[]string{"not a readable HFile"}, nil},
		{"not an HFile", bulkload.File{Family: "f", Path: putFile(t, s, "t", "f", []byte("hello"))},
			[]string{"not a readable HFile"}, nil},
		{"rows differ from the caller's", bulkload.File{Family: "f", Path: putFile(t, s, "t", "f", good), FirstRow: []byte("a"), LastRow: []byte("r0004")},
			[]string{"rows differ", `"r0000"`}, nil},
		{"missing file", bulkload.File{Family: "f", Path: missingPath}, []string{"cannot open"}, nil},
	}
	for _, c := range cases {
		err := l.Load(ctx, c.file)
		var le *bulkload.LoadError
		if !errors.As(err, &le) {
			t.Errorf("%s: err = %v, want a *LoadError", c.name, err)
			continue
		}
		if bulkload.ClassifyLoadError(err) != bulkload.ActionGiveUp {
			t.Errorf("%s: ClassifyLoadError = %v, want GiveUp", c.name, bulkload.ClassifyLoadError(err))
		}
		for _, want := range append(c.contains, c.file.Path) {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not name %q", c.name, err, want)
			}
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: error %v is not %v", c.name, err, c.is)
		}
		if c.name != "missing file" && !exists(t, s.fs, c.file.Path) {
			t.Errorf("%s: the refused file %s is gone", c.name, c.file.Path)
		}
		t.Logf("%s: %v", c.name, err)
	}
	got, err := s.cl.Scan(ctx, s.table, testenv.ScanSpec{Raw: true})
	if err != nil || len(got) != 0 {
		t.Errorf("table after refused loads: %d cells, %v; want none", len(got), err)
	}
	if v := l.Counters().Values(); v.Files != 0 {
		t.Errorf("counters = %+v after refused loads", v)
	}

	// An unknown table fails at once, typed.
	_, err = bulkload.NewLoader(ctx, bulkload.LoaderConfig{Client: s.c, FS: wrapFS(t, s.fs), Table: testenv.UniqueName(t, "nosuch")})
	if !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("NewLoader of a missing table: err = %v, want ErrTableNotFound", err)
	}
}
