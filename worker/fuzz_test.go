package worker

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"rangecopy/fsys"
	"rangecopy/hfile"
)

// FuzzRunInput runs the pipeline over an input file of arbitrary bytes (seeded
// with valid files): it must fail with an error or copy the file's cells, never
// panic or hang. A run costs milliseconds (it allocates the pipeline's
// buffers), so pass -fuzzminimizetime=20x: minimizing for the default 60 s
// would fill a short fuzzing run.
func FuzzRunInput(f *testing.F) {
	for _, opts := range []hfile.WriterOptions{
		{BlockSize: 256},
		{BlockSize: 256, Encoding: hfile.EncodingFastDiff, Compression: hfile.CompressionSnappy, IncludeTags: true},
	} {
		var buf bytes.Buffer
		w := hfile.NewWriter(&buf, opts)
		for _, c := range manyRows(4) {
			if err := w.Append(c); err != nil {
				f.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes(), false)
		f.Add(buf.Bytes(), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, fast bool) {
		dir := t.TempDir()
		p := filepath.Join(dir, "in")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		task := baseTask(t, input(p))
		c := &collector{}
		err := Run(t.Context(), task, Options{Source: fsys.Local{}, Target: fsys.Local{}, NoFastPath: !fast, ReadAhead: 1024}, c.emit)
		if err != nil {
			return
		}
		// A run that succeeds emitted whole HFiles.
		for _, f := range c.dataFiles() {
			b, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := hfile.Open(bytes.NewReader(b), int64(len(b)), f.Path); err != nil {
				t.Fatalf("emitted file does not open: %v", err)
			}
		}
	})
}
