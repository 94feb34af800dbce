package hashtable

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// IndexInterval is how many records a MapWriter writes between index
// entries, Hadoop's io.map.index.interval default.
const IndexInterval = 128

// MapWriter writes a MapFile: a "data" SequenceFile of records in
// ascending key order and an "index" SequenceFile of every
// IndexInterval-th key to its record's offset in data (a LongWritable).
// Keys are compared as raw serialized bytes after ImmutableBytesWritable's
// 4-byte length, as its comparator does. Both files are uncompressed.
type MapWriter struct {
	data, index *SeqWriter
	n           int64
	lastIndexed int64
	lastKey     []byte
	hasKey      bool
}

// NewMapWriter writes a MapFile of ImmutableBytesWritable keys and values of
// valueClass to data and index.
func NewMapWriter(data, index io.Writer, valueClass string, sync [SyncSize]byte) (*MapWriter, error) {
	d, err := NewSeqWriter(data, ClassImmutableBytes, valueClass, sync)
	if err != nil {
		return nil, fmt.Errorf("map file data: %w", err)
	}
	isync := sync
	isync[0] ^= 0xff
	i, err := NewSeqWriter(index, ClassImmutableBytes, ClassLong, isync)
	if err != nil {
		return nil, fmt.Errorf("map file index: %w", err)
	}
	return &MapWriter{data: d, index: i, lastIndexed: -1}, nil
}

// Append writes one record; key (the bytes of an ImmutableBytesWritable)
// must sort after the previous one.
func (m *MapWriter) Append(key, value []byte) error {
	if m.hasKey && bytes.Compare(key, m.lastKey) <= 0 {
		return fmt.Errorf("map file: key %x does not sort after %x", key, m.lastKey)
	}
	m.lastKey, m.hasKey = append(m.lastKey[:0], key...), true
	k := AppendBytesWritable(nil, key)
	pos := m.data.Pos()
	if m.lastIndexed < 0 || m.n >= m.lastIndexed+IndexInterval {
		if err := m.index.Append(k, binary.BigEndian.AppendUint64(nil, uint64(pos))); err != nil {
			return fmt.Errorf("map file index: %w", err)
		}
		m.lastIndexed = m.n
	}
	m.n++
	if err := m.data.Append(k, value); err != nil {
		return fmt.Errorf("map file data: %w", err)
	}
	return nil
}

// MapEntry is one record of a MapFile of ImmutableBytesWritable keys and
// values.
type MapEntry struct {
	Key, Value []byte
}

// MaxEntries bounds the records ReadMapFile returns from one file.
const MaxEntries = 1 << 26

// ReadMapFile reads every record of a MapFile's data (of ImmutableBytesWritable
// keys and values) and checks its index against it: the keys ascending, and
// each index entry naming a key of data at an offset where a record (or
// the sync marker before it) of that key starts. The names name the files
// in errors.
func ReadMapFile(data io.ReaderAt, dataSize int64, dataName string, index io.ReaderAt, indexSize int64, indexName string) ([]MapEntry, error) {
	d, err := NewSeqReader(data, dataSize, dataName)
	if err != nil {
		return nil, err
	}
	if d.Header.KeyClass != ClassImmutableBytes || d.Header.ValueClass != ClassImmutableBytes {
		return nil, fmt.Errorf("%w: map file data %s holds %s to %s, not %s to itself", ErrFormat, dataName, d.Header.KeyClass, d.Header.ValueClass, ClassImmutableBytes)
	}
	var out []MapEntry
	offsets := map[int64]int{} // record start (before any sync marker) to entry
	for {
		start := d.pos
		err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		k, err := ParseBytesWritable(d.Key())
		if err != nil {
			return nil, fmt.Errorf("map file data %s key at %d: %w", dataName, start, err)
		}
		v, err := ParseBytesWritable(d.Value())
		if err != nil {
			return nil, fmt.Errorf("map file data %s value at %d: %w", dataName, start, err)
		}
		if n := len(out); n > 0 && bytes.Compare(k, out[n-1].Key) <= 0 {
			return nil, fmt.Errorf("%w: map file data %s at %d: key %x does not sort after %x", ErrFormat, dataName, start, k, out[n-1].Key)
		}
		if len(out) >= MaxEntries {
			return nil, fmt.Errorf("%w: map file data %s: more than %d records", ErrFormat, dataName, MaxEntries)
		}
		offsets[start] = len(out)
		out = append(out, MapEntry{Key: bytes.Clone(k), Value: bytes.Clone(v)})
	}
	ix, err := NewSeqReader(index, indexSize, indexName)
	if err != nil {
		return nil, err
	}
	if ix.Header.KeyClass != ClassImmutableBytes || ix.Header.ValueClass != ClassLong {
		return nil, fmt.Errorf("%w: map file index %s holds %s to %s, not %s to %s", ErrFormat, indexName, ix.Header.KeyClass, ix.Header.ValueClass, ClassImmutableBytes, ClassLong)
	}
	for {
		err := ix.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		k, err := ParseBytesWritable(ix.Key())
		if err != nil {
			return nil, fmt.Errorf("map file index %s: %w", indexName, err)
		}
		if len(ix.Value()) != 8 {
			return nil, fmt.Errorf("%w: map file index %s: a LongWritable of %d bytes", ErrFormat, indexName, len(ix.Value()))
		}
		off := int64(binary.BigEndian.Uint64(ix.Value()))
		i, ok := offsets[off]
		if !ok {
			// Hadoop records the offset before a sync marker it then
			// writes; a record may start just after that marker.
			i, ok = offsets[off+4+SyncSize]
		}
		if !ok || !bytes.Equal(out[i].Key, k) {
			return nil, fmt.Errorf("%w: map file index %s: key %x at offset %d is not a record of %s", ErrFormat, indexName, k, off, dataName)
		}
	}
	return out, nil
}
