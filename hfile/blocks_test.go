package hfile

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

func manyCells(n int) []*Cell {
	cells := make([]*Cell, n)
	for i := range cells {
		cells[i] = &Cell{Row: []byte(fmt.Sprintf("row-%06d", i)), Family: []byte("f"), Qualifier: []byte("q"),
			Timestamp: 1000, Type: TypePut, Value: bytes.Repeat([]byte{byte(i)}, 50)}
	}
	return cells
}

func TestBlocksAndDataIndex(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   WriterOptions
		levels uint32
	}{
		{"single level", WriterOptions{BlockSize: 1024}, 1},
		{"three levels", WriterOptions{BlockSize: 256, IndexBlockSize: 128, Compression: CompressionGZ, Encoding: EncodingFastDiff}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cells := manyCells(3000)
			r := openBytes(t, writeFile(t, tc.opts, cells))
			if got := r.Trailer().NumDataIndexLevels; got != tc.levels {
				t.Fatalf("index levels %d, want %d", got, tc.levels)
			}
			var data []BlockInfo
			counts := map[BlockType]int{}
			prev := int64(-1)
			err := r.Blocks(func(b BlockInfo) error {
				counts[b.Type]++
				if b.Offset <= prev || b.OnDiskSize < 33 || b.UncompressedSize <= 0 {
					return fmt.Errorf("block %+v after offset %d", b, prev)
				}
				prev = b.Offset
				if b.Type == BlockData || b.Type == BlockEncodedData {
					data = append(data, b)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.levels == 3 && counts[BlockLeafIndex] == 0 {
				t.Errorf("a 3-level index walk met no leaf index blocks: %v", counts)
			}
			idx, err := r.DataIndex()
			if err != nil {
				t.Fatal(err)
			}
			if len(idx) != len(data) || len(idx) < 10 {
				t.Fatalf("data index lists %d blocks, the walk met %d", len(idx), len(data))
			}
			for i, e := range idx {
				if e.Offset != data[i].Offset || e.Size != data[i].OnDiskSize {
					t.Fatalf("index entry %d at %d size %d, block walk says %d size %d", i, e.Offset, e.Size, data[i].Offset, data[i].OnDiskSize)
				}
				if i > 0 && CompareKeys(idx[i-1].Key, e.Key) >= 0 {
					t.Fatalf("index keys out of order at %d: %s then %s", i, idx[i-1].Key, e.Key)
				}
			}
			root, err := r.RootIndex()
			if err != nil {
				t.Fatal(err)
			}
			if len(root) != int(r.Trailer().DataIndexCount) {
				t.Fatalf("root index has %d entries, the trailer says %d", len(root), r.Trailer().DataIndexCount)
			}
			if tc.levels == 1 && (len(root) != len(idx) || root[3].Offset != idx[3].Offset) {
				t.Fatalf("single-level root index differs from the data index")
			}
			for i := 1; i < len(root); i++ {
				if root[i].Offset <= root[i-1].Offset || CompareKeys(root[i-1].Key, root[i].Key) >= 0 {
					t.Fatalf("root entries %d and %d out of order", i-1, i)
				}
			}
			// A sample asks for levels down until it has enough entries:
			// the data level at most, in key and offset order.
			for _, want := range []int{1, len(root) + 1, len(idx) + 1} {
				sample, err := r.IndexSample(want)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case want == 1 && len(sample) != len(root):
					t.Fatalf("IndexSample(1): %d entries, want the root's %d", len(sample), len(root))
				case want > len(idx) && len(sample) != len(idx):
					t.Fatalf("IndexSample(%d): %d entries, want the data index's %d", want, len(sample), len(idx))
				case len(sample) < min(want, len(idx)):
					t.Fatalf("IndexSample(%d): %d entries of %d", want, len(sample), len(idx))
				}
				for i := 1; i < len(sample); i++ {
					if sample[i].Offset <= sample[i-1].Offset || CompareKeys(sample[i-1].Key, sample[i].Key) >= 0 {
						t.Fatalf("IndexSample(%d): entries %d and %d out of order", want, i-1, i)
					}
				}
			}
			// Every index key leads a scanner to a cell at or after it.
			s := r.Scanner(ScanOptions{})
			for _, e := range idx {
				s.Seek(e.Key)
				if !s.Next() || CompareKeys(s.Cell(), e.Key) < 0 {
					t.Fatalf("seek to index key %s: %v", e.Key, s.Err())
				}
			}
		})
	}
}

func TestBlocksReportsCorruption(t *testing.T) {
	b := writeFile(t, WriterOptions{BlockSize: 512}, manyCells(500))
	b[1000] ^= 0x40
	r := openBytes(t, b)
	n := 0
	err := r.Blocks(func(BlockInfo) error { n++; return nil })
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("walk over a flipped byte: %v after %d blocks, want ErrChecksum", err, n)
	}
	stop := errors.New("stop")
	if err := openBytes(t, writeFile(t, WriterOptions{}, manyCells(10))).Blocks(func(BlockInfo) error { return stop }); err != stop {
		t.Fatalf("an error from fn: %v, want it returned as is", err)
	}
}
