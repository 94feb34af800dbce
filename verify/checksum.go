package verify

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"rangecopy/fsys"
	"rangecopy/job"
)

// checksumParallelism bounds the file checksums asked for at once; each
// is one NameNode call and one call per block to a DataNode, which reads
// only the block's CRCs.
const checksumParallelism = 16

// batchFile is one store file a read of a batch opens on one side.
type batchFile struct {
	family string
	path   string
	size   int64
}

// batchFiles returns the store files a read of batch b opens on side s,
// and whether their checksums may stand for reading them. They may when
// none is a reference (half of a parent's file) and, in each family, no
// two files' time ranges overlap: then no key is in two files, so which
// copy of a key wins (by sequence id, which a bulk load changes) never
// matters, and the merge of the same files gives the same cells on both
// sides. That is how a fast-path copy leaves them. Pure.
func batchFiles(s *side, families []string, b job.KeyRange, o Options) ([]batchFile, bool) {
	region, ok := regionOf(s.pinned.Regions, b.Start)
	if !ok {
		return nil, false
	}
	files := rangeFiles(s, region, families, b, o)
	byFamily := map[string][]job.StoreFile{}
	out := make([]batchFile, 0, len(files))
	for _, f := range files {
		in, ok := s.pinned.Input(f)
		if !ok || in.Reference != nil {
			return nil, false
		}
		byFamily[f.Family] = append(byFamily[f.Family], f)
		out = append(out, batchFile{family: f.Family, path: in.Path, size: in.Size})
	}
	for _, fs := range byFamily {
		if !timesApart(fs) {
			return nil, false
		}
	}
	return out, true
}

// timesApart says whether no two of files' time ranges (inclusive)
// overlap; a file of unknown times overlaps any other. Pure.
func timesApart(files []job.StoreFile) bool {
	if len(files) < 2 {
		return true
	}
	fs := slices.Clone(files)
	for _, f := range fs {
		if !f.HasTime {
			return false
		}
	}
	slices.SortFunc(fs, func(a, b job.StoreFile) int { return cmp.Compare(a.MinTime, b.MinTime) })
	for i := 1; i < len(fs); i++ {
		if fs[i].MinTime <= fs[i-1].MaxTime {
			return false
		}
	}
	return true
}

// sameFiles says whether two sides' files of a batch are the same
// multiset of contents: family, size and checksum (which covers the block
// size). A file without a checksum in sums is not known to be the same.
// Pure.
func sameFiles(src, dst []batchFile, srcSums, dstSums map[string]fsys.Checksum) bool {
	if len(src) != len(dst) {
		return false
	}
	type key struct {
		family string
		size   int64
		block  int64
		sum    string
	}
	keys := func(files []batchFile, sums map[string]fsys.Checksum) ([]key, bool) {
		out := make([]key, 0, len(files))
		for _, f := range files {
			c, ok := sums[f.path]
			if !ok || len(c.Sum) == 0 {
				return nil, false
			}
			out = append(out, key{f.family, f.size, c.BlockSize, string(c.Sum)})
		}
		slices.SortFunc(out, func(a, b key) int {
			return cmp.Or(cmp.Compare(a.family, b.family), cmp.Compare(a.size, b.size), cmp.Compare(a.block, b.block), cmp.Compare(a.sum, b.sum))
		})
		return out, true
	}
	a, ok := keys(src, srcSums)
	if !ok {
		return false
	}
	b, ok := keys(dst, dstSums)
	return ok && slices.Equal(a, b)
}

// sameShape says whether two sides' files of a batch could be the same:
// as many files of each family and size. It spares the checksums of
// batches that differ anyway. Pure.
func sameShape(src, dst []batchFile) bool {
	if len(src) != len(dst) {
		return false
	}
	type key struct {
		family string
		size   int64
	}
	count := map[key]int{}
	for _, f := range src {
		count[key{f.family, f.size}]++
	}
	for _, f := range dst {
		k := key{f.family, f.size}
		if count[k] == 0 {
			return false
		}
		count[k]--
	}
	return true
}

// provenBatches says, per batch, whether both sides' store files for it
// are byte-for-byte the same, by their HDFS checksums, which the
// DataNodes compute from the CRCs they keep without sending the data. A
// proven batch matches without being read: the same files, read with the
// same rules, give the same cells. It returns nil (prove nothing) with
// o.ReadAll, when the families' read rules differ between the sides, or
// when a side's file system cannot checksum files; a file whose checksum
// fails leaves its batches to be read.
//
// The proof is as strong as HDFS's checksums: an MD5 over the MD5s of
// each block's CRC-32Cs of 512-byte chunks. A batch hash is SHA-256; with
// o.ReadAll every batch is hashed.
func provenBatches(ctx context.Context, sides []*side, families []string, batches []job.KeyRange, o Options) []bool {
	if o.ReadAll || o.scanVersions > 0 || len(batches) == 0 {
		return nil
	}
	if o.Mode == ModeVisible {
		for _, f := range families {
			if sides[0].rules[f] != sides[1].rules[f] {
				o.Logger.Info("verify: every batch is read: the family's versions or TTL differ between the sides", "family", f)
				return nil
			}
		}
	}
	var sums [2]fsys.Checksummer
	for i, s := range sides {
		c, ok := s.fs.(fsys.Checksummer)
		if !ok {
			return nil
		}
		sums[i] = c
	}
	files := make([][2][]batchFile, len(batches))
	candidate := make([]bool, len(batches))
	want := [2]map[string]bool{{}, {}}
	for i, b := range batches {
		src, ok0 := batchFiles(sides[0], families, b, o)
		dst, ok1 := batchFiles(sides[1], families, b, o)
		if !ok0 || !ok1 || !sameShape(src, dst) {
			continue
		}
		candidate[i], files[i] = true, [2][]batchFile{src, dst}
		for si, fs := range files[i] {
			for _, f := range fs {
				want[si][f.path] = true
			}
		}
	}
	got := [2]map[string]fsys.Checksum{{}, {}}
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(checksumParallelism)
	failed := 0
	for si := range sides {
		for p := range want[si] {
			g.Go(func() error {
				c, err := sums[si].FileChecksum(ctx, p)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					if failed++; failed == 1 {
						o.Logger.Info("verify: no checksum: the batches of this file are read", "side", sides[si].name, "file", p, "err", err)
					}
					return nil // the batches of this file are read instead
				}
				got[si][p] = c
				return nil
			})
		}
	}
	_ = g.Wait()
	out := make([]bool, len(batches))
	n := 0
	for i := range batches {
		if candidate[i] && sameFiles(files[i][0], files[i][1], got[0], got[1]) {
			out[i] = true
			n++
		}
	}
	o.Logger.Info("verify: batches proven by file checksums", "proven", n, "batches", len(batches),
		"files_checksummed", len(got[0])+len(got[1]), "checksums_failed", failed)
	return out
}

// splitProven cuts each unit into runs of batches all proven or all not,
// in order, and joins the proven runs of a side that touch across regions
// into one unit (named by its first batch's region): a proven unit reads
// nothing, so one per run spares a claim per region. A nil proven proves
// nothing. Pure.
func splitProven(units []unit, proven []bool) []unit {
	if proven == nil {
		return units
	}
	var out []unit
	for _, u := range units {
		lo := u.lo
		for i := u.lo + 1; i <= u.hi; i++ {
			if i == u.hi || proven[i] != proven[lo] {
				part := u
				part.lo, part.hi, part.proven = lo, i, proven[lo]
				if n := len(out); part.proven && n > 0 && out[n-1].proven && out[n-1].side == part.side && out[n-1].hi == part.lo {
					out[n-1].hi = part.hi
				} else {
					out = append(out, part)
				}
				lo = i
			}
		}
	}
	return out
}
