package hashtable

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"rangecopy/fsys"
	"rangecopy/hfile"
)

// DefaultBatchSize is HashTable's default target batch size in bytes.
const DefaultBatchSize = 8000

// HashSize is the length of a batch hash, an MD5.
const HashSize = md5.Size

// Names in a HashTable output folder.
const (
	ManifestName   = "manifest"
	PartitionsName = "partitions"
	HashesDir      = "hashes"
)

// DataFileName is the name of hash file i under HashesDir.
func DataFileName(i int) string { return fmt.Sprintf("part-r-%05d", i) }

// Manifest is a HashTable manifest: the scan the hashes are of.
type Manifest struct {
	Table string
	// Families is the columnFamilies property, comma-separated; "" means
	// every family.
	Families        string
	TargetBatchSize int64
	NumHashFiles    int
	// StartRow and StopRow bound the rows; empty is the table's start or
	// end.
	StartRow, StopRow []byte
	ScanBatch         int
	// Versions is how many versions the scan reads; -1 (absent) means
	// the Scan default, 1.
	Versions int
	// StartTime and EndTime are the time range; 0 means absent (and both
	// 0 no time range; EndTime 0 with StartTime set means to the latest).
	StartTime, EndTime int64
	RawScan            bool
}

// Properties returns m as HashTable.TableHash.writePropertiesFile writes
// it, absent fields left out.
func (m Manifest) Properties() []Property {
	p := []Property{{"table", m.Table}}
	if m.Families != "" {
		p = append(p, Property{"columnFamilies", m.Families})
	}
	p = append(p, Property{"targetBatchSize", strconv.FormatInt(m.TargetBatchSize, 10)},
		Property{"numHashFiles", strconv.Itoa(m.NumHashFiles)})
	if len(m.StartRow) > 0 {
		p = append(p, Property{"startRowHex", hex.EncodeToString(m.StartRow)})
	}
	if len(m.StopRow) > 0 {
		p = append(p, Property{"stopRowHex", hex.EncodeToString(m.StopRow)})
	}
	if m.ScanBatch > 0 {
		p = append(p, Property{"scanBatch", strconv.Itoa(m.ScanBatch)})
	}
	if m.Versions >= 0 {
		p = append(p, Property{"versions", strconv.Itoa(m.Versions)})
	}
	if m.StartTime != 0 {
		p = append(p, Property{"startTimestamp", strconv.FormatInt(m.StartTime, 10)})
	}
	if m.EndTime != 0 {
		p = append(p, Property{"endTimestamp", strconv.FormatInt(m.EndTime, 10)})
	}
	return append(p, Property{"rawScan", strconv.FormatBool(m.RawScan)})
}

// ParseManifest reads a manifest's properties as TableHash.readPropertiesFile
// does: table, targetBatchSize and numHashFiles are required.
func ParseManifest(p map[string]string) (Manifest, error) {
	m := Manifest{Versions: -1}
	var ok bool
	if m.Table, ok = p["table"]; !ok || m.Table == "" {
		return m, fmt.Errorf("%w: manifest: no table", ErrFormat)
	}
	m.Families = p["columnFamilies"]
	var err error
	num := func(key string, required bool, bits int, dst func(int64)) {
		s, ok := p[key]
		if err != nil || (!ok && !required) {
			return
		}
		v, e := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
		if e != nil {
			err = fmt.Errorf("%w: manifest %s %q: not a number", ErrFormat, key, s)
			return
		}
		dst(v)
	}
	num("targetBatchSize", true, 64, func(v int64) { m.TargetBatchSize = v })
	num("numHashFiles", true, 32, func(v int64) { m.NumHashFiles = int(v) })
	num("scanBatch", false, 32, func(v int64) { m.ScanBatch = int(v) })
	num("versions", false, 32, func(v int64) { m.Versions = int(v) })
	num("startTimestamp", false, 64, func(v int64) { m.StartTime = v })
	num("endTimestamp", false, 64, func(v int64) { m.EndTime = v })
	if err != nil {
		return m, err
	}
	if m.NumHashFiles < 1 || m.NumHashFiles > 1<<20 {
		return m, fmt.Errorf("%w: manifest numHashFiles %d: want 1 to %d", ErrFormat, m.NumHashFiles, 1<<20)
	}
	for _, f := range []struct {
		key string
		dst *[]byte
	}{{"startRowHex", &m.StartRow}, {"stopRowHex", &m.StopRow}} {
		if s, ok := p[f.key]; ok {
			if *f.dst, err = hex.DecodeString(s); err != nil {
				return m, fmt.Errorf("%w: manifest %s %q: not hex", ErrFormat, f.key, s)
			}
		}
	}
	// Java's Boolean.parseBoolean: "true" in any case, anything else false.
	m.RawScan = strings.EqualFold(p["rawScan"], "true")
	return m, nil
}

// SelectPartitions chooses the partition keys and the number of hash files
// as HashTable.TableHash.selectPartitions does: of the regions (start and
// end keys, in order) it keeps those the rows [start, stop) overlap;
// numHashFiles 0 means a hundredth of them, at least 1; at most their
// count. The keys are the start keys at index len*i/n for i in 1..n-1.
// Pure.
func SelectPartitions(regionStarts, regionEnds [][]byte, start, stop []byte, numHashFiles int) (int, [][]byte) {
	var starts [][]byte
	for i := range regionStarts {
		rs, re := regionStarts[i], regionEnds[i]
		if (len(start) == 0 || len(re) == 0 || bytes.Compare(start, re) < 0) &&
			(len(stop) == 0 || len(rs) == 0 || bytes.Compare(stop, rs) > 0) {
			starts = append(starts, rs)
		}
	}
	n := numHashFiles
	if n == 0 {
		n = len(starts) / 100
	}
	n = min(max(n, 1), len(starts))
	var parts [][]byte
	for i := 1; i < n; i++ {
		parts = append(parts, starts[len(starts)*i/n])
	}
	return max(n, 1), parts
}

// PartitionOf is the hash file of key among the sorted partitions, as
// TotalOrderPartitioner and TableHash.Reader pick it: the count of
// partition keys at or before key. Pure.
func PartitionOf(partitions [][]byte, key []byte) int {
	i, found := slices.BinarySearchFunc(partitions, key, bytes.Compare)
	if found {
		return i + 1
	}
	return i
}

// Batch is one hashed batch: its first row and its MD5.
type Batch struct {
	Start []byte
	Hash  [HashSize]byte
}

// Batcher hashes one split's cells (HashTable's HashMapper and ResultHasher):
// the first batch starts at the split's start row; each cell adds its row,
// family, qualifier, timestamp (8 bytes little-endian) and value to the MD5
// and len(row)+len(family)+len(qualifier)+8+len(value) to the batch size;
// at a new row, once the size has reached the target, the batch is
// finished and a new one starts at that row. The last batch is always
// emitted, empty or not. Cell types, tags and sequence ids are not hashed.
type Batcher struct {
	target           int64
	IgnoreTimestamps bool
	md               hash.Hash
	start            []byte
	size             int64
	row              []byte
	hasRow           bool
	out              []Batch
	ts               [8]byte
	// Cells and Rows count what was hashed.
	Cells, Rows int64
}

// NewBatcher starts the first batch at start with the target batch size.
func NewBatcher(start []byte, target int64) *Batcher {
	return &Batcher{target: target, md: md5.New(), start: bytes.Clone(start)}
}

// Add hashes one cell; cells come in key order.
func (b *Batcher) Add(c *hfile.Cell) {
	if !b.hasRow || !bytes.Equal(c.Row, b.row) {
		b.row, b.hasRow = append(b.row[:0], c.Row...), true
		b.Rows++
		if b.size >= b.target {
			b.finish()
			b.start = bytes.Clone(c.Row)
		}
	}
	b.Cells++
	b.md.Write(c.Row)
	b.md.Write(c.Family)
	b.md.Write(c.Qualifier)
	if !b.IgnoreTimestamps {
		binary.LittleEndian.PutUint64(b.ts[:], uint64(c.Timestamp))
		b.md.Write(b.ts[:])
	}
	b.md.Write(c.Value)
	b.size += int64(len(c.Row) + len(c.Family) + len(c.Qualifier) + 8 + len(c.Value))
}

func (b *Batcher) finish() {
	var bt Batch
	bt.Start = b.start
	b.md.Sum(bt.Hash[:0])
	b.md.Reset()
	b.size = 0
	b.out = append(b.out, bt)
}

// Finish ends the last batch and returns every batch.
func (b *Batcher) Finish() []Batch {
	b.finish()
	return b.out
}

// Output is a whole HashTable output folder.
type Output struct {
	Manifest Manifest
	// Partitions are the sorted keys that part the hash files:
	// NumHashFiles-1 of them.
	Partitions [][]byte
	// Batches are every batch of every hash file, in key order.
	Batches []Batch
}

// Write writes out as HashTable lays it out under dir of fs: manifest
// (written as manifest.tmp and renamed last, as HashTable does),
// partitions, and hashes/part-r-NNNNN/{data,index}, each batch in the file
// of its partition interval. dir must not exist.
func Write(ctx context.Context, fs fsys.FS, dir string, out Output, now time.Time) error {
	m := out.Manifest
	if m.NumHashFiles != len(out.Partitions)+1 {
		return fmt.Errorf("hashtable: %d hash files need %d partition keys, not %d", m.NumHashFiles, m.NumHashFiles-1, len(out.Partitions))
	}
	if _, err := fs.Stat(ctx, dir); err == nil {
		return fmt.Errorf("hashtable: output %s exists", dir)
	}
	var sync [SyncSize]byte
	if _, err := rand.Read(sync[:]); err != nil {
		return fmt.Errorf("hashtable: sync marker: %w", err)
	}
	if err := fs.MkdirAll(ctx, path.Join(dir, HashesDir), 0o755); err != nil {
		return fmt.Errorf("hashtable: %w", err)
	}
	if err := writeFile(ctx, fs, path.Join(dir, ManifestName+".tmp"), func(w io.Writer) error {
		return WriteProperties(w, m.Properties(), now)
	}); err != nil {
		return err
	}
	if err := writeFile(ctx, fs, path.Join(dir, PartitionsName), func(w io.Writer) error {
		s, err := NewSeqWriter(w, ClassImmutableBytes, ClassNull, sync)
		if err != nil {
			return err
		}
		for i, p := range out.Partitions {
			if i > 0 && bytes.Compare(out.Partitions[i-1], p) >= 0 {
				return fmt.Errorf("partition keys not sorted at %x", p)
			}
			if err := s.Append(AppendBytesWritable(nil, p), nil); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	files := make([][]Batch, m.NumHashFiles)
	for _, b := range out.Batches {
		i := PartitionOf(out.Partitions, b.Start)
		files[i] = append(files[i], b)
	}
	for i, bs := range files {
		d := path.Join(dir, HashesDir, DataFileName(i))
		if err := fs.MkdirAll(ctx, d, 0o755); err != nil {
			return fmt.Errorf("hashtable: %w", err)
		}
		if err := writeMapFile(ctx, fs, d, bs, sync); err != nil {
			return err
		}
	}
	if err := fs.Rename(ctx, path.Join(dir, ManifestName+".tmp"), path.Join(dir, ManifestName)); err != nil {
		return fmt.Errorf("hashtable: complete the manifest: %w", err)
	}
	return nil
}

func writeMapFile(ctx context.Context, fs fsys.FS, dir string, bs []Batch, sync [SyncSize]byte) error {
	data, err := fs.Create(ctx, path.Join(dir, "data"), fsys.CreateOptions{})
	if err != nil {
		return fmt.Errorf("hashtable: %w", err)
	}
	err = writeFile(ctx, fs, path.Join(dir, "index"), func(index io.Writer) error {
		m, err := NewMapWriter(data, index, ClassImmutableBytes, sync)
		if err != nil {
			return err
		}
		for _, b := range bs {
			if err := m.Append(b.Start, AppendBytesWritable(nil, b.Hash[:])); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := data.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("hashtable: close %s/data: %w", dir, cerr)
	}
	return err
}

func writeFile(ctx context.Context, fs fsys.FS, name string, fn func(io.Writer) error) error {
	w, err := fs.Create(ctx, name, fsys.CreateOptions{})
	if err != nil {
		return fmt.Errorf("hashtable: %w", err)
	}
	if err := fn(w); err != nil {
		w.Close()
		return fmt.Errorf("hashtable: write %s: %w", name, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("hashtable: close %s: %w", name, err)
	}
	return nil
}

// Read reads a HashTable output folder under dir of fs and checks it as
// SyncTable does, and more: the manifest (not manifest.tmp: an unfinished
// run is an error), partitions sorted and numHashFiles-1 of them, every
// hash file's keys in its partition interval, ascending across files, and
// 16-byte hashes.
func Read(ctx context.Context, fs fsys.Reader, dir string) (Output, error) {
	var out Output
	mb, err := readAll(ctx, fs, path.Join(dir, ManifestName), MaxPropertiesSize)
	if err != nil {
		return out, fmt.Errorf("hashtable: %w (has the HashTable run completed?)", err)
	}
	props, err := ReadProperties(mb, path.Join(dir, ManifestName))
	if err != nil {
		return out, err
	}
	if out.Manifest, err = ParseManifest(props); err != nil {
		return out, fmt.Errorf("%s: %w", path.Join(dir, ManifestName), err)
	}
	pname := path.Join(dir, PartitionsName)
	if out.Partitions, err = readPartitions(ctx, fs, pname); err != nil {
		return out, err
	}
	if len(out.Partitions) != out.Manifest.NumHashFiles-1 {
		return out, fmt.Errorf("%w: %s holds %d keys, the manifest's numHashFiles %d wants %d", ErrFormat, pname, len(out.Partitions), out.Manifest.NumHashFiles, out.Manifest.NumHashFiles-1)
	}
	for i := range out.Manifest.NumHashFiles {
		d := path.Join(dir, HashesDir, DataFileName(i))
		entries, err := readMapDir(ctx, fs, d)
		if err != nil {
			return out, err
		}
		for _, e := range entries {
			if PartitionOf(out.Partitions, e.Key) != i {
				return out, fmt.Errorf("%w: %s: key %x lies outside its partition interval", ErrFormat, d, e.Key)
			}
			if len(e.Value) != HashSize {
				return out, fmt.Errorf("%w: %s: key %x has a hash of %d bytes, not %d", ErrFormat, d, e.Key, len(e.Value), HashSize)
			}
			var b Batch
			b.Start = e.Key
			copy(b.Hash[:], e.Value)
			out.Batches = append(out.Batches, b)
		}
	}
	return out, nil
}

func readPartitions(ctx context.Context, fs fsys.Reader, name string) ([][]byte, error) {
	f, err := fs.Open(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("hashtable: %w", err)
	}
	defer f.Close()
	s, err := NewSeqReader(f, f.Size(), name)
	if err != nil {
		return nil, err
	}
	if s.Header.KeyClass != ClassImmutableBytes || s.Header.ValueClass != ClassNull {
		return nil, fmt.Errorf("%w: %s holds %s to %s, not %s to %s", ErrFormat, name, s.Header.KeyClass, s.Header.ValueClass, ClassImmutableBytes, ClassNull)
	}
	var out [][]byte
	for {
		err := s.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		k, err := ParseBytesWritable(s.Key())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(s.Value()) != 0 {
			return nil, fmt.Errorf("%w: %s: a NullWritable of %d bytes", ErrFormat, name, len(s.Value()))
		}
		if n := len(out); n > 0 && bytes.Compare(out[n-1], k) >= 0 {
			return nil, fmt.Errorf("%w: %s: partitions are not ordered at %x", ErrFormat, name, k)
		}
		if len(out) >= 1<<20 {
			return nil, fmt.Errorf("%w: %s: more than %d partitions", ErrFormat, name, 1<<20)
		}
		out = append(out, bytes.Clone(k))
	}
}

func readMapDir(ctx context.Context, fs fsys.Reader, dir string) ([]MapEntry, error) {
	data, err := fs.Open(ctx, path.Join(dir, "data"))
	if err != nil {
		return nil, fmt.Errorf("hashtable: %w", err)
	}
	defer data.Close()
	index, err := fs.Open(ctx, path.Join(dir, "index"))
	if err != nil {
		return nil, fmt.Errorf("hashtable: %w", err)
	}
	defer index.Close()
	return ReadMapFile(data, data.Size(), path.Join(dir, "data"), index, index.Size(), path.Join(dir, "index"))
}

func readAll(ctx context.Context, fs fsys.Reader, name string, limit int64) ([]byte, error) {
	f, err := fs.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Size() > limit {
		return nil, fmt.Errorf("%w: %s: %d bytes, at most %d", ErrFormat, name, f.Size(), limit)
	}
	b := make([]byte, f.Size())
	if _, err := f.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}

// Rehasher hashes cells into given batches, as SyncTable hashes the target
// into the source's batch boundaries: batch i holds the rows from
// starts[i] up to starts[i+1] (the last to the end of the cells); cells
// before starts[0] are not hashed. The hash of each cell is Batcher's.
type Rehasher struct {
	starts [][]byte
	i      int // the batch cells go to; -1 before the first
	md     hash.Hash
	sums   [][HashSize]byte
	ts     [8]byte
	row    []byte
	hasRow bool
	// Cells and Rows count what was hashed, per batch.
	Cells, Rows []int64
}

// NewRehasher hashes into batches starting at starts (ascending).
func NewRehasher(starts [][]byte) *Rehasher {
	n := len(starts)
	return &Rehasher{starts: starts, i: -1, md: md5.New(), sums: make([][HashSize]byte, n), Cells: make([]int64, n), Rows: make([]int64, n)}
}

// Add hashes one cell; cells come in key order.
func (h *Rehasher) Add(c *hfile.Cell) {
	for h.i+1 < len(h.starts) && bytes.Compare(c.Row, h.starts[h.i+1]) >= 0 {
		h.seal()
		h.i++
	}
	if h.i < 0 {
		return
	}
	if !h.hasRow || !bytes.Equal(c.Row, h.row) {
		h.row, h.hasRow = append(h.row[:0], c.Row...), true
		h.Rows[h.i]++
	}
	h.Cells[h.i]++
	h.md.Write(c.Row)
	h.md.Write(c.Family)
	h.md.Write(c.Qualifier)
	binary.LittleEndian.PutUint64(h.ts[:], uint64(c.Timestamp))
	h.md.Write(h.ts[:])
	h.md.Write(c.Value)
}

func (h *Rehasher) seal() {
	if h.i >= 0 {
		h.md.Sum(h.sums[h.i][:0])
	}
	h.md.Reset()
}

// Finish returns the hash of every batch, empty ones included.
func (h *Rehasher) Finish() [][HashSize]byte {
	for ; h.i < len(h.starts); h.i++ {
		h.seal()
	}
	return h.sums
}
