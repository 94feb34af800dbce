package hbase

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

func regionInfoValue(t testing.TB, ri *pb.RegionInfo) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(ri)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte("PBUF"), b...)
}

func TestRegionName(t *testing.T) {
	// A region name and encoded name as HBase 2.6.1 printed them.
	name, enc := regionName("dbg_TestDebugMeta_d0b0fed8", []byte("g"), 1795990586777, 0)
	if string(name) != "dbg_TestDebugMeta_d0b0fed8,g,1795990586777.5d54c26303b097cc1761f0bc9940ef9d." ||
		enc != "5d54c26303b097cc1761f0bc9940ef9d" {
		t.Fatalf("regionName = %s, %s", name, enc)
	}
}

func TestParseMetaRow(t *testing.T) {
	ri := &pb.RegionInfo{RegionId: proto.Uint64(1795990586777), TableName: tableNamePB("dbg_TestDebugMeta_d0b0fed8"),
		StartKey: []byte("g"), EndKey: []byte("n")}
	row := []byte("dbg_TestDebugMeta_d0b0fed8,g,1795990586777.5d54c26303b097cc1761f0bc9940ef9d.")
	sc := binary.BigEndian.AppendUint64(nil, 42)
	cells := []Cell{
		{Row: row, Family: famInfo, Qualifier: qualRegionInfo, Value: regionInfoValue(t, ri)},
		{Row: row, Family: famInfo, Qualifier: []byte("seqnumDuringOpen"), Value: []byte{0, 0, 0, 0, 0, 0, 0, 2}},
		{Row: row, Family: famInfo, Qualifier: qualServer, Value: []byte("localhost:39409")},
		{Row: row, Family: famInfo, Qualifier: qualServerStart, Value: sc},
	}
	r, err := parseMetaRow(cells)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Name, row) || r.EncodedName != "5d54c26303b097cc1761f0bc9940ef9d" || r.Table != "dbg_TestDebugMeta_d0b0fed8" ||
		string(r.StartKey) != "g" || string(r.EndKey) != "n" || r.Server != (ServerName{"localhost", 39409, 42}) {
		t.Fatalf("region %+v", r)
	}
	if !r.Contains([]byte("g")) || !r.Contains([]byte("m\xff")) || r.Contains([]byte("n")) || r.Contains([]byte("f")) {
		t.Fatal("Contains is wrong")
	}

	// Namespaced table, last region, no server (in transition).
	ri = &pb.RegionInfo{RegionId: proto.Uint64(5), TableName: tableNamePB("ns:t"), StartKey: []byte("x")}
	r, err = parseMetaRow([]Cell{{Row: []byte("ns:t,x,5.abc."), Family: famInfo, Qualifier: qualRegionInfo, Value: regionInfoValue(t, ri)}})
	if err != nil || r.Table != "ns:t" || !r.Server.IsZero() || !r.Contains([]byte("zzzz")) {
		t.Fatalf("region %+v, %v", r, err)
	}
}

func TestParseMetaRowErrors(t *testing.T) {
	good := &pb.RegionInfo{RegionId: proto.Uint64(1), TableName: tableNamePB("t")}
	tests := map[string][]Cell{
		"no regioninfo": {{Row: []byte("t,,1"), Family: famInfo, Qualifier: qualServer, Value: []byte("h:1")}},
		"no magic":      {{Family: famInfo, Qualifier: qualRegionInfo, Value: []byte("XXXX")}},
		"bad protobuf":  {{Family: famInfo, Qualifier: qualRegionInfo, Value: []byte("PBUF\xff\xff")}},
		"no table":      {{Family: famInfo, Qualifier: qualRegionInfo, Value: regionInfoValue(t, &pb.RegionInfo{RegionId: proto.Uint64(1)})}},
		"reversed keys": {{Family: famInfo, Qualifier: qualRegionInfo, Value: regionInfoValue(t, &pb.RegionInfo{RegionId: proto.Uint64(1),
			TableName: tableNamePB("t"), StartKey: []byte("b"), EndKey: []byte("a")})}},
		"bad server": {
			{Family: famInfo, Qualifier: qualRegionInfo, Value: regionInfoValue(t, good)},
			{Family: famInfo, Qualifier: qualServer, Value: []byte("nohostport")},
		},
	}
	for name, cells := range tests {
		if _, err := parseMetaRow(cells); !errors.Is(err, ErrMetaRow) {
			t.Errorf("%s: err = %v, want ErrMetaRow", name, err)
		}
	}
}

func TestRegionCache(t *testing.T) {
	var rc regionCache
	mk := func(start, end string, server int) *Region {
		name, _ := regionName("t", []byte(start), 1, 0)
		return &Region{Table: "t", StartKey: []byte(start), EndKey: []byte(end), Name: name, Server: ServerName{Host: "h", Port: server}}
	}
	a, b, c := mk("", "g", 1), mk("g", "n", 2), mk("n", "", 1)
	rc.add(a)
	rc.add(b)
	rc.add(c)
	for row, want := range map[string]*Region{"": a, "a": a, "g": b, "m": b, "n": c, "zz": c} {
		if got := rc.lookup("t", []byte(row)); got != want {
			t.Errorf("lookup %q = %v, want %v", row, got, want)
		}
	}
	// A split of b replaces it.
	b1, b2 := mk("g", "j", 2), mk("j", "n", 2)
	rc.add(b1)
	if rc.lookup("t", []byte("k")) != nil {
		t.Error("stale parent still cached after a daughter was added")
	}
	rc.add(b2)
	if rc.lookup("t", []byte("k")) != b2 || rc.lookup("t", []byte("h")) != b1 {
		t.Error("daughters not found")
	}
	rc.remove(b1)
	if rc.lookup("t", []byte("h")) != nil {
		t.Error("removed region still found")
	}
	rc.removeServer(ServerName{Host: "h", Port: 1})
	if rc.lookup("t", []byte("a")) != nil || rc.lookup("t", []byte("z")) != nil || rc.lookup("t", []byte("k")) != b2 {
		t.Error("removeServer removed the wrong regions")
	}
	if rc.lookup("other", []byte("a")) != nil {
		t.Error("unknown table found")
	}
}
