package hfile

import (
	"bytes"
	"testing"
)

// TestScannerAllocs checks the scanner does not allocate per cell, including
// across block boundaries once its buffers have grown.
func TestScannerAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	cells := genCells(20000, 12, false, true)
	for _, enc := range []Encoding{EncodingNone, EncodingFastDiff, EncodingRowIndexV1} {
		for _, comp := range []Compression{CompressionNone, CompressionSnappy, CompressionLZ4} {
			b := writeFile(t, WriterOptions{BlockSize: 4096, Encoding: enc, Compression: comp, IncludeMVCC: true}, cells)
			r := openBytes(t, b)
			s := r.Scanner(ScanOptions{})
			// Warm up: grow buffers on the largest blocks.
			n := 0
			for s.Next() {
				n++
			}
			if s.Err() != nil || n != len(cells) {
				t.Fatalf("%s/%s: %d cells, %v", enc, comp, n, s.Err())
			}
			s.Seek(FirstOnRow(nil))
			allocs := testing.AllocsPerRun(5000, func() {
				if !s.Next() {
					s.Seek(FirstOnRow(nil))
				}
			})
			if allocs != 0 {
				t.Errorf("%s/%s: %.3f allocations per cell", enc, comp, allocs)
			}
		}
	}
}

func TestWriterAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{BlockSize: 1 << 20, Encoding: EncodingFastDiff})
	c := &Cell{Row: []byte("row-0000000"), Family: []byte("f"), Qualifier: []byte("q"), Type: TypePut, Value: []byte("value")}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		i++
		c.Row[len(c.Row)-1] = byte('0' + i%10)
		c.Row[len(c.Row)-2] = byte('0' + i/10%10)
		c.Row[len(c.Row)-3] = byte('0' + i/100%10)
		c.Row[len(c.Row)-4] = byte('0' + i/1000%10)
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0.01 {
		t.Errorf("%.3f allocations per appended cell within a block", allocs)
	}
}
