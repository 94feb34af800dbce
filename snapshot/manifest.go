package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/snapshot/pb"
)

// Sentinel errors; the errors of this package wrap one of them together with
// the snapshot, file, region or family they are about.
var (
	// ErrInProgress reports a snapshot that is not complete: its folder is
	// still under .hbase-snapshot/.tmp, or it has no data.manifest yet.
	ErrInProgress = errors.New("snapshot in progress")
	// ErrNotFound reports a snapshot or a store file that does not exist.
	ErrNotFound = errors.New("not found")
	// ErrCorrupt reports snapshot metadata that cannot be decoded or does
	// not make sense.
	ErrCorrupt = errors.New("corrupt snapshot metadata")
	// ErrTooLarge reports metadata beyond the Limits.
	ErrTooLarge = errors.New("snapshot metadata too large")
	// ErrUnsupported reports a valid snapshot that uses something rangecopy
	// does not copy (v1 manifests, MOB families, erasure-coded or encrypted
	// HDFS files, encrypted HFiles).
	ErrUnsupported = errors.New("unsupported snapshot")
)

// Snapshot folder layout (SnapshotDescriptionUtils, SnapshotManifest).
const (
	snapshotDir     = ".hbase-snapshot"
	snapshotTmpDir  = ".tmp"
	infoFile        = ".snapshotinfo"
	dataManifest    = "data.manifest"
	manifestVersion = 2 // SnapshotManifestV2.DESCRIPTOR_VERSION
)

// Limits bound what ReadManifest and DecodeManifest accept, so that a
// damaged or hostile manifest cannot exhaust memory. Zero fields take the
// defaults.
type Limits struct {
	// MaxManifestBytes caps data.manifest; default 64 MiB, HBase's own
	// snapshot.manifest.size.limit.
	MaxManifestBytes int64
	// MaxInfoBytes caps .snapshotinfo; default 1 MiB.
	MaxInfoBytes int64
	// MaxRegions caps the regions in a manifest; default 1,000,000.
	MaxRegions int
	// MaxFiles caps the store files in a manifest; default 10,000,000.
	MaxFiles int
}

func (l Limits) withDefaults() Limits {
	if l.MaxManifestBytes <= 0 {
		l.MaxManifestBytes = 64 << 20
	}
	if l.MaxInfoBytes <= 0 {
		l.MaxInfoBytes = 1 << 20
	}
	if l.MaxRegions <= 0 {
		l.MaxRegions = 1_000_000
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = 10_000_000
	}
	return l
}

// Type is how a snapshot was taken (SnapshotDescription.Type).
type Type int

// Snapshot types, with HBase's values.
const (
	TypeDisabled  Type = 0
	TypeFlush     Type = 1
	TypeSkipFlush Type = 2
)

// String returns HBase's name of the type.
func (t Type) String() string {
	switch t {
	case TypeDisabled:
		return "DISABLED"
	case TypeFlush:
		return "FLUSH"
	case TypeSkipFlush:
		return "SKIPFLUSH"
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// Info is a snapshot's description, from its .snapshotinfo.
type Info struct {
	Name string
	// Table is "namespace:qualifier", or just the qualifier in the default
	// namespace, as HBase writes it.
	Table   string
	Created time.Time
	Type    Type
	// Version is the manifest format; only 2 is read.
	Version int
	Owner   string
}

// Namespace returns the namespace of the snapshot's table.
func (i Info) Namespace() string {
	ns, _ := splitTable(i.Table)
	return ns
}

// Qualifier returns the table's name without its namespace.
func (i Info) Qualifier() string {
	_, q := splitTable(i.Table)
	return q
}

func splitTable(t string) (ns, q string) {
	if i := strings.IndexByte(t, ':'); i >= 0 {
		return t[:i], t[i+1:]
	}
	return "default", t
}

// RegionInfo is a region as the manifest describes it.
type RegionInfo struct {
	// EncodedName is the region's folder name, derived from its table,
	// start key, id and replica as HBase does.
	EncodedName string
	StartKey    []byte
	EndKey      []byte
	ID          uint64
	ReplicaID   int
	// Offline and Split are set on a split parent: its daughters hold
	// references to its files, and it is not read itself.
	Offline, Split bool
}

// IsSplitParent reports whether the region is an offline split parent, which
// HBase's snapshot readers skip.
func (r RegionInfo) IsSplitParent() bool { return r.Offline && r.Split }

// ManifestFile is one store file entry of the manifest.
type ManifestFile struct {
	// Region is the encoded name of the region listing the file.
	Region string
	Family string
	// Name is the file name: a plain HFile, an HFileLink or a reference.
	Name string
	// Reference, when set, makes the file the half of a parent file.
	Reference *hfile.Reference
	// Size is the manifest's file_size (0 when not recorded).
	Size int64
}

// Manifest is a snapshot's description and v2 data manifest, decoded.
type Manifest struct {
	Info Info
	// Schema is the table schema at snapshot time, with HBase's defaults
	// filled in for attributes the family does not set.
	Schema hbase.TableDescriptor
	// Regions in the manifest's order, split parents included.
	Regions []RegionInfo
	// Files in the manifest's order.
	Files []ManifestFile
}

// hfileNameRE is StoreFileInfo.HFILE_NAME_REGEX.
var hfileNameRE = regexp.MustCompile(`^[0-9a-f]+(?:(?:_SeqId_[0-9]+_)|(?:_del))?$`)

// regionNameRE is an encoded region name.
var regionNameRE = regexp.MustCompile(`^[0-9a-f]+$`)

// DecodeManifest decodes a .snapshotinfo and a data.manifest. It does no I/O
// and never panics on bad input: every problem is an error wrapping
// ErrCorrupt, ErrTooLarge or ErrUnsupported.
func DecodeManifest(info, manifest []byte, lim Limits) (*Manifest, error) {
	lim = lim.withDefaults()
	if int64(len(info)) > lim.MaxInfoBytes {
		return nil, fmt.Errorf("%s of %d bytes, limit %d: %w", infoFile, len(info), lim.MaxInfoBytes, ErrTooLarge)
	}
	if int64(len(manifest)) > lim.MaxManifestBytes {
		return nil, fmt.Errorf("%s of %d bytes, limit %d: %w", dataManifest, len(manifest), lim.MaxManifestBytes, ErrTooLarge)
	}
	var desc pb.SnapshotDescription
	if err := proto.Unmarshal(info, &desc); err != nil {
		return nil, fmt.Errorf("%s: %v: %w", infoFile, err, ErrCorrupt)
	}
	m := &Manifest{Info: Info{
		Name: desc.GetName(), Table: desc.GetTable(), Created: time.UnixMilli(desc.GetCreationTime()),
		Type: Type(desc.GetType()), Version: int(desc.GetVersion()), Owner: desc.GetOwner(),
	}}
	what := "snapshot " + m.Info.Name
	if err := job.ValidateTableName(m.Info.Table); err != nil {
		return nil, fmt.Errorf("%s: table: %v: %w", what, err, ErrCorrupt)
	}
	if m.Info.Version != manifestVersion {
		return nil, fmt.Errorf("%s: manifest version %d, only v2 manifests (HBase 0.99 and later) are read: %w", what, m.Info.Version, ErrUnsupported)
	}
	var dm pb.SnapshotDataManifest
	if err := proto.Unmarshal(manifest, &dm); err != nil {
		return nil, fmt.Errorf("%s: %s: %v: %w", what, dataManifest, err, ErrCorrupt)
	}
	schema, err := schemaFromPB(dm.GetTableSchema())
	if err != nil {
		return nil, fmt.Errorf("%s: table schema: %w", what, err)
	}
	if schema.Name != m.Info.Table && schema.Name != "default:"+m.Info.Table {
		return nil, fmt.Errorf("%s: manifest schema is of table %q, snapshot of %q: %w", what, schema.Name, m.Info.Table, ErrCorrupt)
	}
	schema.Name = m.Info.Table
	m.Schema = schema
	if err := checkFamilies(schema); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if n := len(dm.GetRegionManifests()); n > lim.MaxRegions {
		return nil, fmt.Errorf("%s: %d regions, limit %d: %w", what, n, lim.MaxRegions, ErrTooLarge)
	}
	ns, qual := splitTable(m.Info.Table)
	seen := make(map[string]bool)
	files := make(map[FileKey]bool)
	for i, rm := range dm.GetRegionManifests() {
		ri := rm.GetRegionInfo()
		tn := ri.GetTableName()
		if string(tn.GetNamespace()) != ns || string(tn.GetQualifier()) != qual {
			return nil, fmt.Errorf("%s: region manifest %d is of table %s:%s: %w", what, i, tn.GetNamespace(), tn.GetQualifier(), ErrCorrupt)
		}
		if ri.GetReplicaId() < 0 {
			return nil, fmt.Errorf("%s: region manifest %d: replica id %d: %w", what, i, ri.GetReplicaId(), ErrCorrupt)
		}
		r := RegionInfo{
			StartKey: ri.GetStartKey(), EndKey: ri.GetEndKey(), ID: ri.GetRegionId(),
			ReplicaID: int(ri.GetReplicaId()), Offline: ri.GetOffline(), Split: ri.GetSplit(),
		}
		r.EncodedName = hbase.EncodedRegionName(m.Info.Table, r.StartKey, r.ID, r.ReplicaID)
		if len(r.EndKey) > 0 && bytes.Compare(r.StartKey, r.EndKey) >= 0 {
			return nil, fmt.Errorf("%s: region %s: start key %s not below end key %s: %w", what, r.EncodedName,
				job.FormatKey(r.StartKey), job.FormatKey(r.EndKey), ErrCorrupt)
		}
		if seen[r.EncodedName] {
			return nil, fmt.Errorf("%s: region %s listed twice: %w", what, r.EncodedName, ErrCorrupt)
		}
		seen[r.EncodedName] = true
		m.Regions = append(m.Regions, r)
		for _, ff := range rm.GetFamilyFiles() {
			family := string(ff.GetFamilyName())
			if schema.Family(family) == nil {
				return nil, fmt.Errorf("%s: region %s: family %q is not in the table schema: %w", what, r.EncodedName, family, ErrCorrupt)
			}
			for _, sf := range ff.GetStoreFiles() {
				if len(m.Files) >= lim.MaxFiles {
					return nil, fmt.Errorf("%s: more than %d store files: %w", what, lim.MaxFiles, ErrTooLarge)
				}
				mf := ManifestFile{Region: r.EncodedName, Family: family, Name: sf.GetName()}
				if sf.GetFileSize() > 1<<62 {
					return nil, fmt.Errorf("%s: region %s family %s file %q: size %d: %w", what, r.EncodedName, family, mf.Name, sf.GetFileSize(), ErrCorrupt)
				}
				mf.Size = int64(sf.GetFileSize())
				if ref := sf.GetReference(); ref != nil {
					mf.Reference = &hfile.Reference{SplitKey: ref.GetSplitkey(), Range: hfile.Range(ref.GetRange())}
					if _, err := hfile.ParseKey(mf.Reference.SplitKey); err != nil {
						return nil, fmt.Errorf("%s: region %s family %s file %q: split key: %v: %w", what, r.EncodedName, family, mf.Name, err, ErrCorrupt)
					}
				}
				if _, err := ParseFileName(mf.Name, mf.Reference != nil); err != nil {
					return nil, fmt.Errorf("%s: region %s family %s: %w", what, r.EncodedName, family, err)
				}
				key := FileKey{Region: mf.Region, Family: family, Name: mf.Name}
				if files[key] {
					return nil, fmt.Errorf("%s: region %s family %s: file %s listed twice: %w", what, r.EncodedName, family, mf.Name, ErrCorrupt)
				}
				files[key] = true
				m.Files = append(m.Files, mf)
			}
		}
	}
	return m, nil
}

// schemaFromPB converts the manifest's table schema, filling in HBase's
// defaults as the hbase package does for a live table.
func schemaFromPB(ts *pb.TableSchema) (hbase.TableDescriptor, error) {
	var d hbase.TableDescriptor
	tn := ts.GetTableName()
	if tn == nil {
		return d, fmt.Errorf("no table name: %w", ErrCorrupt)
	}
	d.Name = string(tn.GetNamespace()) + ":" + string(tn.GetQualifier())
	d.Attributes = map[string]string{}
	for _, a := range ts.GetAttributes() {
		d.Attributes[string(a.GetFirst())] = string(a.GetSecond())
	}
	for _, cf := range ts.GetColumnFamilies() {
		f, err := familyFromPB(cf)
		if err != nil {
			return d, err
		}
		if d.Family(f.Name) != nil {
			return d, fmt.Errorf("family %s listed twice: %w", f.Name, ErrCorrupt)
		}
		d.Families = append(d.Families, f)
	}
	if len(d.Families) == 0 {
		return d, fmt.Errorf("no column families: %w", ErrCorrupt)
	}
	return d, nil
}

// forever is HConstants.FOREVER, the TTL of a family without expiry.
const forever = 2147483647

func familyFromPB(cf *pb.ColumnFamilySchema) (hbase.FamilyDescriptor, error) {
	f := hbase.FamilyDescriptor{
		Name: string(cf.GetName()), MaxVersions: 1, Compression: "NONE", DataBlockEncoding: "NONE",
		BloomFilter: "ROW", BlockSize: 65536, KeepDeletedCells: "FALSE",
		Attributes: map[string]string{}, Configuration: map[string]string{},
	}
	if err := job.ValidateFamilyName(f.Name); err != nil {
		return f, fmt.Errorf("family %q: %v: %w", f.Name, err, ErrCorrupt)
	}
	for _, a := range cf.GetAttributes() {
		f.Attributes[string(a.GetFirst())] = string(a.GetSecond())
	}
	for _, a := range cf.GetConfiguration() {
		f.Configuration[a.GetName()] = a.GetValue()
	}
	ints := []struct {
		key string
		dst *int
	}{{"VERSIONS", &f.MaxVersions}, {"MIN_VERSIONS", &f.MinVersions}, {"TTL", &f.TTL}, {"BLOCKSIZE", &f.BlockSize}, {"REPLICATION_SCOPE", &f.ReplicationScope}}
	for _, a := range ints {
		v, ok := f.Attributes[a.key]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil {
			return f, fmt.Errorf("family %s: attribute %s=%q: %v: %w", f.Name, a.key, v, err, ErrCorrupt)
		}
		*a.dst = int(n)
	}
	if f.TTL == forever {
		f.TTL = 0
	}
	strs := []struct {
		key string
		dst *string
	}{{"COMPRESSION", &f.Compression}, {"DATA_BLOCK_ENCODING", &f.DataBlockEncoding}, {"BLOOMFILTER", &f.BloomFilter}, {"KEEP_DELETED_CELLS", &f.KeepDeletedCells}}
	for _, a := range strs {
		if v, ok := f.Attributes[a.key]; ok {
			*a.dst = strings.ToUpper(strings.TrimSpace(v))
		}
	}
	f.InMemory = strings.EqualFold(f.Attributes["IN_MEMORY"], "true")
	return f, nil
}

// checkFamilies refuses a schema with a family rangecopy does not copy.
func checkFamilies(schema hbase.TableDescriptor) error {
	for _, f := range schema.Families {
		if strings.EqualFold(strings.TrimSpace(f.Attributes["IS_MOB"]), "true") {
			return fmt.Errorf("family %s is a MOB family (IS_MOB=true): MOB data lives in separate MOB files that rangecopy does not copy yet: %w", f.Name, ErrUnsupported)
		}
	}
	return nil
}

// ReadManifest reads the snapshot's .snapshotinfo and data.manifest from
// <rootDir>/.hbase-snapshot/<name>/ and decodes them. A snapshot still being
// taken is refused with ErrInProgress, a missing one with ErrNotFound.
func ReadManifest(ctx context.Context, src fsys.Reader, rootDir, name string, lim Limits) (*Manifest, error) {
	lim = lim.withDefaults()
	if name == "" || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("snapshot name %q: not a valid snapshot name", name)
	}
	dir := path.Join(rootDir, snapshotDir, name)
	info, err := readSmall(ctx, src, path.Join(dir, infoFile), lim.MaxInfoBytes)
	if errors.Is(err, fs.ErrNotExist) {
		if _, terr := src.Stat(ctx, path.Join(rootDir, snapshotDir, snapshotTmpDir, name)); terr == nil {
			return nil, fmt.Errorf("snapshot %s: only %s exists: %w", name, path.Join(rootDir, snapshotDir, snapshotTmpDir, name), ErrInProgress)
		}
		return nil, fmt.Errorf("snapshot %s: %s: %w", name, path.Join(dir, infoFile), ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", name, err)
	}
	var desc pb.SnapshotDescription
	if err := proto.Unmarshal(info, &desc); err != nil || desc.GetVersion() != manifestVersion {
		// A corrupt description or a v1 snapshot: DecodeManifest words
		// the refusal, whether or not a data.manifest exists.
		_, err := DecodeManifest(info, nil, lim)
		if err == nil {
			err = fmt.Errorf("%s: %w", infoFile, ErrCorrupt)
		}
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	man, err := readSmall(ctx, src, path.Join(dir, dataManifest), lim.MaxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("snapshot %s: no %s (the snapshot was not completed, or its region manifests were never consolidated): %w",
			name, path.Join(dir, dataManifest), ErrInProgress)
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", name, err)
	}
	m, err := DecodeManifest(info, man, lim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if m.Info.Name != name {
		return nil, fmt.Errorf("%s: %s names snapshot %q: %w", dir, infoFile, m.Info.Name, ErrCorrupt)
	}
	return m, nil
}

// readSmall reads a whole file of at most limit bytes.
func readSmall(ctx context.Context, src fsys.Reader, name string, limit int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st, err := src.Stat(ctx, name)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a folder: %w", name, ErrCorrupt)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, limit %d: %w", name, st.Size(), limit, ErrTooLarge)
	}
	f, err := src.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, st.Size())
	n, err := f.ReadAt(b, 0)
	if n == len(b) {
		return b, nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: read %d of %d bytes: %w", name, n, len(b), io.ErrUnexpectedEOF)
	}
	return nil, fmt.Errorf("%s: %w", name, err)
}

// sortRegions orders regions by start key.
func sortRegions(rs []RegionInfo) {
	sort.SliceStable(rs, func(i, j int) bool { return bytes.Compare(rs[i].StartKey, rs[j].StartKey) < 0 })
}
