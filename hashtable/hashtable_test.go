package hashtable

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"
	"time"

	"rangecopy/fsys"
	"rangecopy/hfile"
)

func TestVLong(t *testing.T) {
	for _, c := range []struct {
		v    int64
		want string
	}{
		{0, "00"}, {127, "7f"}, {-112, "90"}, {-1, "ff"}, {128, "8f80"}, {255, "8fff"}, {256, "8e0100"},
		{-113, "8770"}, {-257, "860100"}, {1 << 40, "8a010000000000"},
	} {
		got := appendVLong(nil, c.v)
		if hex.EncodeToString(got) != c.want {
			t.Errorf("appendVLong(%d) = %x, want %s", c.v, got, c.want)
		}
		v, n, err := readVLong(got)
		if err != nil || v != c.v || n != len(got) {
			t.Errorf("readVLong(%x) = %d, %d, %v; want %d", got, v, n, err, c.v)
		}
	}
	for _, v := range []int64{-1 << 63, 1<<63 - 1, -120, -121, 1 << 31} {
		if got, _, err := readVLong(appendVLong(nil, v)); err != nil || got != v {
			t.Errorf("round trip of %d: %d, %v", v, got, err)
		}
	}
}

func TestPropertiesRoundTrip(t *testing.T) {
	props := []Property{{"table", "ns:t"}, {"a key=with:specials#!", " lead\tand\nnewline\\ \x01 é 😀"}, {"empty", ""}}
	var b bytes.Buffer
	if err := WriteProperties(&b, props, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	got, err := ReadProperties(b.Bytes(), "p")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, p := range props {
		want[p.Key] = p.Value
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %q from\n%s\nwant %q", got, b.String(), want)
	}
}

func TestReadPropertiesJavaForms(t *testing.T) {
	in := "#Tue Dec 01 12:46:27 UTC 2026\r\n" +
		"  ! a comment\n" +
		"table=t1\n" +
		"spaced key\\ x   :   v1\n" +
		"cont = a\\\n     b\\\\\n" +
		"colon:c\n" +
		"blank\n" +
		"uni=\\u0041\\u00e9\\uD83D\\uDE00\n" +
		"esc=\\t\\z\n"
	got, err := ReadProperties([]byte(in), "p")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"table": "t1", "spaced": "key x   :   v1", "cont": "ab\\", "colon": "c", "blank": "", "uni": "Aé😀", "esc": "\tz"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, err := ReadProperties([]byte("k=\\u12"), "p"); !errors.Is(err, ErrFormat) {
		t.Fatalf("short \\u escape: %v", err)
	}
}

func TestManifestRoundTrip(t *testing.T) {
	for _, m := range []Manifest{
		{Table: "t", TargetBatchSize: 8000, NumHashFiles: 1, Versions: -1},
		{Table: "ns:t", Families: "a,b", TargetBatchSize: 100, NumHashFiles: 3, StartRow: []byte{0, 1}, StopRow: []byte{0xff},
			ScanBatch: 10, Versions: 3, StartTime: 5, EndTime: 9, RawScan: true},
	} {
		var b bytes.Buffer
		if err := WriteProperties(&b, m.Properties(), time.Now()); err != nil {
			t.Fatal(err)
		}
		p, err := ReadProperties(b.Bytes(), "manifest")
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseManifest(p)
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Fatalf("manifest %+v read back as %+v, %v", m, got, err)
		}
	}
	if _, err := ParseManifest(map[string]string{"table": "t", "targetBatchSize": "x", "numHashFiles": "1"}); !errors.Is(err, ErrFormat) {
		t.Fatalf("bad number: %v", err)
	}
	if _, err := ParseManifest(map[string]string{"table": "t", "targetBatchSize": "1"}); !errors.Is(err, ErrFormat) {
		t.Fatalf("no numHashFiles: %v", err)
	}
}

var testSync = [SyncSize]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}

func seqFile(t testing.TB, n int) []byte {
	var b bytes.Buffer
	w, err := NewSeqWriter(&b, ClassImmutableBytes, ClassNull, testSync)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := w.Append(AppendBytesWritable(nil, fmt.Appendf(nil, "key-%05d", i)), nil); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func TestSeqFileHeaderBytes(t *testing.T) {
	got := seqFile(t, 1)
	want := []byte("SEQ\x06")
	want = append(want, byte(len(ClassImmutableBytes)))
	want = append(want, ClassImmutableBytes...)
	want = append(want, byte(len(ClassNull)))
	want = append(want, ClassNull...)
	want = append(want, 0, 0, 0, 0, 0, 0)
	want = append(want, testSync[:]...)
	want = append(want, 0, 0, 0, 13, 0, 0, 0, 13, 0, 0, 0, 9)
	want = append(want, "key-00000"...)
	if !bytes.Equal(got, want) {
		t.Fatalf("file\n%x\nwant\n%x", got, want)
	}
}

func TestSeqFileRoundTripWithSyncs(t *testing.T) {
	const n = 1000
	b := seqFile(t, n)
	if c := bytes.Count(b, append([]byte{0xff, 0xff, 0xff, 0xff}, testSync[:]...)); c < n*21/SyncInterval-1 {
		t.Fatalf("%d sync markers in %d bytes", c, len(b))
	}
	r, err := NewSeqReader(bytes.NewReader(b), int64(len(b)), "f")
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.KeyClass != ClassImmutableBytes || r.Header.ValueClass != ClassNull || r.Header.Sync != testSync {
		t.Fatalf("header %+v", r.Header)
	}
	for i := range n {
		if err := r.Next(); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		k, err := ParseBytesWritable(r.Key())
		if err != nil || string(k) != fmt.Sprintf("key-%05d", i) || len(r.Value()) != 0 {
			t.Fatalf("record %d: %q %q %v", i, k, r.Value(), err)
		}
	}
	if err := r.Next(); err != io.EOF {
		t.Fatalf("after the last record: %v", err)
	}
	// A changed sync marker and a cut file are format errors.
	bad := bytes.Clone(b)
	i := bytes.LastIndex(bad, testSync[:])
	bad[i] ^= 1
	if err := readSeqAll(bad); !errors.Is(err, ErrFormat) {
		t.Fatalf("bad sync marker: %v", err)
	}
	if err := readSeqAll(b[:len(b)-3]); !errors.Is(err, ErrFormat) {
		t.Fatalf("cut file: %v", err)
	}
}

func readSeqAll(b []byte) error {
	r, err := NewSeqReader(bytes.NewReader(b), int64(len(b)), "f")
	if err != nil {
		return err
	}
	for {
		if err := r.Next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// blockFile writes a block-compressed SequenceFile of LongWritable values,
// as Hadoop's BlockCompressWriter lays out MapFile's index.
func blockFile(t testing.TB, keys [][]byte, offs []int64, perBlock int) []byte {
	b := []byte("SEQ\x06")
	b = appendText(b, ClassImmutableBytes)
	b = appendText(b, ClassLong)
	b = append(b, 1, 1)
	b = appendText(b, CodecDefault)
	b = append(b, 0, 0, 0, 0)
	b = append(b, testSync[:]...)
	deflate := func(p []byte) []byte {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write(p)
		w.Close()
		return z.Bytes()
	}
	for s := 0; s < len(keys); s += perBlock {
		e := min(s+perBlock, len(keys))
		var kl, kb, vl, vb []byte
		for i := s; i < e; i++ {
			k := AppendBytesWritable(nil, keys[i])
			kl = appendVLong(kl, int64(len(k)))
			kb = append(kb, k...)
			vl = appendVLong(vl, 8)
			vb = binary.BigEndian.AppendUint64(vb, uint64(offs[i]))
		}
		b = append(b, 0xff, 0xff, 0xff, 0xff)
		b = append(b, testSync[:]...)
		b = appendVLong(b, int64(e-s))
		for _, buf := range [][]byte{kl, kb, vl, vb} {
			c := deflate(buf)
			b = appendVLong(b, int64(len(c)))
			b = append(b, c...)
		}
	}
	return b
}

func mapFile(t testing.TB, n int) (data, index []byte, keys [][]byte) {
	var d, ix bytes.Buffer
	m, err := NewMapWriter(&d, &ix, ClassImmutableBytes, testSync)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		k := fmt.Appendf(nil, "row-%05d", i)
		keys = append(keys, k)
		h := md5.Sum(k)
		if err := m.Append(k, AppendBytesWritable(nil, h[:])); err != nil {
			t.Fatal(err)
		}
	}
	return d.Bytes(), ix.Bytes(), keys
}

func TestMapFileRoundTrip(t *testing.T) {
	data, index, keys := mapFile(t, 300)
	got, err := ReadMapFile(bytes.NewReader(data), int64(len(data)), "data", bytes.NewReader(index), int64(len(index)), "index")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(keys) {
		t.Fatalf("%d entries, want %d", len(got), len(keys))
	}
	for i, e := range got {
		h := md5.Sum(keys[i])
		if !bytes.Equal(e.Key, keys[i]) || !bytes.Equal(e.Value, h[:]) {
			t.Fatalf("entry %d: %q %x", i, e.Key, e.Value)
		}
	}
	ir, _ := NewSeqReader(bytes.NewReader(index), int64(len(index)), "index")
	var indexed []string
	for ir.Next() == nil {
		k, _ := ParseBytesWritable(ir.Key())
		indexed = append(indexed, string(k))
	}
	if want := []string{"row-00000", "row-00128", "row-00256"}; !reflect.DeepEqual(indexed, want) {
		t.Fatalf("indexed %q, want %q", indexed, want)
	}
	// An index entry that names another record is a format error.
	bad := bytes.Clone(index)
	bad[len(bad)-1]++
	if _, err := ReadMapFile(bytes.NewReader(data), int64(len(data)), "data", bytes.NewReader(bad), int64(len(bad)), "index"); !errors.Is(err, ErrFormat) {
		t.Fatalf("bad index offset: %v", err)
	}
}

func TestMapFileBlockCompressedIndex(t *testing.T) {
	data, _, keys := mapFile(t, 300)
	// The offsets of rows 0, 128 and 256, as the uncompressed index has them.
	r, _ := NewSeqReader(bytes.NewReader(data), int64(len(data)), "data")
	var offs []int64
	var ikeys [][]byte
	for i := 0; ; i++ {
		pos := r.pos
		if r.Next() != nil {
			break
		}
		if i%IndexInterval == 0 {
			offs = append(offs, pos)
			ikeys = append(ikeys, keys[i])
		}
	}
	index := blockFile(t, ikeys, offs, 2)
	got, err := ReadMapFile(bytes.NewReader(data), int64(len(data)), "data", bytes.NewReader(index), int64(len(index)), "index")
	if err != nil || len(got) != 300 {
		t.Fatalf("%d entries, %v", len(got), err)
	}
}

func TestSelectPartitions(t *testing.T) {
	k := func(s string) []byte {
		if s == "" {
			return nil
		}
		return []byte(s)
	}
	starts := [][]byte{k(""), k("b"), k("c"), k("d"), k("e")}
	ends := [][]byte{k("b"), k("c"), k("d"), k("e"), k("")}
	for _, c := range []struct {
		name        string
		start, stop string
		n           int
		wantN       int
		want        []string
	}{
		{"default is a hundredth, at least 1", "", "", 0, 1, nil},
		{"three files", "", "", 3, 3, []string{"b", "d"}},
		{"capped at the regions", "", "", 9, 5, []string{"b", "c", "d", "e"}},
		{"scan inside two regions", "bb", "cc", 9, 2, []string{"c"}},
		{"scan ending at a region start", "", "c", 5, 2, []string{"b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, parts := SelectPartitions(starts, ends, k(c.start), k(c.stop), c.n)
			var got []string
			for _, p := range parts {
				got = append(got, string(p))
			}
			if n != c.wantN || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %d %q, want %d %q", n, got, c.wantN, c.want)
			}
		})
	}
	parts := [][]byte{k("c"), k("e")}
	for key, want := range map[string]int{"": 0, "a": 0, "c": 1, "d": 1, "e": 2, "z": 2} {
		if got := PartitionOf(parts, []byte(key)); got != want {
			t.Errorf("PartitionOf(%q) = %d, want %d", key, got, want)
		}
	}
}

func cell(row, fam, qual string, ts int64, value string) *hfile.Cell {
	return &hfile.Cell{Row: []byte(row), Family: []byte(fam), Qualifier: []byte(qual), Timestamp: ts, Type: hfile.TypePut, Value: []byte(value)}
}

func TestBatcher(t *testing.T) {
	// Each cell here is 1+1+1+8+1 = 12 bytes: with a target of 24 a
	// batch closes at the first row boundary after two cells.
	b := NewBatcher([]byte("a"), 24)
	in := []*hfile.Cell{
		cell("a", "f", "q", 1, "v"), cell("b", "f", "q", 2, "v"), cell("b", "f", "r", 3, "v"),
		cell("c", "f", "q", 0x0102030405060708, "v"),
	}
	for _, c := range in {
		b.Add(c)
	}
	got := b.Finish()
	sum := func(cs ...*hfile.Cell) [16]byte {
		h := md5.New()
		for _, c := range cs {
			h.Write(c.Row)
			h.Write(c.Family)
			h.Write(c.Qualifier)
			var ts [8]byte
			for i := range ts {
				ts[i] = byte(uint64(c.Timestamp) >> (8 * i))
			}
			h.Write(ts[:])
			h.Write(c.Value)
		}
		var out [16]byte
		h.Sum(out[:0])
		return out
	}
	want := []Batch{{Start: []byte("a"), Hash: sum(in[0], in[1], in[2])}, {Start: []byte("c"), Hash: sum(in[3])}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("batches %x, want %x", got, want)
	}
	if b.Cells != 4 || b.Rows != 3 {
		t.Fatalf("counted %d cells, %d rows", b.Cells, b.Rows)
	}
	// The little-endian timestamp, byte by byte as HashTable writes it.
	if h := md5.Sum([]byte("cfq\x08\x07\x06\x05\x04\x03\x02\x01v")); h != want[1].Hash {
		t.Fatalf("hash of one cell %x, want %x", want[1].Hash, h)
	}
	// An empty split still emits its batch: MD5 of nothing.
	empty := NewBatcher([]byte("z"), 24).Finish()
	if len(empty) != 1 || hex.EncodeToString(empty[0].Hash[:]) != "d41d8cd98f00b204e9800998ecf8427e" || string(empty[0].Start) != "z" {
		t.Fatalf("empty batch %x", empty)
	}
}

func TestWriteRead(t *testing.T) {
	ctx := context.Background()
	fs := fsys.Local{Root: t.TempDir()}
	var batches []Batch
	for i := range 500 {
		var b Batch
		b.Start = fmt.Appendf(nil, "r%04d", i*2)
		b.Hash = md5.Sum(b.Start)
		batches = append(batches, b)
	}
	batches[0].Start = nil // the table's start
	out := Output{Manifest: Manifest{Table: "t", TargetBatchSize: 8000, NumHashFiles: 3, Versions: -1},
		Partitions: [][]byte{[]byte("r0300"), []byte("r0601")}, Batches: batches}
	if err := Write(ctx, fs, "/out", out, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := Write(ctx, fs, "/out", out, time.Now()); err == nil {
		t.Fatal("a second Write over the folder succeeded")
	}
	got, err := Read(ctx, fs, "/out")
	if err != nil {
		t.Fatal(err)
	}
	if got.Batches[0].Start == nil {
		got.Batches[0].Start = nil
	}
	out.Batches[0].Start = []byte{}
	if !reflect.DeepEqual(got.Manifest, out.Manifest) || !reflect.DeepEqual(got.Partitions, out.Partitions) || len(got.Batches) != len(out.Batches) {
		t.Fatalf("read back %+v / %q / %d batches", got.Manifest, got.Partitions, len(got.Batches))
	}
	for i := range got.Batches {
		if !bytes.Equal(got.Batches[i].Start, out.Batches[i].Start) || got.Batches[i].Hash != out.Batches[i].Hash {
			t.Fatalf("batch %d: %x, want %x", i, got.Batches[i], out.Batches[i])
		}
	}
	for i, want := range []int{150, 151, 199} {
		e, err := readMapDir(ctx, fs, "/out/hashes/"+DataFileName(i))
		if err != nil || len(e) != want {
			t.Fatalf("hash file %d: %d entries (want %d), %v", i, len(e), want, err)
		}
	}
}

func TestRehasherAgreesWithBatcher(t *testing.T) {
	b := NewBatcher(nil, 30)
	var in []*hfile.Cell
	for i := range 40 {
		in = append(in, cell(fmt.Sprintf("r%02d", i/3), "f", fmt.Sprint(i%3), int64(i), "value"))
	}
	for _, c := range in {
		b.Add(c)
	}
	batches := b.Finish()
	var starts [][]byte
	for _, bt := range batches {
		starts = append(starts, bt.Start)
	}
	r := NewRehasher(starts)
	r.Add(cell("", "f", "q", 1, "v")) // before no batch: the first starts at ""
	rr := NewRehasher(starts[1:])
	for _, c := range in {
		r.Add(c)
		rr.Add(c)
	}
	sums, later := r.Finish(), rr.Finish()
	if len(batches) < 3 {
		t.Fatalf("%d batches: the test proves little", len(batches))
	}
	for i := range batches {
		if i > 0 && sums[i] != batches[i].Hash {
			t.Fatalf("batch %d: rehashed %x, hashed %x", i, sums[i], batches[i].Hash)
		}
		if i > 0 && later[i-1] != batches[i].Hash {
			t.Fatalf("batch %d without the first start: %x, want %x", i, later[i-1], batches[i].Hash)
		}
	}
	if sums[0] == batches[0].Hash {
		t.Fatal("an extra cell in the first batch did not change its hash")
	}
}

// TestSeqFileRecordCompressed reads a record-compressed file, as Hadoop's
// SequenceFile.createWriter writes HashTable's partitions by default: keys
// raw, each value its own zlib stream.
func TestSeqFileRecordCompressed(t *testing.T) {
	b := []byte("SEQ\x06")
	b = appendText(b, ClassImmutableBytes)
	b = appendText(b, ClassNull)
	b = append(b, 1, 0)
	b = appendText(b, CodecDefault)
	b = append(b, 0, 0, 0, 0)
	b = append(b, testSync[:]...)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Close()
	for _, k := range []string{"a", "bb"} {
		key := AppendBytesWritable(nil, []byte(k))
		b = binary.BigEndian.AppendUint32(b, uint32(len(key)+z.Len()))
		b = binary.BigEndian.AppendUint32(b, uint32(len(key)))
		b = append(b, key...)
		b = append(b, z.Bytes()...)
	}
	r, err := NewSeqReader(bytes.NewReader(b), int64(len(b)), "p")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for r.Next() == nil {
		k, _ := ParseBytesWritable(r.Key())
		if len(r.Value()) != 0 {
			t.Fatalf("value %x", r.Value())
		}
		got = append(got, string(k))
	}
	if !reflect.DeepEqual(got, []string{"a", "bb"}) {
		t.Fatalf("keys %q", got)
	}
}
