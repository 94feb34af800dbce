package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"rangecopy/hfile"
)

// decompressBlock expands the payload of a compressed HFile block to exactly
// want bytes. GZ payloads are gzip streams; SNAPPY, LZ4 and ZSTD (as HBase's
// own ZstdCodec writes it) use Hadoop's BlockCompressorStream framing:
// groups of a big-endian raw length followed by big-endian length-prefixed
// compressed chunks; ZSTD may also be one bare zstd frame (Hadoop's native
// ZStandardCodec).
func decompressBlock(alg hfile.Compression, src []byte, want int) ([]byte, error) {
	if want < 0 || want > maxRootIndexBlock {
		return nil, fmt.Errorf("uncompressed size %d out of range: %w", want, hfile.ErrFormat)
	}
	var out []byte
	var err error
	switch alg {
	case hfile.CompressionNone:
		out = src
	case hfile.CompressionGZ:
		out, err = gunzip(src, want)
	case hfile.CompressionSnappy, hfile.CompressionLZ4:
		out, err = unframe(alg, src, want)
	case hfile.CompressionZSTD:
		if len(src) >= 4 && binary.LittleEndian.Uint32(src) == 0xFD2FB528 {
			out, err = unzstd(src, want)
		} else {
			out, err = unframe(alg, src, want)
		}
	default:
		return nil, fmt.Errorf("compression %s: %w", alg, hfile.ErrUnsupported)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %w", alg, err, hfile.ErrFormat)
	}
	if len(out) != want {
		return nil, fmt.Errorf("%s payload expanded to %d bytes, header says %d: %w", alg, len(out), want, hfile.ErrFormat)
	}
	return out, nil
}

func gunzip(src []byte, want int) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	zr.Multistream(true)
	// One byte more than wanted tells a long stream from an exact one.
	out, err := io.ReadAll(io.LimitReader(zr, int64(want)+1))
	if err != nil {
		return nil, err
	}
	return out, nil
}

func unzstd(src []byte, want int) ([]byte, error) {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(want)+1))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.DecodeAll(src, make([]byte, 0, want))
}

// unframe reverses Hadoop's BlockCompressorStream framing.
func unframe(alg hfile.Compression, src []byte, want int) ([]byte, error) {
	out := make([]byte, 0, want)
	u32 := func() (int, bool) {
		if len(src) < 4 {
			return 0, false
		}
		v := int(int32(binary.BigEndian.Uint32(src)))
		src = src[4:]
		return v, true
	}
	for len(src) > 0 {
		raw, ok := u32()
		if !ok || raw < 0 || raw > want-len(out) {
			return nil, fmt.Errorf("group of %d bytes overruns %d", raw, want)
		}
		end := len(out) + raw
		for len(out) < end {
			n, ok := u32()
			if !ok || n < 0 || n > len(src) {
				return nil, fmt.Errorf("chunk of %d bytes truncated", n)
			}
			chunk := src[:n]
			src = src[n:]
			room := end - len(out)
			var got []byte
			var err error
			switch alg {
			case hfile.CompressionSnappy:
				var dl int
				if dl, err = snappy.DecodedLen(chunk); err == nil && dl > room {
					err = fmt.Errorf("chunk of %d bytes overruns %d", dl, room)
				}
				if err == nil {
					got, err = snappy.Decode(nil, chunk)
				}
			case hfile.CompressionLZ4:
				buf := make([]byte, room)
				var k int
				k, err = lz4.UncompressBlock(chunk, buf)
				got = buf[:k]
				if err == nil && k == 0 && len(chunk) > 0 {
					err = fmt.Errorf("empty chunk output")
				}
			case hfile.CompressionZSTD:
				got, err = unzstd(chunk, room)
				if err == nil && len(got) > room {
					err = fmt.Errorf("chunk of %d bytes overruns %d", len(got), room)
				}
			}
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
		if len(out) != end {
			return nil, fmt.Errorf("group expanded past its length")
		}
	}
	return out, nil
}
