package hfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
)

var (
	allEncodings    = []Encoding{EncodingNone, EncodingPrefix, EncodingDiff, EncodingFastDiff, EncodingRowIndexV1}
	allCompressions = []Compression{CompressionNone, CompressionGZ, CompressionSnappy, CompressionLZ4, CompressionZSTD}
)

func TestRoundTripMatrix(t *testing.T) {
	for _, enc := range allEncodings {
		for _, comp := range allCompressions {
			for _, tagMode := range []int{0, 1, 2} {
				tags, compressTags := tagMode > 0, tagMode == 2
				for _, mvcc := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/tags=%v/compresstags=%v/mvcc=%v", enc, comp, tags, compressTags, mvcc)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						cells := genCells(1500, uint64(enc)*100+uint64(comp), tags, mvcc)
						opts := WriterOptions{
							BlockSize: 512, Encoding: enc, Compression: comp,
							IncludeTags: tags, IncludeMVCC: mvcc, CompressTags: compressTags,
							IndexBlockSize: 128, IndexMinEntries: 2,
						}
						b := writeFile(t, opts, cells)
						r := openBytes(t, b)
						tr := r.Trailer()
						if tr.NumDataIndexLevels < 3 {
							t.Errorf("index levels = %d, want >= 3", tr.NumDataIndexLevels)
						}
						if tr.EntryCount != uint64(len(cells)) {
							t.Errorf("entry count = %d, want %d", tr.EntryCount, len(cells))
						}
						if tr.Compression != comp {
							t.Errorf("compression = %s, want %s", tr.Compression, comp)
						}
						info := r.Info()
						if info.TagsCompressed != (compressTags && enc != EncodingNone) {
							t.Errorf("TAGS_COMPRESSED = %v", info.TagsCompressed)
						}
						if info.Encoding != enc || info.IncludesTags != tags || info.IncludesMVCC != mvcc {
							t.Errorf("info encoding %s tags %v mvcc %v", info.Encoding, info.IncludesTags, info.IncludesMVCC)
						}
						if !bytes.Equal(info.LastKey, KeyBytes(cells[len(cells)-1])) {
							t.Errorf("last key mismatch")
						}
						if !bytes.Equal(info.FirstKey, KeyBytes(cells[0])) {
							t.Errorf("first key mismatch")
						}
						assertCells(t, readAll(t, r, ScanOptions{}), cells)
						checkSeeks(t, r, cells)
					})
				}
			}
		}
	}
}

// checkSeeks seeks to every 37th cell's key and to keys between cells and
// checks the scanner lands on the right cell.
func checkSeeks(t *testing.T, r *Reader, cells []*Cell) {
	t.Helper()
	s := r.Scanner(ScanOptions{})
	for i := 0; i < len(cells); i += 37 {
		s.Seek(cells[i])
		if !s.Next() {
			t.Fatalf("seek to cell %d %s: no cell (err %v)", i, cells[i], s.Err())
		}
		// Equal keys may repeat; the scanner lands on the first equal one.
		j := i
		for j > 0 && CompareKeys(cells[j-1], cells[i]) == 0 {
			j--
		}
		if !cellsEqual(s.Cell(), cells[j]) {
			t.Fatalf("seek to cell %d: got %s, want %s", i, s.Cell(), cells[j])
		}
		// The next row start.
		s.SeekRow(cells[i].Row)
		if !s.Next() || !bytes.Equal(s.Cell().Row, cells[i].Row) {
			t.Fatalf("seek row %q: got %v", cells[i].Row, s.Cell())
		}
	}
	// Before the first key and after the last.
	s.Seek(FirstOnRow(nil))
	if !s.Next() || !cellsEqual(s.Cell(), cells[0]) {
		t.Fatalf("seek to start: got %s", s.Cell())
	}
	s.SeekRow(append(append([]byte{}, cells[len(cells)-1].Row...), 0))
	if s.Next() {
		t.Fatalf("seek past end: got %s", s.Cell())
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
}

func TestRangeScan(t *testing.T) {
	cells := genCells(3000, 3, false, false)
	b := writeFile(t, WriterOptions{BlockSize: 1024, Encoding: EncodingFastDiff, IndexBlockSize: 200, IndexMinEntries: 2}, cells)
	r := openBytes(t, b)
	// An empty stop row that is not nil (a region's or a task's end, as
	// decoded) is unbounded too.
	rows := [][]byte{nil, {}, cells[0].Row, cells[100].Row, cells[1234].Row, cells[2999].Row, []byte("zzz"), []byte{0xff, 0xff}}
	for _, start := range rows {
		for _, stop := range rows {
			var want []*Cell
			for _, c := range cells {
				if (start == nil || bytes.Compare(c.Row, start) >= 0) && (len(stop) == 0 || bytes.Compare(c.Row, stop) < 0) {
					want = append(want, c)
				}
			}
			got := readAll(t, r, ScanOptions{StartRow: start, StopRow: stop})
			assertCells(t, got, want)
		}
	}
}

func TestEmptyFile(t *testing.T) {
	for _, comp := range allCompressions {
		b := writeFile(t, WriterOptions{Compression: comp, Encoding: EncodingFastDiff}, nil)
		r := openBytes(t, b)
		if got := readAll(t, r, ScanOptions{}); len(got) != 0 {
			t.Fatalf("%s: got %d cells", comp, len(got))
		}
		s := r.Scanner(ScanOptions{})
		s.SeekRow([]byte("a"))
		if s.Next() {
			t.Fatal("cell in empty file")
		}
		if r.FirstKey() != nil || r.LastKey() != nil {
			t.Fatal("keys in empty file")
		}
		if r.Trailer().FirstDataBlockOffset != -1 {
			t.Fatalf("first data block offset %d", r.Trailer().FirstDataBlockOffset)
		}
	}
}

func TestSingleCellAndHugeCells(t *testing.T) {
	huge := bytes.Repeat([]byte("0123456789abcdef"), 20000) // 320 KB, past the Hadoop chunk size
	cells := []*Cell{
		{Row: []byte("a"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 5, Type: TypePut, Value: huge},
		{Row: []byte("b"), Family: []byte("f"), Qualifier: huge[:30000], Timestamp: 5, Type: TypePut, Value: []byte("x")},
		{Row: bytes.Repeat([]byte{0xff}, 32767), Family: []byte("f"), Timestamp: -1, Type: TypeDeleteFamily},
	}
	for _, enc := range allEncodings {
		for _, comp := range allCompressions {
			b := writeFile(t, WriterOptions{BlockSize: 4096, Encoding: enc, Compression: comp}, cells[:1])
			assertCells(t, readAll(t, openBytes(t, b), ScanOptions{}), cells[:1])
			b = writeFile(t, WriterOptions{BlockSize: 4096, Encoding: enc, Compression: comp}, cells)
			assertCells(t, readAll(t, openBytes(t, b), ScanOptions{}), cells)
		}
	}
}

func TestWriterRefusesOutOfOrder(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	a := &Cell{Row: []byte("b"), Family: []byte("f"), Type: TypePut, Timestamp: 1}
	b := &Cell{Row: []byte("a"), Family: []byte("f"), Type: TypePut, Timestamp: 1}
	if err := w.Append(a); err != nil {
		t.Fatal(err)
	}
	err := w.Append(b)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(`"a"`)) || !bytes.Contains([]byte(err.Error()), []byte(`"b"`)) {
		t.Fatalf("out of order append: %v", err)
	}
	// Equal keys are allowed.
	if err := w.Append(a); err != nil {
		t.Fatalf("equal key: %v", err)
	}
	other := &Cell{Row: []byte("c"), Family: []byte("g"), Type: TypePut, Timestamp: 1}
	if err := w.Append(other); err == nil {
		t.Fatal("second family accepted")
	}
	if err := w.Append(&Cell{Row: []byte("c"), Family: []byte("f"), Type: TypeMaximum}); err == nil {
		t.Fatal("Maximum type accepted")
	}
	if err := w.Append(&Cell{Row: []byte("c"), Family: []byte("f"), Type: TypePut, Tags: []byte{0, 1, 1}}); err == nil {
		t.Fatal("tags accepted without IncludeTags")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(a); err == nil {
		t.Fatal("append after close accepted")
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, fmt.Errorf("disk full")
	}
	f.n--
	return len(p), nil
}

func TestWriterStickyError(t *testing.T) {
	w := NewWriter(&failWriter{n: 1}, WriterOptions{BlockSize: 64})
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		err = w.Append(&Cell{Row: []byte(fmt.Sprintf("r%03d", i)), Family: []byte("f"), Type: TypePut, Value: make([]byte, 100)})
	}
	if err == nil {
		t.Fatal("no error from a failing writer")
	}
	if err2 := w.Append(&Cell{Row: []byte("zzz"), Family: []byte("f"), Type: TypePut}); err2 != err {
		t.Fatalf("error not sticky: %v then %v", err, err2)
	}
	if err3 := w.Close(); err3 != err {
		t.Fatalf("close: %v, want %v", err3, err)
	}
}

func TestWriterOptionErrors(t *testing.T) {
	for _, o := range []WriterOptions{
		{Compression: CompressionLZO},
		{Encoding: EncodingPrefixTree},
		{BytesPerChecksum: 10},
		{FileInfo: map[string][]byte{"hfile.X": nil}},
	} {
		w := NewWriter(&bytes.Buffer{}, o)
		if err := w.Close(); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

func TestNoChecksums(t *testing.T) {
	cells := genCells(500, 13, false, false)
	b := writeFile(t, WriterOptions{BlockSize: 1024, BytesPerChecksum: -1, Compression: CompressionGZ}, cells)
	r := openBytes(t, b)
	assertCells(t, readAll(t, r, ScanOptions{}), cells)
	var br blockReader
	h, _, err := r.readBlock(&br, r.Trailer().FirstDataBlockOffset, 0)
	if err != nil || h.checksumType != checksumNull || h.bytesPerChecksum != 0 {
		t.Fatalf("header %+v, %v", h, err)
	}
}

// TestTrailerV2 reads a file whose trailer is the 212-byte version 2.3 form
// (HFile v2 as HBase 1.x wrote it, still readable by HBase 2).
func TestTrailerV2(t *testing.T) {
	cells := genCells(300, 14, false, true)
	b := writeFile(t, WriterOptions{BlockSize: 512, IncludeMVCC: true, Compression: CompressionGZ}, cells)
	v3 := b[len(b)-trailerSizeV3:]
	l, n := binary.Uvarint(v3[8:])
	pbEnd := 8 + n + int(l)
	if pbEnd > trailerSizeV2-4 {
		t.Fatalf("trailer protobuf of %d bytes does not fit a v2 trailer", pbEnd)
	}
	v2 := make([]byte, trailerSizeV2)
	copy(v2, v3[:pbEnd])
	binary.BigEndian.PutUint32(v2[trailerSizeV2-4:], 3<<24|2)
	file := append(append([]byte(nil), b[:len(b)-trailerSizeV3]...), v2...)
	r := openBytes(t, file)
	if tr := r.Trailer(); tr.MajorVersion != 2 || tr.MinorVersion != 3 {
		t.Fatalf("version %d.%d", tr.MajorVersion, tr.MinorVersion)
	}
	assertCells(t, readAll(t, r, ScanOptions{}), cells)
	// Version 2.2 and older use a Writable trailer: refused as unsupported.
	binary.BigEndian.PutUint32(file[len(file)-4:], 2<<24|2)
	if _, err := Open(bytes.NewReader(file), int64(len(file)), "old.hfile"); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("v2.2: %v", err)
	}
}

func TestZstdPlainFrames(t *testing.T) {
	cells := genCells(2000, 15, true, true)
	for _, zf := range []ZstdFraming{ZstdHadoopBlock, ZstdPlainFrame} {
		b := writeFile(t, WriterOptions{BlockSize: 2048, Compression: CompressionZSTD, ZstdFraming: zf,
			Encoding: EncodingFastDiff, IncludeTags: true, IncludeMVCC: true}, cells)
		r := openBytes(t, b)
		assertCells(t, readAll(t, r, ScanOptions{}), cells)
		// The first data block's payload starts with the zstd magic only
		// for plain frames.
		var br blockReader
		h, _, err := r.readBlock(&br, r.Trailer().FirstDataBlockOffset, 0)
		if err != nil {
			t.Fatal(err)
		}
		raw := br.raw[headerSize:h.onDiskDataWithHdr]
		if got := bytes.Equal(raw[:4], zstdMagic); got != (zf == ZstdPlainFrame) {
			t.Fatalf("framing %d: payload starts with %x", zf, raw[:4])
		}
	}
}

func TestDataIndex(t *testing.T) {
	cells := genCells(3000, 16, false, false)
	for _, opts := range []WriterOptions{
		{BlockSize: 1024},
		{BlockSize: 512, IndexBlockSize: 128, IndexMinEntries: 2, Encoding: EncodingPrefix},
	} {
		b := writeFile(t, opts, cells)
		r := openBytes(t, b)
		idx, err := r.DataIndex()
		if err != nil {
			t.Fatal(err)
		}
		if len(idx) < 10 {
			t.Fatalf("%d data blocks", len(idx))
		}
		if CompareKeys(idx[0].Key, cells[0]) != 0 || idx[0].Offset != r.Trailer().FirstDataBlockOffset ||
			idx[len(idx)-1].Offset != r.Trailer().LastDataBlockOffset {
			t.Fatalf("index ends: %+v ... %+v", idx[0], idx[len(idx)-1])
		}
		// Every entry's key is the first cell of its block: scanning from
		// it starts at that block's first cell, and the keys ascend.
		s := r.Scanner(ScanOptions{})
		for i, e := range idx {
			if i > 0 && CompareKeys(idx[i-1].Key, e.Key) > 0 {
				t.Fatalf("index keys out of order at %d", i)
			}
			s.Seek(e.Key)
			if !s.Next() || CompareKeys(s.Cell(), e.Key) != 0 {
				t.Fatalf("entry %d key %s: scan found %v", i, e.Key, s.Cell())
			}
		}
	}
}

type countingReaderAt struct {
	r     *bytes.Reader
	reads int
	fail  int64 // reads at or after this offset fail, if > 0
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	if c.fail > 0 && off+int64(len(p)) > c.fail {
		return 0, errors.New("injected I/O error")
	}
	return c.r.ReadAt(p, off)
}

func TestReadAtCallsAndErrors(t *testing.T) {
	cells := genCells(5000, 17, false, false)
	b := writeFile(t, WriterOptions{BlockSize: 4096}, cells)
	cr := &countingReaderAt{r: bytes.NewReader(b)}
	r, err := Open(cr, int64(len(b)), "count.hfile")
	if err != nil {
		t.Fatal(err)
	}
	blocks := len(r.root)
	cr.reads = 0
	if got := readAll(t, r, ScanOptions{}); len(got) != len(cells) {
		t.Fatalf("%d cells", len(got))
	}
	t.Logf("%d reads for %d blocks", cr.reads, blocks)
	// One read per block, plus a second one whenever a block is larger
	// than the one before it.
	if cr.reads > blocks+blocks/2+2 {
		t.Errorf("%d reads for %d blocks", cr.reads, blocks)
	}
	// I/O errors surface with the file name.
	cr.fail = r.root[blocks/2].offset + 10
	s := r.Scanner(ScanOptions{})
	for s.Next() {
	}
	if s.Err() == nil || !strings.Contains(s.Err().Error(), "count.hfile") || !strings.Contains(s.Err().Error(), "injected I/O error") {
		t.Fatalf("scan over failing reads: %v", s.Err())
	}
	if _, err := Open(cr, int64(len(b)), "count.hfile"); err == nil {
		t.Fatal("open over failing reads succeeded")
	}
}
