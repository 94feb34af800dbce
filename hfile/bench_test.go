package hfile

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

type benchCase struct {
	name string
	opts WriterOptions
}

var benchCases = []benchCase{
	{"NONE", WriterOptions{}},
	{"FAST_DIFF", WriterOptions{Encoding: EncodingFastDiff}},
	{"SNAPPY", WriterOptions{Compression: CompressionSnappy}},
	{"FAST_DIFF+SNAPPY", WriterOptions{Encoding: EncodingFastDiff, Compression: CompressionSnappy}},
}

// benchCells are realistic cells: 20-byte rows, 5 columns, 100-byte values.
func benchCells() ([]*Cell, int64) {
	var cells []*Cell
	var n int64
	for r := 0; r < 20000; r++ {
		row := []byte(fmt.Sprintf("user%016d", r*7919))
		for q := 0; q < 5; q++ {
			v := bytes.Repeat([]byte(fmt.Sprintf("%04d-", r+q)), 20)
			c := &Cell{Row: row, Family: []byte("cf"), Qualifier: []byte(fmt.Sprintf("col%d", q)), Timestamp: 1700000000000 + int64(r), Type: TypePut, Value: v}
			cells = append(cells, c)
			n += int64(8 + c.keyLen() + len(v))
		}
	}
	return sortCells(cells), n
}

func BenchmarkRead(b *testing.B) {
	cells, n := benchCells()
	for _, bc := range benchCases {
		file := writeFile(b, bc.opts, cells)
		r := openBytes(b, file)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(n)
			b.ReportAllocs()
			for b.Loop() {
				s := r.Scanner(ScanOptions{})
				count := 0
				for s.Next() {
					count++
				}
				if s.Err() != nil || count != len(cells) {
					b.Fatalf("%d cells, %v", count, s.Err())
				}
			}
		})
	}
}

func BenchmarkWrite(b *testing.B) {
	cells, n := benchCells()
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(n)
			b.ReportAllocs()
			for b.Loop() {
				w := NewWriter(io.Discard, bc.opts)
				for _, c := range cells {
					if err := w.Append(c); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
