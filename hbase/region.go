package hbase

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"rangecopy/rowkey"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

// ErrMetaRow reports an hbase:meta row that cannot be used.
var ErrMetaRow = errors.New("hbase: bad hbase:meta row")

// metaTable is the catalog table; metaRegionName the name of its one region.
const metaTable = "hbase:meta"

var metaRegionName = []byte("hbase:meta,,1")

// Region is one region of a table: its key range [StartKey, EndKey) (an
// empty EndKey means the end of the table), identity and location.
type Region struct {
	Table       string // "namespace:qualifier", or just "qualifier" in the default namespace
	StartKey    []byte
	EndKey      []byte
	ID          uint64 // region id (creation timestamp)
	EncodedName string
	Name        []byte // full region name, the hbase:meta row key
	Server      ServerName
	Offline     bool
	Split       bool
	ReplicaID   int
}

// String returns the region's name for messages.
func (r *Region) String() string {
	if r == nil {
		return "<nil region>"
	}
	// A region name holds its start key, which may be any bytes.
	return rowkey.Format(r.Name)
}

// Contains reports whether row is inside the region's key range.
func (r *Region) Contains(row []byte) bool {
	return bytes.Compare(row, r.StartKey) >= 0 && (len(r.EndKey) == 0 || bytes.Compare(row, r.EndKey) < 0)
}

func (r *Region) specifier() *pb.RegionSpecifier {
	return &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: r.Name}
}

// tableNameString formats a TableName the way HBase does.
func tableNameString(tn *pb.TableName) string {
	ns := string(tn.GetNamespace())
	if ns == "" || ns == "default" {
		return string(tn.GetQualifier())
	}
	return ns + ":" + string(tn.GetQualifier())
}

// tableNamePB splits "ns:table" into a TableName.
func tableNamePB(table string) *pb.TableName {
	ns, q, ok := strings.Cut(table, ":")
	if !ok {
		ns, q = "default", table
	}
	return &pb.TableName{Namespace: []byte(ns), Qualifier: []byte(q)}
}

// EncodedRegionName derives a region's encoded name as HBase's
// RegionInfo.encodeRegionName does for the current region name format: the
// MD5, in lower-case hex, of "<table>,<startKey>,<regionId>" (with
// "_<replicaId>" in %04X when the replica is not 0). table is
// "namespace:qualifier", without the namespace for "default".
func EncodedRegionName(table string, startKey []byte, regionID uint64, replicaID int) string {
	_, encoded := regionName(table, startKey, regionID, replicaID)
	return encoded
}

// regionName builds HBase's region name: table,startKey,id[_replica].md5.
func regionName(table string, start []byte, id uint64, replica int) (name []byte, encoded string) {
	var b []byte
	b = append(b, table...)
	b = append(b, ',')
	b = append(b, start...)
	b = append(b, ',')
	b = strconv.AppendUint(b, id, 10)
	if replica > 0 {
		b = fmt.Appendf(b, "_%04X", replica)
	}
	sum := md5.Sum(b)
	encoded = hex.EncodeToString(sum[:])
	b = append(b, '.')
	b = append(b, encoded...)
	b = append(b, '.')
	return b, encoded
}

// parseRegionInfo decodes the value of info:regioninfo ("PBUF" + RegionInfo).
func parseRegionInfo(value []byte) (*Region, error) {
	if !bytes.HasPrefix(value, pbMagic) {
		return nil, fmt.Errorf("%w: info:regioninfo without PBUF magic", ErrMetaRow)
	}
	var ri pb.RegionInfo
	if err := proto.Unmarshal(value[len(pbMagic):], &ri); err != nil {
		return nil, fmt.Errorf("%w: info:regioninfo: %v", ErrMetaRow, err)
	}
	if ri.TableName == nil || len(ri.GetTableName().GetQualifier()) == 0 {
		return nil, fmt.Errorf("%w: info:regioninfo without table name", ErrMetaRow)
	}
	r := &Region{
		Table:     tableNameString(ri.GetTableName()),
		StartKey:  ri.GetStartKey(),
		EndKey:    ri.GetEndKey(),
		ID:        ri.GetRegionId(),
		Offline:   ri.GetOffline(),
		Split:     ri.GetSplit(),
		ReplicaID: int(ri.GetReplicaId()),
	}
	if len(r.EndKey) > 0 && bytes.Compare(r.StartKey, r.EndKey) >= 0 {
		return nil, fmt.Errorf("%w: region of %s with start key %q not below end key %q", ErrMetaRow, r.Table, r.StartKey, r.EndKey)
	}
	r.Name, r.EncodedName = regionName(r.Table, r.StartKey, r.ID, r.ReplicaID)
	if enc := ri.GetRegionEncodedName(); enc != "" {
		r.EncodedName = enc
	}
	return r, nil
}

var (
	famInfo         = []byte("info")
	qualRegionInfo  = []byte("regioninfo")
	qualServer      = []byte("server")
	qualServerStart = []byte("serverstartcode")
)

// parseMetaRow builds a Region from the cells of one hbase:meta row. The
// server is left zero when the row names none (a region in transition).
func parseMetaRow(cells []Cell) (*Region, error) {
	var r *Region
	var server string
	var startCode uint64
	for i := range cells {
		c := &cells[i]
		if !bytes.Equal(c.Family, famInfo) {
			continue
		}
		switch {
		case bytes.Equal(c.Qualifier, qualRegionInfo):
			var err error
			if r, err = parseRegionInfo(c.Value); err != nil {
				return nil, fmt.Errorf("row %q: %w", c.Row, err)
			}
		case bytes.Equal(c.Qualifier, qualServer):
			server = string(c.Value)
		case bytes.Equal(c.Qualifier, qualServerStart):
			if len(c.Value) == 8 {
				startCode = binary.BigEndian.Uint64(c.Value)
			}
		}
	}
	if r == nil {
		row := []byte(nil)
		if len(cells) > 0 {
			row = cells[0].Row
		}
		return nil, fmt.Errorf("%w: row %q has no info:regioninfo", ErrMetaRow, row)
	}
	if server != "" {
		sn, err := ParseServerName(server)
		if err != nil {
			return nil, fmt.Errorf("%w: row %q: info:server: %v", ErrMetaRow, r.Name, err)
		}
		sn.StartCode = startCode
		r.Server = sn
	}
	return r, nil
}
