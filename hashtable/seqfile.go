package hashtable

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
)

// Class names of the writables HashTable's files hold.
const (
	ClassImmutableBytes = "org.apache.hadoop.hbase.io.ImmutableBytesWritable"
	ClassNull           = "org.apache.hadoop.io.NullWritable"
	ClassLong           = "org.apache.hadoop.io.LongWritable"
	// CodecDefault is Hadoop's DefaultCodec (zlib), which MapFile's index
	// uses; it is the one codec SeqReader decompresses.
	CodecDefault = "org.apache.hadoop.io.compress.DefaultCodec"
)

// SyncSize is the length of a SequenceFile's sync marker.
const SyncSize = 16

// SyncInterval is the bytes a SeqWriter writes between sync markers. Hadoop
// writes them further apart; its readers, like ours, take a marker between
// any two records.
const SyncInterval = 100 * SyncSize

const syncEscape = -1

// seqMagic is "SEQ" and format version 6 (metadata and sync in the header).
var seqMagic = []byte{'S', 'E', 'Q', 6}

// AppendBytesWritable appends b as ImmutableBytesWritable.write writes it:
// a 4-byte big-endian length, then the bytes.
func AppendBytesWritable(dst, b []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// ParseBytesWritable reads an ImmutableBytesWritable that is exactly rec.
func ParseBytesWritable(rec []byte) ([]byte, error) {
	if len(rec) < 4 {
		return nil, fmt.Errorf("%w: ImmutableBytesWritable of %d bytes", ErrFormat, len(rec))
	}
	n := binary.BigEndian.Uint32(rec)
	if uint64(n) != uint64(len(rec)-4) {
		return nil, fmt.Errorf("%w: ImmutableBytesWritable says %d bytes, holds %d", ErrFormat, n, len(rec)-4)
	}
	return rec[4:], nil
}

// SeqWriter writes an uncompressed SequenceFile (version 6) of raw
// serialized keys and values, with a sync marker every SyncInterval bytes.
// Its error is sticky: after one failed write every call returns it.
type SeqWriter struct {
	w        io.Writer
	sync     [SyncSize]byte
	pos      int64
	lastSync int64
	buf      []byte
	err      error
}

// NewSeqWriter writes the header of a SequenceFile whose keys and values
// are of the Java classes keyClass and valueClass, with sync as its sync
// marker.
func NewSeqWriter(w io.Writer, keyClass, valueClass string, sync [SyncSize]byte) (*SeqWriter, error) {
	s := &SeqWriter{w: w, sync: sync}
	b := append([]byte(nil), seqMagic...)
	b = appendText(b, keyClass)
	b = appendText(b, valueClass)
	b = append(b, 0, 0)       // not compressed, not block compressed
	b = append(b, 0, 0, 0, 0) // no metadata
	b = append(b, sync[:]...)
	s.write(b)
	s.lastSync = s.pos
	return s, s.err
}

func appendText(dst []byte, s string) []byte {
	dst = appendVLong(dst, int64(len(s)))
	return append(dst, s...)
}

func (s *SeqWriter) write(b []byte) {
	if s.err != nil {
		return
	}
	n, err := s.w.Write(b)
	s.pos += int64(n)
	if err != nil {
		s.err = fmt.Errorf("sequence file: write at %d: %w", s.pos, err)
	}
}

// Pos is the offset the next record (or sync marker before it) starts at,
// as MapFile's index records it.
func (s *SeqWriter) Pos() int64 { return s.pos }

// Append writes one record of a serialized key and value.
func (s *SeqWriter) Append(key, value []byte) error {
	b := s.buf[:0]
	if s.pos >= s.lastSync+SyncInterval {
		b = binary.BigEndian.AppendUint32(b, uint32(0xffffffff))
		b = append(b, s.sync[:]...)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(key)+len(value)))
	b = binary.BigEndian.AppendUint32(b, uint32(len(key)))
	b = append(b, key...)
	b = append(b, value...)
	start := s.pos
	s.write(b)
	if len(b) > 8+len(key)+len(value) {
		s.lastSync = start + 4 + SyncSize
	}
	s.buf = b
	return s.err
}

// SeqHeader is what a SequenceFile's header says.
type SeqHeader struct {
	Version                     byte
	KeyClass, ValueClass        string
	Compressed, BlockCompressed bool
	Codec                       string
	Metadata                    []Property
	Sync                        [SyncSize]byte
}

// MaxRecord bounds a record's (or a compressed block's) bytes SeqReader
// accepts.
const MaxRecord = 64 << 20

// SeqReader reads the records of a SequenceFile of version 6:
// uncompressed, or record or block compressed with DefaultCodec (zlib);
// other codecs are ErrUnsupported.
type SeqReader struct {
	Header SeqHeader
	r      io.Reader
	name   string
	size   int64
	pos    int64
	rec    []byte
	key    []byte
	value  []byte
	// block-compressed state
	block     [4][]byte
	blockLeft int64
}

// NewSeqReader reads the header of the SequenceFile of size bytes in r;
// name names it in errors.
func NewSeqReader(r io.ReaderAt, size int64, name string) (*SeqReader, error) {
	s := &SeqReader{r: io.NewSectionReader(r, 0, size), name: name, size: size}
	h := &s.Header
	magic, err := s.read(4)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(magic[:3], seqMagic[:3]) {
		return nil, s.errorf("not a sequence file (magic %q)", magic[:3])
	}
	h.Version = magic[3]
	if h.Version != 6 {
		return nil, fmt.Errorf("%w: sequence file %s: version %d, only 6 is read", ErrUnsupported, name, h.Version)
	}
	if h.KeyClass, err = s.readText(); err != nil {
		return nil, err
	}
	if h.ValueClass, err = s.readText(); err != nil {
		return nil, err
	}
	flags, err := s.read(2)
	if err != nil {
		return nil, err
	}
	if flags[0] > 1 || flags[1] > 1 {
		return nil, s.errorf("compression flags %d %d are not booleans", flags[0], flags[1])
	}
	h.Compressed, h.BlockCompressed = flags[0] == 1, flags[1] == 1
	if h.BlockCompressed && !h.Compressed {
		return nil, s.errorf("block compressed but not compressed")
	}
	if h.Compressed {
		if h.Codec, err = s.readText(); err != nil {
			return nil, err
		}
		if h.Codec != CodecDefault {
			return nil, fmt.Errorf("%w: sequence file %s: codec %s", ErrUnsupported, name, h.Codec)
		}
	}
	nb, err := s.read(4)
	if err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(nb))
	if n < 0 || int64(n)*2 > s.size-s.pos {
		return nil, s.errorf("%d metadata entries", n)
	}
	for range n {
		k, err := s.readText()
		if err != nil {
			return nil, err
		}
		v, err := s.readText()
		if err != nil {
			return nil, err
		}
		h.Metadata = append(h.Metadata, Property{Key: k, Value: v})
	}
	sync, err := s.read(SyncSize)
	if err != nil {
		return nil, err
	}
	copy(h.Sync[:], sync)
	return s, nil
}

func (s *SeqReader) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: sequence file %s at %d: %s", ErrFormat, s.name, s.pos, fmt.Sprintf(format, args...))
}

// read reads n bytes into the reader's buffer, checking n against the
// bytes left first.
func (s *SeqReader) read(n int64) ([]byte, error) {
	if n < 0 || n > s.size-s.pos {
		return nil, s.errorf("%d bytes wanted, %d left", n, s.size-s.pos)
	}
	if int64(cap(s.rec)) < n {
		s.rec = make([]byte, n)
	}
	b := s.rec[:n]
	if _, err := io.ReadFull(s.r, b); err != nil {
		return nil, fmt.Errorf("sequence file %s at %d: %w", s.name, s.pos, err)
	}
	s.pos += n
	return b, nil
}

func (s *SeqReader) readVLong() (int64, error) {
	first, err := s.read(1)
	if err != nil {
		return 0, err
	}
	var b [9]byte
	b[0] = first[0]
	n := 1
	if f := int8(b[0]); f < -112 {
		n = -111 - int(f)
		if f < -120 {
			n = -119 - int(f)
		}
		rest, err := s.read(int64(n - 1))
		if err != nil {
			return 0, err
		}
		copy(b[1:], rest)
	}
	v, _, err := readVLong(b[:n])
	if err != nil {
		return 0, s.errorf("%v", err)
	}
	return v, nil
}

func (s *SeqReader) readText() (string, error) {
	n, err := s.readVLong()
	if err != nil {
		return "", err
	}
	if n < 0 || n > 1<<16 {
		return "", s.errorf("string of %d bytes", n)
	}
	b, err := s.read(n)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Next moves to the next record; it returns io.EOF after the last. The
// record's Key and Value are valid until the next call.
func (s *SeqReader) Next() error {
	if s.Header.BlockCompressed {
		return s.nextInBlock()
	}
	for {
		if s.pos == s.size {
			return io.EOF
		}
		lb, err := s.read(4)
		if err != nil {
			return err
		}
		l := int32(binary.BigEndian.Uint32(lb))
		if l == syncEscape {
			if err := s.checkSync(); err != nil {
				return err
			}
			continue
		}
		kb, err := s.read(4)
		if err != nil {
			return err
		}
		k := int32(binary.BigEndian.Uint32(kb))
		if l < 0 || k < 0 || k > l || l > MaxRecord {
			return s.errorf("record of %d bytes with a key of %d", l, k)
		}
		rec, err := s.read(int64(l))
		if err != nil {
			return err
		}
		s.key, s.value = rec[:k], rec[k:]
		if s.Header.Compressed {
			// Record compression: the value alone is one zlib stream.
			if s.value, err = inflate(s.value); err != nil {
				return s.errorf("record value: %v", err)
			}
		}
		return nil
	}
}

func (s *SeqReader) checkSync() error {
	got, err := s.read(SyncSize)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, s.Header.Sync[:]) {
		return s.errorf("sync marker differs from the header's")
	}
	return nil
}

// Key is the current record's serialized key.
func (s *SeqReader) Key() []byte { return s.key }

// Value is the current record's serialized value.
func (s *SeqReader) Value() []byte { return s.value }

// nextInBlock moves to the next record of a block-compressed file: each
// block is a sync marker, a vint record count, and four zlib buffers
// (key lengths as vints, keys, value lengths as vints, values), each a
// vint length and the bytes.
func (s *SeqReader) nextInBlock() error {
	if s.blockLeft == 0 {
		if s.pos == s.size {
			return io.EOF
		}
		esc, err := s.read(4)
		if err != nil {
			return err
		}
		if int32(binary.BigEndian.Uint32(esc)) != syncEscape {
			return s.errorf("no sync marker before a block")
		}
		if err := s.checkSync(); err != nil {
			return err
		}
		n, err := s.readVLong()
		if err != nil {
			return err
		}
		if n <= 0 || n > MaxRecord {
			return s.errorf("block of %d records", n)
		}
		for i := range s.block {
			l, err := s.readVLong()
			if err != nil {
				return err
			}
			if l < 0 || l > MaxRecord {
				return s.errorf("compressed buffer of %d bytes", l)
			}
			c, err := s.read(l)
			if err != nil {
				return err
			}
			if s.block[i], err = inflate(c); err != nil {
				return s.errorf("buffer %d of a block: %v", i, err)
			}
		}
		s.blockLeft = n
	}
	kl, kn, err := readVLong(s.block[0])
	if err != nil || kl < 0 || kl > int64(len(s.block[1])) {
		return s.errorf("key length in a block: %d (%v)", kl, err)
	}
	vl, vn, err := readVLong(s.block[2])
	if err != nil || vl < 0 || vl > int64(len(s.block[3])) {
		return s.errorf("value length in a block: %d (%v)", vl, err)
	}
	s.block[0], s.block[2] = s.block[0][kn:], s.block[2][vn:]
	s.key, s.block[1] = s.block[1][:kl], s.block[1][kl:]
	s.value, s.block[3] = s.block[3][:vl], s.block[3][vl:]
	s.blockLeft--
	if s.blockLeft == 0 && (len(s.block[0]) > 0 || len(s.block[1]) > 0 || len(s.block[2]) > 0 || len(s.block[3]) > 0) {
		return s.errorf("bytes left over after a block's records")
	}
	return nil
}

// MaxInflated bounds the bytes one compressed buffer of a block inflates to.
const MaxInflated = 16 << 20

// inflate decompresses one zlib stream, at most MaxInflated bytes of it.
func inflate(c []byte) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(c))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	out, err := io.ReadAll(io.LimitReader(zr, MaxInflated+1))
	if err != nil {
		return nil, err
	}
	if len(out) > MaxInflated {
		return nil, fmt.Errorf("inflates past %d bytes", MaxInflated)
	}
	return out, nil
}
