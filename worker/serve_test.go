package worker

import (
	"testing"

	"rangecopy/hbase"
	"rangecopy/hfile"
)

func TestSettingsOf(t *testing.T) {
	for _, tc := range []struct {
		fd   hbase.FamilyDescriptor
		want FamilySettings
		err  bool
	}{
		{fd: hbase.FamilyDescriptor{Name: "f"}, want: FamilySettings{}},
		{fd: hbase.FamilyDescriptor{Name: "f", Compression: "GZ", DataBlockEncoding: "FAST_DIFF", BloomFilter: "ROWCOL", BlockSize: 4096},
			want: FamilySettings{Compression: hfile.CompressionGZ, Encoding: hfile.EncodingFastDiff, Bloom: hfile.BloomRowCol, BlockSize: 4096}},
		{fd: hbase.FamilyDescriptor{Name: "f", Compression: "snappy", DataBlockEncoding: "PREFIX", BloomFilter: "ROW"},
			want: FamilySettings{Compression: hfile.CompressionSnappy, Encoding: hfile.EncodingPrefix, Bloom: hfile.BloomRow}},
		{fd: hbase.FamilyDescriptor{Name: "f", Compression: "ZSTD", BloomFilter: "ROWPREFIX_FIXED_LENGTH"},
			want: FamilySettings{Compression: hfile.CompressionZSTD}},
		{fd: hbase.FamilyDescriptor{Name: "f", Compression: "WHAT"}, err: true},
		{fd: hbase.FamilyDescriptor{Name: "f", DataBlockEncoding: "PREFIX_TREE"}, err: true},
	} {
		got, err := SettingsOf(tc.fd)
		if (err != nil) != tc.err {
			t.Errorf("%+v: err = %v, want error %v", tc.fd, err, tc.err)
			continue
		}
		if err == nil && got != tc.want {
			t.Errorf("%+v: got %+v, want %+v", tc.fd, got, tc.want)
		}
	}
}
