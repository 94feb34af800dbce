package snapshot

import (
	"bytes"
	"testing"

	"rangecopy/hfile"
)

// writeFile writes rows into an HFile with opts.
func writeFile(t *testing.T, rows []string, opts hfile.WriterOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	opts.CreateTime = 1
	w := hfile.NewWriter(&buf, opts)
	for _, r := range rows {
		c := &hfile.Cell{Row: []byte(r), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 7, Type: hfile.TypePut, Value: bytes.Repeat([]byte(r), 3)}
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestIndexSample(t *testing.T) {
	rows := rowsN("row", 0, 3000)
	plain := writeFile(t, rows, hfile.WriterOptions{BlockSize: 1024})
	pr, err := hfile.Open(bytes.NewReader(plain), int64(len(plain)), "plain")
	if err != nil {
		t.Fatal(err)
	}
	base, err := indexSample(pr, 1)
	if err != nil || len(base) < 50 {
		t.Fatalf("uncompressed index: %d entries, %v", len(base), err)
	}
	tests := []struct {
		name  string
		opts  hfile.WriterOptions
		magic []string
	}{
		{"none", hfile.WriterOptions{BlockSize: 1024}, []string{"DATABLK*"}},
		{"gz", hfile.WriterOptions{BlockSize: 1024, Compression: hfile.CompressionGZ}, []string{"DATABLK*"}},
		{"snappy", hfile.WriterOptions{BlockSize: 1024, Compression: hfile.CompressionSnappy}, []string{"DATABLK*"}},
		{"lz4", hfile.WriterOptions{BlockSize: 1024, Compression: hfile.CompressionLZ4}, []string{"DATABLK*"}},
		{"zstd hadoop block", hfile.WriterOptions{BlockSize: 1024, Compression: hfile.CompressionZSTD}, []string{"DATABLK*"}},
		{"zstd frame", hfile.WriterOptions{BlockSize: 1024, Compression: hfile.CompressionZSTD, ZstdFraming: hfile.ZstdPlainFrame}, []string{"DATABLK*"}},
		{"fast diff", hfile.WriterOptions{BlockSize: 1024, Encoding: hfile.EncodingFastDiff}, []string{"DATABLKE"}},
		{"crc32 off", hfile.WriterOptions{BlockSize: 1024, BytesPerChecksum: -1}, []string{"DATABLK*"}},
		{"multi-level", hfile.WriterOptions{BlockSize: 1024, IndexBlockSize: 512, IndexMinEntries: 2}, []string{"IDXLEAF2", "IDXINTE2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := writeFile(t, rows, tc.opts)
			r, err := hfile.Open(bytes.NewReader(b), int64(len(b)), tc.name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := indexSample(r, 1)
			if err != nil {
				t.Fatalf("indexSample: %v", err)
			}
			if len(got) != int(r.Trailer().DataIndexCount) {
				t.Fatalf("%d entries, trailer says %d", len(got), r.Trailer().DataIndexCount)
			}
			// A coarse root is read one level further down; a fine one is
			// enough as it is.
			if fine, err := indexSample(r, sampleWant); err != nil {
				t.Fatal(err)
			} else if len(got) < sampleWant && r.Trailer().NumDataIndexLevels > 1 && len(fine) <= len(got) {
				t.Fatalf("a root of %d entries was not refined: %d", len(got), len(fine))
			} else if len(got) >= sampleWant && len(fine) != len(got) {
				t.Fatalf("a root of %d entries became %d", len(got), len(fine))
			}
			if tc.name != "multi-level" {
				if len(got) != len(base) {
					t.Fatalf("%d entries, the uncompressed file has %d", len(got), len(base))
				}
				for i := range got {
					if !bytes.Equal(got[i].Row, base[i].Row) {
						t.Fatalf("entry %d: row %q, want %q", i, got[i].Row, base[i].Row)
					}
				}
			} else if r.Trailer().NumDataIndexLevels < 2 {
				t.Fatalf("%d index levels", r.Trailer().NumDataIndexLevels)
			}
			if string(got[0].Row) != "row00000" {
				t.Errorf("first row %q", got[0].Row)
			}
			for i, e := range got {
				m := string(b[e.Offset : e.Offset+8])
				if (i > 0 && e.Offset <= got[i-1].Offset) || (m != tc.magic[0] && (len(tc.magic) < 2 || m != tc.magic[1])) {
					t.Fatalf("entry %d at offset %d: block %q (previous at %d)", i, e.Offset, m, got[max(i-1, 0)].Offset)
				}
			}
		})
	}
}
