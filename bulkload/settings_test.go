package bulkload

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"rangecopy/hbase"
	"rangecopy/hfile"
)

// hbaseZstdCodec is HBase's own zstd-jni codec class, which frames blocks the
// Hadoop BlockCompressorStream way.
const hbaseZstdCodec = "org.apache.hadoop.hbase.io.compress.zstd.ZstdCodec"

func TestSettingsFor(t *testing.T) {
	tests := []struct {
		name string
		fd   hbase.FamilyDescriptor
		zstd string
		want FamilySettings
		err  string
	}{
		// An empty BLOOMFILTER is HBase's default, ROW.
		{"defaults", hbase.FamilyDescriptor{Name: "f"}, "", FamilySettings{Bloom: hfile.BloomRow}, ""},
		{"empty bloom, other settings", hbase.FamilyDescriptor{Name: "f", Compression: "GZ", DataBlockEncoding: "FAST_DIFF", BlockSize: 4096}, "",
			FamilySettings{Compression: hfile.CompressionGZ, Encoding: hfile.EncodingFastDiff, Bloom: hfile.BloomRow, BlockSize: 4096}, ""},
		{"all set", hbase.FamilyDescriptor{Name: "f", Compression: "SNAPPY", DataBlockEncoding: "FAST_DIFF", BloomFilter: "ROWCOL", BlockSize: 4096}, "",
			FamilySettings{Compression: hfile.CompressionSnappy, Encoding: hfile.EncodingFastDiff, Bloom: hfile.BloomRowCol, BlockSize: 4096}, ""},
		{"lower case", hbase.FamilyDescriptor{Name: "f", Compression: "lz4", DataBlockEncoding: "prefix", BloomFilter: "row"}, "",
			FamilySettings{Compression: hfile.CompressionLZ4, Encoding: hfile.EncodingPrefix, Bloom: hfile.BloomRow}, ""},
		{"lower case none", hbase.FamilyDescriptor{Name: "f", Compression: "none", DataBlockEncoding: "none", BloomFilter: "none"}, "", FamilySettings{}, ""},
		{"gz prefix", hbase.FamilyDescriptor{Name: "f", Compression: "GZ", DataBlockEncoding: "PREFIX", BloomFilter: "NONE"}, "",
			FamilySettings{Compression: hfile.CompressionGZ, Encoding: hfile.EncodingPrefix}, ""},
		// ZSTD: HBase's default codec, Hadoop's ZStandardCodec, writes
		// plain frames; HBase's own codecs write Hadoop block framing.
		{"zstd default codec", hbase.FamilyDescriptor{Name: "f", Compression: "ZSTD", BloomFilter: "NONE"}, "",
			FamilySettings{Compression: hfile.CompressionZSTD, ZstdFraming: hfile.ZstdPlainFrame}, ""},
		{"zstd hadoop codec named", hbase.FamilyDescriptor{Name: "f", Compression: "zstd"}, ZstdHadoopCodec,
			FamilySettings{Compression: hfile.CompressionZSTD, ZstdFraming: hfile.ZstdPlainFrame, Bloom: hfile.BloomRow}, ""},
		{"zstd hbase zstd-jni codec", hbase.FamilyDescriptor{Name: "f", Compression: "ZSTD", BloomFilter: "NONE"}, hbaseZstdCodec,
			FamilySettings{Compression: hfile.CompressionZSTD, ZstdFraming: hfile.ZstdHadoopBlock}, ""},
		{"zstd hbase aircompressor codec", hbase.FamilyDescriptor{Name: "f", Compression: "ZSTD", DataBlockEncoding: "ROW_INDEX_V1"},
			"org.apache.hadoop.hbase.io.compress.aircompressor.ZstdCodec",
			FamilySettings{Compression: hfile.CompressionZSTD, Encoding: hfile.EncodingRowIndexV1, Bloom: hfile.BloomRow, ZstdFraming: hfile.ZstdHadoopBlock}, ""},
		{"codec ignored without zstd", hbase.FamilyDescriptor{Name: "f", Compression: "GZ", BloomFilter: "NONE"}, hbaseZstdCodec,
			FamilySettings{Compression: hfile.CompressionGZ}, ""},
		{"block size attribute", hbase.FamilyDescriptor{Name: "f", BloomFilter: "NONE", Attributes: map[string]string{"BLOCKSIZE": "8192"}}, "", FamilySettings{BlockSize: 8192}, ""},
		{"row prefix bloom", hbase.FamilyDescriptor{Name: "f", BloomFilter: "ROWPREFIX_FIXED_LENGTH"}, "", FamilySettings{}, ""},
		{"lzo", hbase.FamilyDescriptor{Name: "f", Compression: "LZO"}, "", FamilySettings{}, "target family f: compression LZO is not supported"},
		{"brotli", hbase.FamilyDescriptor{Name: "f", Compression: "BROTLI"}, "", FamilySettings{}, "target family f: compression BROTLI"},
		{"mob", hbase.FamilyDescriptor{Name: "m", Compression: "ZSTD", Attributes: map[string]string{"IS_MOB": "true", "MOB_THRESHOLD": "102400"}}, "",
			FamilySettings{}, "target family m: MOB families are not supported"},
		{"mob upper case", hbase.FamilyDescriptor{Name: "m", Attributes: map[string]string{"IS_MOB": "TRUE"}}, "", FamilySettings{}, "target family m: MOB"},
		{"mob off", hbase.FamilyDescriptor{Name: "m", BloomFilter: "NONE", Attributes: map[string]string{"IS_MOB": "false"}}, "", FamilySettings{}, ""},
		{"encrypted", hbase.FamilyDescriptor{Name: "e", Attributes: map[string]string{"ENCRYPTION": "AES"}}, "", FamilySettings{}, "target family e: encrypted"},
		{"bad encoding", hbase.FamilyDescriptor{Name: "f", DataBlockEncoding: "PREFIX_TREE"}, "", FamilySettings{}, "encoding PREFIX_TREE"},
		{"bad block size", hbase.FamilyDescriptor{Name: "f", Attributes: map[string]string{"BLOCKSIZE": "big"}}, "", FamilySettings{}, `block size "big"`},
	}
	for _, tt := range tests {
		got, err := SettingsFor(tt.fd, tt.zstd)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
}

// TestPartOptions checks that the parts of a re-split file take the settings
// of the table's family, with the ZSTD framing of the target's codec, and
// keep the tags, MVCC and source task of the file; a MOB family's files
// cannot be re-split.
func TestPartOptions(t *testing.T) {
	var buf bytes.Buffer
	w := hfile.NewWriter(&buf, hfile.WriterOptions{Compression: hfile.CompressionGZ, Encoding: hfile.EncodingFastDiff,
		IncludeTags: true, IncludeMVCC: true, SourceTask: "task-7"})
	for i := 0; i < 10; i++ {
		c := &hfile.Cell{Row: fmt.Appendf(nil, "r%03d", i), Family: []byte("z"), Qualifier: []byte("q"), Timestamp: 1,
			Type: hfile.TypePut, Value: []byte("v"), SeqID: uint64(i + 1)}
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := hfile.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "mem")
	if err != nil {
		t.Fatal(err)
	}
	l := &Loader{cfg: LoaderConfig{Table: "t"}, settings: map[string]FamilySettings{}, refused: map[string]error{}}
	for _, fd := range []hbase.FamilyDescriptor{
		{Name: "z", Compression: "ZSTD", DataBlockEncoding: "DIFF", BlockSize: 8192},
		{Name: "m", Attributes: map[string]string{"IS_MOB": "true"}},
	} {
		s, err := SettingsFor(fd, hbaseZstdCodec)
		if err != nil {
			l.refused[fd.Name] = err
			continue
		}
		l.settings[fd.Name] = s
	}
	got, err := l.partOptions("z", r)
	want := hfile.WriterOptions{Compression: hfile.CompressionZSTD, ZstdFraming: hfile.ZstdHadoopBlock, Encoding: hfile.EncodingDiff,
		BlockSize: 8192, Bloom: hfile.BloomRow, IncludeTags: true, IncludeMVCC: true, SourceTask: "task-7"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("part options of z: %+v, %v; want %+v", got, err, want)
	}
	if _, err := l.partOptions("m", r); err == nil || !strings.Contains(err.Error(), "target family m: MOB") {
		t.Errorf("part options of MOB family m: err = %v", err)
	}
	if _, err := l.partOptions("nosuch", r); err == nil || !strings.Contains(err.Error(), "no family nosuch") {
		t.Errorf("part options of an unknown family: err = %v", err)
	}
}
