package snapshot

import (
	"testing"

	"rangecopy/hfile"
	"rangecopy/snapshot/pb"
)

// FuzzDecodeManifest feeds arbitrary .snapshotinfo and data.manifest bytes to
// DecodeManifest under small limits: it must return an error or a manifest
// within the limits, never panic.
func FuzzDecodeManifest(f *testing.F) {
	m := mTable{ns: "ns", qual: "t", families: []*pb.ColumnFamilySchema{family("f", "VERSIONS", "2"), family("g", "IS_MOB", "false")},
		regions: []mRegion{
			{start: "", end: "k", id: 5, offline: true, split: true, files: map[string][]mFile{"f": {{name: "aa", size: 10}}}},
			{start: "", end: "e", id: 6, files: map[string][]mFile{"f": {{name: "aa.00ff", ref: hfile.NewSplitReference([]byte("e"), hfile.RangeBottom)}}}},
			{start: "e", end: "k", id: 6, files: map[string][]mFile{"g": {{name: "o=src=99-bb"}}}},
			{start: "k", end: "", id: 5},
		}}
	info, man := m.encode(f, "s")
	f.Add(info, man)
	f.Add(info, []byte{})
	f.Add([]byte{}, man)
	f.Add(info, man[:len(man)/2])
	f.Add(info, []byte("\x12\xff\xff\xff\xff\x0f"))
	lim := Limits{MaxManifestBytes: 1 << 16, MaxInfoBytes: 1 << 12, MaxRegions: 50, MaxFiles: 100}
	f.Fuzz(func(t *testing.T, info, manifest []byte) {
		got, err := DecodeManifest(info, manifest, lim)
		if err != nil {
			return
		}
		if len(got.Regions) > lim.MaxRegions || len(got.Files) > lim.MaxFiles {
			t.Fatalf("decoded %d regions and %d files beyond the limits", len(got.Regions), len(got.Files))
		}
		for _, file := range got.Files {
			if _, err := ParseFileName(file.Name, file.Reference != nil); err != nil {
				t.Fatalf("accepted file %q: %v", file.Name, err)
			}
			_ = Locations("/hbase", got.Info.Namespace(), got.Info.Qualifier(), file.Region, file.Family, file.Name)
		}
	})
}
