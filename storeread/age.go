package storeread

import (
	"cmp"
	"path"
	"regexp"
	"strconv"

	"rangecopy/hfile"
)

// FileAge is what orders a store's files from older to newer, as HBase's
// StoreFileComparators.SEQ_ID does.
type FileAge struct {
	SeqID    int64
	Size     int64
	BulkTime int64
	Path     string
}

// CompareAge orders a before b when a is the older file: sequence id
// ascending, then size descending, then bulk load time ascending, then path.
func CompareAge(a, b FileAge) int {
	if c := cmp.Compare(a.SeqID, b.SeqID); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Size, a.Size); c != 0 {
		return c
	}
	if c := cmp.Compare(a.BulkTime, b.BulkTime); c != 0 {
		return c
	}
	return cmp.Compare(a.Path, b.Path)
}

// Stamp is the sequence id a region server gives every cell of a
// bulk-loaded file of this age.
func (a FileAge) Stamp() uint64 { return uint64(max(a.SeqID, 0)) }

var seqIDName = regexp.MustCompile(`_SeqId_([0-9]+)_`)

// AgeOf is the age of the store file at p of size bytes with file info
// info, read (when ref is set) through the reference ref, and whether HBase
// treats the file as bulk loaded, stamping its cells with the file's sequence
// id (HStoreFile.isBulkLoadResult): a "_SeqId_<n>_" name, whose n is then
// the file's sequence id, or a BULKLOAD_TIMESTAMP. The top half of a split
// reference is one newer than its parent (HStoreFile.open). Pure.
func AgeOf(info hfile.FileInfo, size int64, p string, ref *hfile.Reference) (FileAge, bool) {
	age := FileAge{SeqID: info.MaxSeqID, Size: size, Path: p}
	bulk := false
	if m := seqIDName.FindStringSubmatch(path.Base(p)); m != nil {
		if n, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			age.SeqID, bulk = n, true
		}
	}
	if ts, ok := info.Raw[hfile.FileInfoBulkLoadTimestamp]; ok && len(ts) == 8 {
		var v int64
		for _, x := range ts {
			v = v<<8 | int64(x)
		}
		age.BulkTime, bulk = v, true
	}
	if ref != nil && ref.Range == hfile.RangeTop {
		age.SeqID++
	}
	return age, bulk
}
