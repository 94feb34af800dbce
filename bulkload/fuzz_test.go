package bulkload

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"rangecopy/hfile"
)

// FuzzInspect feeds arbitrary bytes through what the Loader does with a file
// before loading or re-splitting it: open, derive writer options, verify the
// cells. None of it may panic, and a file that verifies must re-write into
// one that verifies too.
func FuzzInspect(f *testing.F) {
	for _, opts := range []hfile.WriterOptions{{}, {Encoding: hfile.EncodingFastDiff, IncludeTags: true, IncludeMVCC: true, BytesPerChecksum: -1}} {
		var buf bytes.Buffer
		w := hfile.NewWriter(&buf, opts)
		for i := 0; i < 20; i++ {
			w.Append(&hfile.Cell{Row: fmt.Appendf(nil, "r%02d", i), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 1, Type: hfile.TypePut, Value: []byte("v")})
		}
		if err := w.Close(); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte("hello"))
	f.Fuzz(inspectAndRewrite)
}

// inspectAndRewrite is the body of FuzzInspect.
func inspectAndRewrite(t *testing.T, data []byte) {
	{
		r, err := hfile.Open(bytes.NewReader(data), int64(len(data)), "fuzz")
		if err != nil {
			return
		}
		opts := WriterOptionsOf(r)
		if r.FirstKey() == nil || verifyCells(context.Background(), r, "f") != nil {
			return
		}
		var buf bytes.Buffer
		w := hfile.NewWriter(&buf, opts)
		sc := r.Scanner(hfile.ScanOptions{})
		for sc.Next() {
			if err := w.Append(sc.Cell()); err != nil {
				// The writer refuses some cells the reader decodes (a
				// negative sequence id in a damaged file): a re-split
				// then fails with an error naming the cell.
				return
			}
		}
		if err := w.Close(); err != nil {
			// The writer may refuse settings it cannot produce (a codec
			// it lacks); that is an error, not a panic.
			return
		}
		r2, err := hfile.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "rewritten")
		if err != nil {
			t.Fatalf("re-written file does not open: %v", err)
		}
		if err := verifyCells(context.Background(), r2, "f"); err != nil || r2.EntryCount() != r.EntryCount() {
			t.Fatalf("re-written file: %d cells (want %d), %v", r2.EntryCount(), r.EntryCount(), err)
		}
	}
}

// TestInspectMutations runs inspectAndRewrite over fixed pseudo-random
// mutations of an unchecksummed file, so that the decoders see damaged
// blocks (it found a file with cells but without a last key).
func TestInspectMutations(t *testing.T) {
	var buf bytes.Buffer
	w := hfile.NewWriter(&buf, hfile.WriterOptions{Encoding: hfile.EncodingFastDiff, IncludeTags: true, IncludeMVCC: true, BytesPerChecksum: -1})
	for i := 0; i < 20; i++ {
		w.Append(&hfile.Cell{Row: fmt.Appendf(nil, "r%02d", i), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 1, Type: hfile.TypePut, Value: []byte("v"), SeqID: uint64(i)})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	seed := buf.Bytes()
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 3000; n++ {
		data := bytes.Clone(seed)
		for k := 0; k < 1+rng.IntN(4); k++ {
			data[rng.IntN(len(data))] = byte(rng.IntN(256))
		}
		t.Run("", func(t *testing.T) { inspectAndRewrite(t, data) })
	}
}

func TestDefaultRootAndNames(t *testing.T) {
	if got := DefaultRoot("alice"); got != "/user/alice/.rangecopy" {
		t.Errorf("DefaultRoot = %q", got)
	}
	for _, bad := range []string{"", ".", "..", "a/b", "a\x00"} {
		if checkName("task id", bad) == nil {
			t.Errorf("checkName(%q) accepted", bad)
		}
	}
	if err := checkName("task id", "t-0001"); err != nil {
		t.Error(err)
	}
	n, err := NewFileName()
	m, _ := NewFileName()
	if err != nil || len(n) != 32 || n == m {
		t.Errorf("NewFileName = %q, %v", n, err)
	}
	if got := TempName("/w/t/f/" + n); got != "/w/t/f/_"+n+".tmp" {
		t.Errorf("TempName = %q", got)
	}
}
