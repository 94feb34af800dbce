package snapshot

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase"
	"rangecopy/hfile"
	"rangecopy/snapshot/pb"
)

// testRoot is the hbase.rootdir path used by unit tests inside an fsys.Local.
const testRoot = "/hbase"

// put writes b to the absolute path p under the local folder dir.
func put(t testing.TB, dir, p string, b []byte) {
	t.Helper()
	local := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(local, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hfileBytes returns an HFile of family with one cell per row at timestamp ts,
// in blocks of blockSize bytes.
func hfileBytes(t testing.TB, family string, rows []string, ts int64, blockSize int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := hfile.NewWriter(&buf, hfile.WriterOptions{BlockSize: blockSize, CreateTime: 1})
	for _, r := range rows {
		c := &hfile.Cell{Row: []byte(r), Family: []byte(family), Qualifier: []byte("q"), Timestamp: ts, Type: hfile.TypePut, Value: []byte("value of " + r)}
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rowsN returns n rows "row-00000" ... in order.
func rowsN(prefix string, from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%05d", prefix, from+i)
	}
	return out
}

// mRegion describes a region of a hand-made manifest.
type mRegion struct {
	start, end     string
	id             uint64
	offline, split bool
	files          map[string][]mFile // by family
}

// mFile is a store file entry of a hand-made manifest.
type mFile struct {
	name string
	ref  *hfile.Reference
	size uint64
}

// mTable describes a hand-made snapshot.
type mTable struct {
	ns, qual string
	families []*pb.ColumnFamilySchema
	regions  []mRegion
	version  int32
}

func family(name string, attrs ...string) *pb.ColumnFamilySchema {
	cf := &pb.ColumnFamilySchema{Name: []byte(name)}
	for i := 0; i+1 < len(attrs); i += 2 {
		cf.Attributes = append(cf.Attributes, &pb.BytesBytesPair{First: []byte(attrs[i]), Second: []byte(attrs[i+1])})
	}
	return cf
}

func (m mTable) tableName() string {
	if m.ns == "" || m.ns == "default" {
		return m.qual
	}
	return m.ns + ":" + m.qual
}

// encode returns .snapshotinfo and data.manifest bytes.
func (m mTable) encode(t testing.TB, name string) (info, manifest []byte) {
	t.Helper()
	ns := m.ns
	if ns == "" {
		ns = "default"
	}
	version := m.version
	if version == 0 {
		version = 2
	}
	desc := &pb.SnapshotDescription{Name: proto.String(name), Table: proto.String(m.tableName()),
		CreationTime: proto.Int64(1700000000000), Type: pb.SnapshotDescription_FLUSH.Enum(), Version: proto.Int32(version), Owner: proto.String("hbase")}
	tn := &pb.TableName{Namespace: []byte(ns), Qualifier: []byte(m.qual)}
	dm := &pb.SnapshotDataManifest{TableSchema: &pb.TableSchema{TableName: tn, ColumnFamilies: m.families}}
	for _, r := range m.regions {
		rm := &pb.SnapshotRegionManifest{Version: proto.Int32(2), RegionInfo: &pb.RegionInfo{
			RegionId: proto.Uint64(r.id), TableName: tn, StartKey: []byte(r.start), EndKey: []byte(r.end),
			Offline: proto.Bool(r.offline), Split: proto.Bool(r.split)}}
		for _, cf := range m.families {
			ff := &pb.SnapshotRegionManifest_FamilyFiles{FamilyName: cf.Name}
			for _, f := range r.files[string(cf.Name)] {
				sf := &pb.SnapshotRegionManifest_StoreFile{Name: proto.String(f.name), FileSize: proto.Uint64(f.size)}
				if f.ref != nil {
					sf.Reference = &pb.Reference{Splitkey: f.ref.SplitKey, Range: pb.Reference_Range(f.ref.Range).Enum()}
				}
				ff.StoreFiles = append(ff.StoreFiles, sf)
			}
			rm.FamilyFiles = append(rm.FamilyFiles, ff)
		}
		dm.RegionManifests = append(dm.RegionManifests, rm)
	}
	var err error
	if info, err = proto.Marshal(desc); err != nil {
		t.Fatal(err)
	}
	if manifest, err = proto.Marshal(dm); err != nil {
		t.Fatal(err)
	}
	return info, manifest
}

// write puts the snapshot's files under dir's testRoot.
func (m mTable) write(t testing.TB, dir, name string) {
	t.Helper()
	info, man := m.encode(t, name)
	sdir := path.Join(testRoot, ".hbase-snapshot", name)
	put(t, dir, path.Join(sdir, ".snapshotinfo"), info)
	put(t, dir, path.Join(sdir, "data.manifest"), man)
}

// regionName returns the encoded name of a region of m.
func (m mTable) regionName(r mRegion) string {
	return hbase.EncodedRegionName(m.tableName(), []byte(r.start), r.id, 0)
}
