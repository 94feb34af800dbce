package storeread

import (
	"testing"

	"rangecopy/hfile"
)

func TestCompareAge(t *testing.T) {
	tests := []struct {
		a, b FileAge
		want int
	}{
		{FileAge{SeqID: 1}, FileAge{SeqID: 2}, -1},
		{FileAge{SeqID: 2, Size: 10}, FileAge{SeqID: 2, Size: 5}, -1}, // larger is older
		{FileAge{SeqID: 2, Size: 1}, FileAge{SeqID: 2, Size: 5}, 1},
		{FileAge{SeqID: 2, Size: 5, BulkTime: 1}, FileAge{SeqID: 2, Size: 5, BulkTime: 2}, -1},
		{FileAge{SeqID: 2, Path: "b"}, FileAge{SeqID: 2, Path: "a"}, 1},
		{FileAge{SeqID: 2, Path: "a"}, FileAge{SeqID: 2, Path: "a"}, 0},
	}
	for _, tc := range tests {
		if got := CompareAge(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareAge(%+v, %+v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestAgeOf(t *testing.T) {
	bulkTime := map[string][]byte{hfile.FileInfoBulkLoadTimestamp: {0, 0, 0, 0, 0, 0, 1, 2}}
	top := &hfile.Reference{Range: hfile.RangeTop}
	bottom := &hfile.Reference{Range: hfile.RangeBottom}
	tests := []struct {
		name string
		info hfile.FileInfo
		path string
		ref  *hfile.Reference
		want FileAge
		bulk bool
	}{
		{"flushed", hfile.FileInfo{MaxSeqID: 7}, "/d/f/abc", nil, FileAge{SeqID: 7, Size: 10, Path: "/d/f/abc"}, false},
		{"bulk-loaded name", hfile.FileInfo{MaxSeqID: 1}, "/d/f/abc_SeqId_300_", nil, FileAge{SeqID: 300, Size: 10, Path: "/d/f/abc_SeqId_300_"}, true},
		{"bulk load time", hfile.FileInfo{MaxSeqID: 4, Raw: bulkTime}, "/d/f/abc", nil, FileAge{SeqID: 4, Size: 10, BulkTime: 258, Path: "/d/f/abc"}, true},
		{"top half", hfile.FileInfo{MaxSeqID: 7}, "/d/f/abc", top, FileAge{SeqID: 8, Size: 10, Path: "/d/f/abc"}, false},
		{"bottom half", hfile.FileInfo{MaxSeqID: 7}, "/d/f/abc", bottom, FileAge{SeqID: 7, Size: 10, Path: "/d/f/abc"}, false},
	}
	for _, tc := range tests {
		got, bulk := AgeOf(tc.info, 10, tc.path, tc.ref)
		if got != tc.want || bulk != tc.bulk {
			t.Errorf("%s: AgeOf = %+v, %v; want %+v, %v", tc.name, got, bulk, tc.want, tc.bulk)
		}
	}
}
