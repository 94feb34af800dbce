package worker

import (
	"strings"
	"testing"

	"rangecopy/hbase"
	"rangecopy/hfile"
)

func TestSettingsFor(t *testing.T) {
	tests := []struct {
		name string
		fd   hbase.FamilyDescriptor
		zstd string
		want FamilySettings
		err  string
	}{
		{"defaults", hbase.FamilyDescriptor{Name: "f"}, "", FamilySettings{Bloom: hfile.BloomRow}, ""},
		{"all set", hbase.FamilyDescriptor{Name: "f", Compression: "SNAPPY", DataBlockEncoding: "FAST_DIFF", BloomFilter: "ROWCOL", BlockSize: 4096}, "",
			FamilySettings{Compression: hfile.CompressionSnappy, Encoding: hfile.EncodingFastDiff, Bloom: hfile.BloomRowCol, BlockSize: 4096}, ""},
		{"lower case none", hbase.FamilyDescriptor{Name: "f", Compression: "none", DataBlockEncoding: "none", BloomFilter: "none"}, "", FamilySettings{}, ""},
		{"gz prefix", hbase.FamilyDescriptor{Name: "f", Compression: "GZ", DataBlockEncoding: "PREFIX", BloomFilter: "NONE"}, "",
			FamilySettings{Compression: hfile.CompressionGZ, Encoding: hfile.EncodingPrefix}, ""},
		{"zstd hadoop default", hbase.FamilyDescriptor{Name: "f", Compression: "ZSTD", BloomFilter: "NONE"}, "",
			FamilySettings{Compression: hfile.CompressionZSTD, ZstdFraming: hfile.ZstdPlainFrame}, ""},
		{"zstd hbase codec", hbase.FamilyDescriptor{Name: "f", Compression: "ZSTD", BloomFilter: "NONE"}, "org.apache.hadoop.hbase.io.compress.zstd.ZstdCodec",
			FamilySettings{Compression: hfile.CompressionZSTD, ZstdFraming: hfile.ZstdHadoopBlock}, ""},
		{"block size attribute", hbase.FamilyDescriptor{Name: "f", BloomFilter: "NONE", Attributes: map[string]string{"BLOCKSIZE": "8192"}}, "", FamilySettings{BlockSize: 8192}, ""},
		{"row prefix bloom", hbase.FamilyDescriptor{Name: "f", BloomFilter: "ROWPREFIX_FIXED_LENGTH"}, "", FamilySettings{}, ""},
		{"lzo", hbase.FamilyDescriptor{Name: "f", Compression: "LZO"}, "", FamilySettings{}, "target family f: compression LZO"},
		{"mob", hbase.FamilyDescriptor{Name: "m", Attributes: map[string]string{"IS_MOB": "true"}}, "", FamilySettings{}, "target family m: MOB"},
		{"encrypted", hbase.FamilyDescriptor{Name: "e", Attributes: map[string]string{"ENCRYPTION": "AES"}}, "", FamilySettings{}, "target family e: encrypted"},
		{"bad encoding", hbase.FamilyDescriptor{Name: "f", DataBlockEncoding: "PREFIX_TREE"}, "", FamilySettings{}, "encoding PREFIX_TREE"},
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
