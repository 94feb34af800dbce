package snapshot

import (
	"context"
	"errors"
	"path"
	"strings"
	"testing"

	"rangecopy/fsys"
	"rangecopy/hfile"
	"rangecopy/snapshot/pb"
)

func simpleTable() mTable {
	return mTable{qual: "t1", families: []*pb.ColumnFamilySchema{family("f", "VERSIONS", "3", "COMPRESSION", "snappy", "TTL", "2147483647")},
		regions: []mRegion{{start: "", end: "m", id: 1}, {start: "m", end: "", id: 1}}}
}

func TestReadManifestDecodes(t *testing.T) {
	dir := t.TempDir()
	m := simpleTable()
	m.families = append(m.families, family("g", "BLOOMFILTER", "ROWCOL", "BLOCKSIZE", "8192", "DATA_BLOCK_ENCODING", "FAST_DIFF", "TTL", "3600"))
	m.regions[0].files = map[string][]mFile{"f": {{name: "0123abcd", size: 42}}}
	m.write(t, dir, "s1")
	got, err := ReadManifest(context.Background(), fsys.Local{Root: dir}, testRoot, "s1", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Info.Name != "s1" || got.Info.Table != "t1" || got.Info.Version != 2 || got.Info.Type != TypeFlush || got.Info.Created.UnixMilli() != 1700000000000 {
		t.Errorf("info = %+v", got.Info)
	}
	f, g := got.Schema.Family("f"), got.Schema.Family("g")
	if f == nil || g == nil {
		t.Fatalf("schema = %+v", got.Schema)
	}
	if f.MaxVersions != 3 || f.Compression != "SNAPPY" || f.TTL != 0 || f.BloomFilter != "ROW" || f.BlockSize != 65536 {
		t.Errorf("family f = %+v", *f)
	}
	if g.MaxVersions != 1 || g.BloomFilter != "ROWCOL" || g.BlockSize != 8192 || g.DataBlockEncoding != "FAST_DIFF" || g.TTL != 3600 {
		t.Errorf("family g = %+v", *g)
	}
	if len(got.Regions) != 2 || got.Regions[0].EncodedName != m.regionName(m.regions[0]) || string(got.Regions[1].StartKey) != "m" {
		t.Errorf("regions = %+v", got.Regions)
	}
	if len(got.Files) != 1 || got.Files[0] != (ManifestFile{Region: m.regionName(m.regions[0]), Family: "f", Name: "0123abcd", Size: 42}) {
		t.Errorf("files = %+v", got.Files)
	}
}

func TestReadManifestRefusals(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string)
		lim     Limits
		want    error
		mention string
	}{
		{"missing snapshot", func(t *testing.T, dir string) {}, Limits{}, ErrNotFound, ".snapshotinfo"},
		{"in progress under .tmp", func(t *testing.T, dir string) {
			put(t, dir, path.Join(testRoot, ".hbase-snapshot/.tmp/s/.snapshotinfo"), nil)
		}, Limits{}, ErrInProgress, ".tmp"},
		{"missing data.manifest", func(t *testing.T, dir string) {
			info, _ := simpleTable().encode(t, "s")
			put(t, dir, path.Join(testRoot, ".hbase-snapshot/s/.snapshotinfo"), info)
			put(t, dir, path.Join(testRoot, ".hbase-snapshot/s/region-manifest.abc"), []byte{1})
		}, Limits{}, ErrInProgress, "data.manifest"},
		{"corrupt manifest", func(t *testing.T, dir string) {
			info, _ := simpleTable().encode(t, "s")
			put(t, dir, path.Join(testRoot, ".hbase-snapshot/s/.snapshotinfo"), info)
			put(t, dir, path.Join(testRoot, ".hbase-snapshot/s/data.manifest"), []byte("\x0a\xff\xff\xff\x0fgarbage"))
		}, Limits{}, ErrCorrupt, "data.manifest"},
		{"truncated manifest", func(t *testing.T, dir string) {
			info, man := simpleTable().encode(t, "s")
			put(t, dir, path.Join(testRoot, ".hbase-snapshot/s/.snapshotinfo"), info)
			put(t, dir, path.Join(testRoot, ".hbase-snapshot/s/data.manifest"), man[:len(man)-3])
		}, Limits{}, ErrCorrupt, "data.manifest"},
		{"corrupt snapshotinfo", func(t *testing.T, dir string) {
			put(t, dir, path.Join(testRoot, ".hbase-snapshot/s/.snapshotinfo"), []byte{0xff, 0xff})
			put(t, dir, path.Join(testRoot, ".hbase-snapshot/s/data.manifest"), nil)
		}, Limits{}, ErrCorrupt, ".snapshotinfo"},
		{"v1 manifest", func(t *testing.T, dir string) {
			m := simpleTable()
			m.version = 1
			info, _ := m.encode(t, "s")
			put(t, dir, path.Join(testRoot, ".hbase-snapshot/s/.snapshotinfo"), info)
		}, Limits{}, ErrUnsupported, "version 1"},
		{"MOB family", func(t *testing.T, dir string) {
			m := simpleTable()
			m.families = append(m.families, family("mob", "IS_MOB", "true", "MOB_THRESHOLD", "100"))
			m.write(t, dir, "s")
		}, Limits{}, ErrUnsupported, "family mob is a MOB family"},
		{"manifest over the size cap", func(t *testing.T, dir string) {
			simpleTable().write(t, dir, "s")
		}, Limits{MaxManifestBytes: 10}, ErrTooLarge, "limit 10"},
		{"too many regions", func(t *testing.T, dir string) {
			simpleTable().write(t, dir, "s")
		}, Limits{MaxRegions: 1}, ErrTooLarge, "2 regions"},
		{"too many files", func(t *testing.T, dir string) {
			m := simpleTable()
			m.regions[0].files = map[string][]mFile{"f": {{name: "aa"}, {name: "bb"}}}
			m.write(t, dir, "s")
		}, Limits{MaxFiles: 1}, ErrTooLarge, "more than 1 store files"},
		{"corrupt snapshotinfo, no data.manifest", func(t *testing.T, dir string) {
			put(t, dir, path.Join(testRoot, ".hbase-snapshot/s/.snapshotinfo"), []byte{0xff, 0xff})
		}, Limits{}, ErrCorrupt, ".snapshotinfo"},
		{"file listed twice", func(t *testing.T, dir string) {
			m := simpleTable()
			m.regions[0].files = map[string][]mFile{"f": {{name: "aa"}, {name: "aa"}}}
			m.write(t, dir, "s")
		}, Limits{}, ErrCorrupt, "file aa listed twice"},
		{"store file name with a slash", func(t *testing.T, dir string) {
			m := simpleTable()
			m.regions[0].files = map[string][]mFile{"f": {{name: "../../x"}}}
			m.write(t, dir, "s")
		}, Limits{}, ErrCorrupt, "not a file name"},
		{"reference on a plain name", func(t *testing.T, dir string) {
			m := simpleTable()
			m.regions[0].files = map[string][]mFile{"f": {{name: "abc", ref: hfile.NewSplitReference([]byte("k"), hfile.RangeTop)}}}
			m.write(t, dir, "s")
		}, Limits{}, ErrCorrupt, "has a reference"},
		{"snapshot of another name", func(t *testing.T, dir string) {
			info, man := simpleTable().encode(t, "other")
			put(t, dir, path.Join(testRoot, ".hbase-snapshot/s/.snapshotinfo"), info)
			put(t, dir, path.Join(testRoot, ".hbase-snapshot/s/data.manifest"), man)
		}, Limits{}, ErrCorrupt, `names snapshot "other"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			_, err := ReadManifest(ctx, fsys.Local{Root: dir}, testRoot, "s", tc.lim)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("err = %v, want it to mention %q", err, tc.mention)
			}
		})
	}
}
