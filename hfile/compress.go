package hfile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strconv"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Compression is a block compression algorithm (HBase's
// Compression.Algorithm). The zero value is CompressionNone; the trailer
// stores the algorithm's HBase ordinal (see ordinal).
type Compression uint8

// Compression algorithms.
const (
	CompressionNone Compression = iota
	CompressionGZ
	CompressionSnappy
	CompressionLZ4
	CompressionZSTD
	CompressionLZO
	CompressionBZIP2
	CompressionLZMA
	CompressionBrotli
	compressionUnknown
)

// compressionOrdinals maps Compression to the ordinal in the trailer.
var compressionOrdinals = [...]uint32{
	CompressionLZO:    0,
	CompressionGZ:     1,
	CompressionNone:   2,
	CompressionSnappy: 3,
	CompressionLZ4:    4,
	CompressionBZIP2:  5,
	CompressionZSTD:   6,
	CompressionLZMA:   7,
	CompressionBrotli: 8,
}

var compressionNames = [...]string{
	CompressionNone:   "NONE",
	CompressionGZ:     "GZ",
	CompressionSnappy: "SNAPPY",
	CompressionLZ4:    "LZ4",
	CompressionZSTD:   "ZSTD",
	CompressionLZO:    "LZO",
	CompressionBZIP2:  "BZIP2",
	CompressionLZMA:   "LZMA",
	CompressionBrotli: "BROTLI",
}

// ordinal is the value the trailer stores for c.
func (c Compression) ordinal() uint32 {
	if c >= compressionUnknown {
		return 1<<32 - 1
	}
	return compressionOrdinals[c]
}

// compressionFromOrdinal maps a trailer ordinal to a Compression.
func compressionFromOrdinal(o uint64) Compression {
	for c, v := range compressionOrdinals {
		if uint64(v) == o {
			return Compression(c)
		}
	}
	return compressionUnknown
}

// String returns HBase's name of the algorithm.
func (c Compression) String() string {
	if c < compressionUnknown {
		return compressionNames[c]
	}
	return "Compression(" + strconv.Itoa(int(c)) + ")"
}

// supported reports whether this package can read and write c.
func (c Compression) supported() bool {
	switch c {
	case CompressionNone, CompressionGZ, CompressionSnappy, CompressionLZ4, CompressionZSTD:
		return true
	}
	return false
}

// ZstdFraming selects how ZSTD block payloads are framed. Two codecs share
// the ZSTD ordinal and their streams are not compatible.
type ZstdFraming int

const (
	// ZstdHadoopBlock frames each block with Hadoop's BlockCompressorStream
	// (big-endian raw length, then length-prefixed zstd frames), as HBase's
	// own org.apache.hadoop.hbase.io.compress.zstd.ZstdCodec writes.
	ZstdHadoopBlock ZstdFraming = iota
	// ZstdPlainFrame writes a bare zstd frame, as Hadoop's native
	// org.apache.hadoop.io.compress.ZStandardCodec does.
	ZstdPlainFrame
)

// hadoopChunk is the uncompressed size of one BlockCompressorStream group we
// write. Both Hadoop's snappy and LZ4 codecs accept groups up to about 213 KiB.
const hadoopChunk = 64 << 10

// zstdMagic starts a zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// codecs holds reusable compressors for one reader or writer. It is not
// safe for concurrent use.
type codecs struct {
	gzr   *gzip.Reader
	gzw   *gzip.Writer
	zdec  *zstd.Decoder
	zenc  *zstd.Encoder
	tmp   []byte
	inbuf bytes.Reader
}

// maxBlockSize bounds the uncompressed size of any block this package reads
// or writes.
const maxBlockSize = 1 << 30

// decompress decompresses src, which must expand to exactly want bytes, into
// dst[:0] (reusing its capacity) and returns the result. Output buffers grow
// with the bytes actually produced, so a lying size field cannot force a large
// allocation by itself.
func (cs *codecs) decompress(alg Compression, dst, src []byte, want int) ([]byte, error) {
	dst = dst[:0]
	if want < 0 || want > maxBlockSize {
		return dst, formatError("uncompressed size %d out of range", want)
	}
	var err error
	switch alg {
	case CompressionNone:
		dst = append(dst, src...)
	case CompressionGZ:
		dst, err = cs.gunzip(dst, src, want)
	case CompressionSnappy, CompressionLZ4:
		dst, err = cs.unblock(alg, dst, src, want)
	case CompressionZSTD:
		if len(src) >= 4 && bytes.Equal(src[:4], zstdMagic) {
			dst, err = cs.unzstd(dst, src, want)
		} else {
			dst, err = cs.unblock(alg, dst, src, want)
		}
	default:
		return dst, unsupportedError("compression %s", alg)
	}
	if err != nil {
		return dst, err
	}
	if len(dst) != want {
		return dst, formatError("%s payload expanded to %d bytes, header says %d", alg, len(dst), want)
	}
	return dst, nil
}

func (cs *codecs) gunzip(dst, src []byte, want int) ([]byte, error) {
	cs.inbuf.Reset(src)
	var err error
	if cs.gzr == nil {
		cs.gzr, err = gzip.NewReader(&cs.inbuf)
	} else {
		err = cs.gzr.Reset(&cs.inbuf)
	}
	if err != nil {
		return dst, formatError("gzip: %v", err)
	}
	cs.gzr.Multistream(true)
	for {
		if len(dst) == cap(dst) {
			if len(dst) > want {
				return dst, formatError("gzip payload longer than %d bytes", want)
			}
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := cs.gzr.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, formatError("gzip: %v", err)
		}
	}
}

func (cs *codecs) unzstd(dst, src []byte, want int) ([]byte, error) {
	var h zstd.Header
	if err := h.Decode(src); err != nil {
		return dst, formatError("zstd: %v", err)
	}
	if h.HasFCS && h.FrameContentSize > uint64(want) {
		return dst, formatError("zstd frame of %d bytes exceeds block size %d", h.FrameContentSize, want)
	}
	if cs.zdec == nil {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxBlockSize))
		if err != nil {
			return dst, err
		}
		cs.zdec = d
	}
	out, err := cs.zdec.DecodeAll(src, dst)
	if err != nil {
		return dst, formatError("zstd: %v", err)
	}
	return out, nil
}

// unblock reverses Hadoop's BlockCompressorStream framing: groups of
// (int32 rawLength, then chunks of int32 length + raw codec bytes).
func (cs *codecs) unblock(alg Compression, dst, src []byte, want int) ([]byte, error) {
	r := readBuf{b: src}
	for r.remaining() > 0 {
		raw := int(r.u32())
		if r.err != nil || raw < 0 || raw > want-len(dst) {
			return dst, formatError("%s group of %d bytes overruns block size %d", alg, raw, want)
		}
		end := len(dst) + raw
		for len(dst) < end {
			n := int(r.u32())
			chunk := r.bytes(n)
			if r.err != nil {
				return dst, formatError("%s chunk truncated", alg)
			}
			var err error
			dst, err = cs.unchunk(alg, dst, chunk, end-len(dst))
			if err != nil {
				return dst, err
			}
		}
		if len(dst) != end {
			return dst, formatError("%s group expanded past its length", alg)
		}
	}
	return dst, nil
}

// unchunk decompresses one raw codec chunk of at most limit bytes and
// appends it to dst.
func (cs *codecs) unchunk(alg Compression, dst, chunk []byte, limit int) ([]byte, error) {
	switch alg {
	case CompressionSnappy:
		n, err := snappy.DecodedLen(chunk)
		if err != nil || n > limit {
			return dst, formatError("snappy chunk: bad length %d (limit %d)", n, limit)
		}
		dst = grow(dst, n)
		out, err := snappy.Decode(dst[len(dst):len(dst)+n], chunk)
		if err != nil {
			return dst, formatError("snappy: %v", err)
		}
		return dst[:len(dst)+len(out)], nil
	case CompressionLZ4:
		// LZ4 expands at most 255 times.
		n := limit
		if m := 255*len(chunk) + 16; m < n {
			n = m
		}
		dst = grow(dst, n)
		k, err := lz4.UncompressBlock(chunk, dst[len(dst):len(dst)+n])
		if err != nil {
			return dst, formatError("lz4: %v", err)
		}
		if k == 0 && len(chunk) > 0 && limit > 0 {
			return dst, formatError("lz4: empty chunk output")
		}
		return dst[:len(dst)+k], nil
	case CompressionZSTD:
		start := len(dst)
		out, err := cs.unzstd(dst, chunk, limit)
		if err != nil {
			return dst, err
		}
		if len(out)-start > limit {
			return dst, formatError("zstd chunk longer than %d bytes", limit)
		}
		return out, nil
	}
	return dst, unsupportedError("compression %s", alg)
}

// grow makes room for n more bytes in b.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n)
	copy(nb, b)
	return nb
}

// compress appends the compressed form of src to dst.
func (cs *codecs) compress(alg Compression, zf ZstdFraming, dst, src []byte) ([]byte, error) {
	switch alg {
	case CompressionNone:
		return append(dst, src...), nil
	case CompressionGZ:
		w := bytesAppender{b: dst}
		if cs.gzw == nil {
			cs.gzw = gzip.NewWriter(&w)
		} else {
			cs.gzw.Reset(&w)
		}
		if _, err := cs.gzw.Write(src); err != nil {
			return dst, err
		}
		if err := cs.gzw.Close(); err != nil {
			return dst, err
		}
		return w.b, nil
	case CompressionSnappy, CompressionLZ4:
		return cs.block(alg, dst, src)
	case CompressionZSTD:
		if zf == ZstdPlainFrame {
			if err := cs.initZstdEnc(); err != nil {
				return dst, err
			}
			return cs.zenc.EncodeAll(src, dst), nil
		}
		return cs.block(alg, dst, src)
	}
	return dst, unsupportedError("compression %s", alg)
}

func (cs *codecs) initZstdEnc() error {
	if cs.zenc != nil {
		return nil
	}
	e, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	cs.zenc = e
	return nil
}

// block writes src in Hadoop BlockCompressorStream framing, one group of one
// chunk per hadoopChunk bytes.
func (cs *codecs) block(alg Compression, dst, src []byte) ([]byte, error) {
	for len(src) > 0 {
		n := min(len(src), hadoopChunk)
		part := src[:n]
		src = src[n:]
		dst = appendU32(dst, uint32(n))
		var chunk []byte
		switch alg {
		case CompressionSnappy:
			cs.tmp = grow(cs.tmp[:0], snappy.MaxEncodedLen(n))
			chunk = snappy.Encode(cs.tmp[:cap(cs.tmp)], part)
		case CompressionLZ4:
			cs.tmp = grow(cs.tmp[:0], lz4.CompressBlockBound(n))
			var c lz4.Compressor
			k, err := c.CompressBlock(part, cs.tmp[:cap(cs.tmp)])
			if err != nil {
				return dst, err
			}
			if k == 0 {
				return dst, errors.New("hfile: lz4 produced no output")
			}
			chunk = cs.tmp[:k]
		case CompressionZSTD:
			if err := cs.initZstdEnc(); err != nil {
				return dst, err
			}
			cs.tmp = cs.zenc.EncodeAll(part, cs.tmp[:0])
			chunk = cs.tmp
		}
		dst = appendU32(dst, uint32(len(chunk)))
		dst = append(dst, chunk...)
	}
	return dst, nil
}

// bytesAppender is an io.Writer that appends to a slice.
type bytesAppender struct{ b []byte }

// Write appends p.
func (w *bytesAppender) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
