package fsys

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// countingReaderAt records the reads that reach the file.
type countingReaderAt struct {
	mu    sync.Mutex
	b     []byte
	reads []int
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.mu.Lock()
	c.reads = append(c.reads, len(p))
	c.mu.Unlock()
	return bytes.NewReader(c.b).ReadAt(p, off)
}

// checkReadAhead reads data through a read-ahead of the given chunk at the
// given (offset, length) pairs and compares with the data.
func checkReadAhead(t *testing.T, data []byte, chunk int, reads [][2]int) {
	src := &countingReaderAt{b: data}
	var ctr atomic.Int64
	ra := NewReadAhead(context.Background(), src, int64(len(data)), ReadAheadOptions{Chunk: chunk, Counter: &ctr, Name: "f"})
	defer ra.Stop()
	for _, r := range reads {
		off, n := r[0], r[1]
		p := make([]byte, n)
		got, err := ra.ReadAt(p, int64(off))
		want := 0
		if off < len(data) {
			want = min(n, len(data)-off)
		}
		if got != want || !bytes.Equal(p[:got], data[min(off, len(data)):min(off, len(data))+want]) {
			t.Fatalf("ReadAt(%d, %d) = %d bytes, %v; want %d", off, n, got, err, want)
		}
		if (want < n) != (err == io.EOF) || (want == n && err != nil) {
			t.Fatalf("ReadAt(%d, %d) error %v", off, n, err)
		}
	}
}

func TestReadAhead(t *testing.T) {
	data := make([]byte, 10000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	// Sequential small reads reach the file in chunks.
	src := &countingReaderAt{b: data}
	var ctr atomic.Int64
	ra := NewReadAhead(context.Background(), src, int64(len(data)), ReadAheadOptions{Chunk: 1000, Counter: &ctr, Name: "f"})
	p := make([]byte, 100)
	for off := 0; off < len(data); off += 100 {
		if _, err := ra.ReadAt(p, int64(off)); err != nil || !bytes.Equal(p, data[off:off+100]) {
			t.Fatalf("read at %d: %v", off, err)
		}
	}
	ra.Stop()
	if len(src.reads) != 10 || ctr.Load() != int64(len(data)) {
		t.Fatalf("file reads %v, bytes counted %d", src.reads, ctr.Load())
	}
	checkReadAhead(t, data, 1000, [][2]int{{0, 10}, {995, 10}, {5000, 3000}, {9990, 20}, {10000, 1}, {20000, 5}, {3, 999}, {0, 10000}, {1, 10000}})
	rng := rand.New(rand.NewPCG(1, 2))
	var reads [][2]int
	for range 2000 {
		reads = append(reads, [2]int{rng.IntN(11000), rng.IntN(1500)})
	}
	checkReadAhead(t, data, 1000, reads)
}

func FuzzReadAhead(f *testing.F) {
	f.Add(uint16(100), uint16(10), uint16(5), []byte{1, 2, 3, 4})
	f.Add(uint16(7), uint16(3), uint16(2), []byte{0, 200, 9, 255, 17})
	f.Fuzz(func(t *testing.T, size, chunk, n uint16, ops []byte) {
		data := make([]byte, int(size)%5000)
		for i := range data {
			data[i] = byte(i)
		}
		var reads [][2]int
		for i := 0; i+1 < len(ops); i += 2 {
			reads = append(reads, [2]int{int(ops[i]) * 23 % (len(data) + 10), int(ops[i+1])%(int(n)+1) + 1})
		}
		checkReadAhead(t, data, int(chunk)%3000+1, reads)
	})
}

// failingReaderAt fails every read.
type failingReaderAt struct{}

func (failingReaderAt) ReadAt([]byte, int64) (int, error) { return 0, errors.New("disk on fire") }

func TestReadAheadError(t *testing.T) {
	var ctr atomic.Int64
	ra := NewReadAhead(context.Background(), failingReaderAt{}, 100, ReadAheadOptions{Chunk: 10, Counter: &ctr, Name: "the-file"})
	_, err := ra.ReadAt(make([]byte, 5), 42)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("the-file at offset 42")) {
		t.Fatalf("error %v does not name file and offset", err)
	}
	if _, err := ra.ReadAt(make([]byte, 1), -1); err == nil {
		t.Error("negative offset accepted")
	}
}

// TestReadAheadWindow checks that a window confines read-ahead: reads in it
// are served from chunks that end at the window's end, reads outside it read
// exactly what they ask, and the bytes read are the window plus those reads.
func TestReadAheadWindow(t *testing.T) {
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	tests := []struct {
		name     string
		from, to int64
		reads    [][2]int
		want     int64 // bytes that reach the file
	}{
		{"whole file by default: a chunk and the next", 0, 1000, [][2]int{{0, 10}}, 600},
		{"window stops the prefetch", 100, 400, [][2]int{{100, 50}, {150, 200}, {350, 50}}, 300},
		{"a read outside is exact", 100, 400, [][2]int{{900, 40}, {10, 5}}, 45},
		{"a read across the end is exact", 100, 400, [][2]int{{380, 40}}, 40},
		{"empty window: no read-ahead", 0, 0, [][2]int{{0, 10}, {10, 10}, {500, 33}}, 53},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := &countingReaderAt{b: data}
			var ctr atomic.Int64
			ra := NewReadAhead(context.Background(), src, int64(len(data)), ReadAheadOptions{Chunk: 300, Counter: &ctr, Name: "f"})
			if tc.from != 0 || tc.to != 1000 {
				ra.SetWindow(tc.from, tc.to)
			}
			for _, r := range tc.reads {
				p := make([]byte, r[1])
				if _, err := ra.ReadAt(p, int64(r[0])); err != nil {
					t.Fatalf("ReadAt(%d, %d): %v", r[0], r[1], err)
				}
				if !bytes.Equal(p, data[r[0]:r[0]+r[1]]) {
					t.Fatalf("ReadAt(%d, %d): wrong bytes", r[0], r[1])
				}
			}
			ra.Stop() // waits for a fetch in flight
			if got := ctr.Load(); got != tc.want {
				t.Errorf("bytes read %d, want %d (reads %v)", got, tc.want, src.reads)
			}
		})
	}
}
